// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { createElement } from "react";
import { hydrateRoot } from "react-dom/client";
import { renderToString } from "react-dom/server";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import Calculator, { type CalculatorProps, QUOTE_DEBOUNCE_MS, ratesLine } from "../../islands/Calculator.tsx";
import type { Quote } from "../../islands/money/calls.ts";
import { fakeApi, type FakeCall, resetIslands } from "../helpers/fake-api.ts";

/**
 * Moves the clock, then a millisecond more. React renders what the timers changed when act() ends
 * (so a price asked once typing pauses goes out then), and TanStack Query tells React of an answer
 * on a zero-delay timer of its own, which the fake clock runs 1 ms later.
 */
const settle = async (ms = 0) => {
  await act(() => vi.advanceTimersByTimeAsync(ms));
  await act(() => vi.advanceTimersByTimeAsync(1));
};

const CURRENCIES = [
  { code: "EUR", name: "Euro", minor_units: 2 },
  { code: "GBP", name: "Pound Sterling", minor_units: 2 },
  { code: "JPY", name: "Japanese Yen", minor_units: 0 },
];

/** A made-up price list: 1 GBP = 1.17 EUR, fee 1.00 GBP. */
function priced(q: Record<string, string>): Quote {
  const rate = 1.17;
  const amount = Number(q.amount);
  const sell = q.fixed === "sell" ? amount : amount / rate + 1;
  const buy = q.fixed === "sell" ? (amount - 1) * rate : amount;
  return {
    sell_currency: q.sell,
    buy_currency: q.buy,
    sell_amount: sell.toFixed(2),
    buy_amount: buy.toFixed(2),
    mid_rate: "1.171200",
    rate: "1.170000",
    markup: "0.14",
    fee: "1.00",
    fee_currency: q.sell,
    expires_at: "2026-11-22T10:00:30.000Z",
  };
}

const quoteRoute = (call: FakeCall): [number, unknown] => {
  if (Number(call.query.amount) <= 1) {
    return [422, {
      error: "The amount must be more than the fee of 1.00 GBP.",
      message: "Unprocessable Entity",
      fields: { amount: "The amount must be more than the fee of 1.00 GBP." },
    }];
  }
  return [200, { body: priced(call.query) }];
};

const PROPS: CalculatorProps = {
  currencies: CURRENCIES,
  initial: { sell: "GBP", buy: "EUR", amount: "100.00", fixed: "sell" },
  signedIn: false,
  quote: priced({ sell: "GBP", buy: "EUR", amount: "100.00", fixed: "sell" }),
  rates: { as_of: "2026-11-20", source: "ecb", indicative: false },
};

const send = () => screen.getByLabelText("You send") as HTMLInputElement;
const receive = () => screen.getByLabelText("They receive") as HTMLInputElement;
const summary = () => document.querySelector("dl")!.textContent ?? "";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  cleanup();
  resetIslands();
  vi.useRealTimers();
});

describe("Calculator", () => {
  test("the server's first quote is on the page, and hydrating it changes nothing and asks nothing", async () => {
    const calls = fakeApi(quoteRoute, { delayMs: 50 });
    const html = renderToString(<Calculator {...PROPS} />);
    expect(html).toContain("115.83 EUR");
    expect(html).toContain("Rates as of 2026-11-20 (ecb)");
    expect(html).toContain('inputMode="decimal"');
    const root = document.createElement("div");
    root.innerHTML = html;
    document.body.append(root);
    act(() => {
      hydrateRoot(root, createElement(Calculator, PROPS));
    });
    await settle(1000);
    expect(calls).toEqual([]);
    expect((root.querySelector("#calc-receive") as HTMLInputElement).value).toBe("115.83");
    root.remove();
  });

  test("shows the mid-market rate, our rate, the fee and the amount received", () => {
    fakeApi(quoteRoute, { delayMs: 50 });
    render(<Calculator {...PROPS} />);
    expect(send().value).toBe("100.00");
    expect(receive().value).toBe("115.83");
    expect(summary()).toContain("Mid-market rate1 GBP = 1.171200 EUR");
    expect(summary()).toContain("Our rate1 GBP = 1.170000 EUR");
    expect(summary()).toContain("Fee1.00 GBP");
    expect(summary()).toContain("They receive115.83 EUR");
    expect(document.querySelector("dl")!.getAttribute("aria-live")).toBe("polite");
    expect(send().getAttribute("inputmode")).toBe("decimal");
    expect(receive().getAttribute("inputmode")).toBe("decimal");
  });

  test("asks for a new quote once typing stops (debounced), aborting the one in flight", async () => {
    const calls = fakeApi(quoteRoute, { delayMs: 100 });
    render(<Calculator {...PROPS} />);

    fireEvent.change(send(), { target: { value: "2" } });
    await settle(QUOTE_DEBOUNCE_MS - 10);
    fireEvent.change(send(), { target: { value: "20" } });
    await settle(QUOTE_DEBOUNCE_MS - 10);
    expect(calls).toEqual([]); // still typing
    fireEvent.change(send(), { target: { value: "200" } });
    await settle(QUOTE_DEBOUNCE_MS);
    expect(calls.map((c) => c.query.amount)).toEqual(["200"]);
    expect(calls[0]).toMatchObject({
      method: "GET",
      path: "quote",
      query: { sell: "GBP", buy: "EUR", amount: "200", fixed: "sell" },
    });

    // Typing again while that request is in flight aborts it.
    fireEvent.change(send(), { target: { value: "300" } });
    await settle(QUOTE_DEBOUNCE_MS);
    expect(calls[0].aborted).toBe(true);
    expect(calls.map((c) => c.query.amount)).toEqual(["200", "300"]);
    await settle(100);
    expect(calls[1].aborted).toBe(false);
    expect(receive().value).toBe("349.83");
    expect(summary()).toContain("They receive349.83 EUR");
  });

  test("typing on the receive side switches to fixed=buy and fills what you send", async () => {
    const calls = fakeApi(quoteRoute, { delayMs: 50 });
    render(<Calculator {...PROPS} />);
    fireEvent.change(receive(), { target: { value: "117.00" } });
    await settle(QUOTE_DEBOUNCE_MS);
    await settle(50);
    expect(calls).toHaveLength(1);
    expect(calls[0].query).toEqual({ sell: "GBP", buy: "EUR", amount: "117.00", fixed: "buy" });
    expect(send().value).toBe("101.00");
    expect(receive().value).toBe("117.00");
    expect(summary()).toContain("You send101.00 GBP");
  });

  test("a 422 shows its text inline and empties the other side", async () => {
    fakeApi(quoteRoute, { delayMs: 50 });
    render(<Calculator {...PROPS} />);
    fireEvent.change(send(), { target: { value: "0.50" } });
    await settle(QUOTE_DEBOUNCE_MS);
    await settle(50);
    expect(screen.getByRole("alert").textContent).toBe("The amount must be more than the fee of 1.00 GBP.");
    expect(send().getAttribute("aria-invalid")).toBe("true");
    expect(receive().value).toBe("");
    expect(summary()).not.toContain("115.83");

    // Fixing the amount clears the error.
    fireEvent.change(send(), { target: { value: "100.00" } });
    await settle(QUOTE_DEBOUNCE_MS);
    await settle(50);
    expect(screen.getByRole("alert").textContent).toBe("");
    expect(receive().value).toBe("115.83");
  });

  test("an emptied amount asks nothing and empties the other side", async () => {
    const calls = fakeApi(quoteRoute, { delayMs: 50 });
    render(<Calculator {...PROPS} />);
    fireEvent.change(send(), { target: { value: "" } });
    await settle(1000);
    expect(calls).toEqual([]);
    expect(receive().value).toBe("");
  });

  test("changing a currency asks at once; the swap button swaps currencies, amounts and the fixed side", async () => {
    const calls = fakeApi(quoteRoute, { delayMs: 50 });
    render(<Calculator {...PROPS} />);
    fireEvent.change(screen.getByLabelText("Currency to receive"), { target: { value: "JPY" } });
    await settle(50);
    expect(calls.at(-1)!.query).toEqual({ sell: "GBP", buy: "JPY", amount: "100.00", fixed: "sell" });

    fireEvent.click(screen.getByRole("button", { name: "Swap currencies" }));
    await settle(50);
    expect(calls.at(-1)!.query).toEqual({ sell: "JPY", buy: "GBP", amount: "100.00", fixed: "buy" });
    expect((screen.getByLabelText("Currency to send") as HTMLSelectElement).value).toBe("JPY");
    expect(receive().value).toBe("100.00");
  });

  test("an amount kept while its currency changes is written with that currency's decimals, not refused", async () => {
    const calls = fakeApi(quoteRoute, { delayMs: 50 });
    render(<Calculator {...PROPS} />);
    fireEvent.change(screen.getByLabelText("Currency to send"), { target: { value: "JPY" } });
    await settle(50);
    expect(send().value).toBe("100");
    expect(calls.at(-1)!.query).toEqual({ sell: "JPY", buy: "EUR", amount: "100", fixed: "sell" });

    // Back to a currency with decimals: the amount gains them; a swap keeps it on its currency.
    fireEvent.change(screen.getByLabelText("Currency to send"), { target: { value: "GBP" } });
    await settle(50);
    expect(send().value).toBe("100.00");
    fireEvent.click(screen.getByRole("button", { name: "Swap currencies" }));
    await settle(50);
    expect(calls.at(-1)!.query).toEqual({ sell: "EUR", buy: "GBP", amount: "100.00", fixed: "buy" });

    // A digit that counts is never dropped: the server says what is wrong with it.
    fireEvent.change(receive(), { target: { value: "100.50" } });
    fireEvent.change(screen.getByLabelText("Currency to receive"), { target: { value: "JPY" } });
    await settle(50);
    expect(receive().value).toBe("100.50");
    expect(calls.at(-1)!.query).toEqual({ sell: "EUR", buy: "JPY", amount: "100.50", fixed: "buy" });
  });

  test("links to the conversion with the pair, the amount and the fixed side, signed in or not", async () => {
    fakeApi(quoteRoute, { delayMs: 50 });
    const link = "/account/convert?sell=GBP&buy=EUR&fixed=sell&amount=100.00";
    const { unmount } = render(<Calculator {...PROPS} />);
    // Not signed in, the convert page sends the visitor to sign in and brings them back to it.
    expect(screen.getByRole("link", { name: "Sign in to convert" }).getAttribute("href")).toBe(link);
    unmount();
    render(<Calculator {...PROPS} signedIn />);
    expect(screen.getByRole("link", { name: "Convert now" }).getAttribute("href")).toBe(link);
    fireEvent.change(receive(), { target: { value: "80" } });
    await settle(300);
    expect(screen.getByRole("link", { name: "Convert now" }).getAttribute("href")).toBe(
      "/account/convert?sell=GBP&buy=EUR&fixed=buy&amount=80",
    );
  });

  test("without a server quote it asks for one once hydrated", async () => {
    const calls = fakeApi(quoteRoute, { delayMs: 50 });
    render(<Calculator {...PROPS} quote={null} />);
    expect(receive().value).toBe("");
    await settle(50);
    expect(calls).toHaveLength(1);
    expect(receive().value).toBe("115.83");
  });

  test("the rates line says the date, the source and whether they are indicative", () => {
    expect(ratesLine({ as_of: "2026-11-20", source: "ecb", indicative: false })).toBe("Rates as of 2026-11-20 (ecb)");
    expect(ratesLine({ as_of: "2026-11-20", source: "admin", indicative: true })).toBe(
      "Rates as of 2026-11-20 (admin, indicative)",
    );
    expect(ratesLine({ as_of: "2026-01-01", source: "indicative", indicative: true })).toBe(
      "Rates as of 2026-01-01 (indicative)",
    );
  });
});
