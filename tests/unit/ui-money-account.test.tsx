// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { createElement } from "react";
import { hydrateRoot } from "react-dom/client";
import { renderToString } from "react-dom/server";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import Balances, { type BalancesProps } from "../../islands/Balances.tsx";
import ConvertForm, { type ConvertFormProps, QUOTE_EXPIRED } from "../../islands/ConvertForm.tsx";
import { addAmount } from "../../islands/lib/amounts.ts";
import { quoteDeadline, useSecondsLeft } from "../../islands/money/countdown.ts";
import { notifications } from "../../islands/lib/notification-store.ts";
import { IDEMPOTENCY_HEADER } from "../../lib/api-types.ts";
import { fakeApi, resetIslands } from "../helpers/fake-api.ts";

const fail = (status: number, error: string): [number, unknown] => [status, { error, message: "" }];
const settle = (ms = 0) => act(() => vi.advanceTimersByTimeAsync(ms));

const CURRENCIES = [
  { code: "EUR", name: "Euro", minor_units: 2 },
  { code: "GBP", name: "Pound Sterling", minor_units: 2 },
  { code: "USD", name: "US Dollar", minor_units: 2 },
];

const QUOTE = {
  id: "q-1",
  sell_currency: "GBP",
  buy_currency: "EUR",
  sell_amount: "100.00",
  buy_amount: "117.01",
  mid_rate: "1.181900",
  rate: "1.182000",
  markup: "0.14",
  fee: "1.00",
  fee_currency: "GBP",
  // The server's clock: far from this test's, which must not matter.
  expires_at: "2030-01-01T00:00:30.000Z",
};

const CONVERSION = {
  id: 9,
  quote_id: "q-1",
  sell_currency: "GBP",
  sell_amount: "100.00",
  buy_currency: "EUR",
  buy_amount: "117.01",
  rate: "1.182000",
  fee: "1.00",
  fee_currency: "GBP",
  transfer_id: 31,
  created_at: "2026-11-22T10:00:05.000Z",
};

/** The balances the server answers after the conversion. */
const AFTER = [
  { currency: "EUR", available: "117.01", held: "0.00" },
  { currency: "GBP", available: "150.00", held: "0.00" },
];

const PROPS: ConvertFormProps = {
  currencies: CURRENCIES,
  accountRef: "P1234567",
  balances: [
    { currency: "EUR", available: "0.00", held: "0.00" },
    { currency: "GBP", available: "250.00", held: "0.00" },
  ],
  validitySeconds: 30,
};

beforeEach(() => {
  vi.useFakeTimers();
  notifications.clear();
});
afterEach(() => {
  cleanup();
  resetIslands();
  notifications.clear();
  vi.useRealTimers();
});

const countdown = () => screen.getByText(/This quote (is valid for|has expired)/);

async function quoted(props: ConvertFormProps = PROPS) {
  render(<ConvertForm {...props} />);
  await settle();
  fireEvent.change(screen.getByLabelText("Amount to sell"), { target: { value: "100.00" } });
  fireEvent.click(screen.getByRole("button", { name: "Get a quote" }));
  await settle();
}

describe("ConvertForm", () => {
  test("sells a currency with a balance by default and says what is available", () => {
    fakeApi(() => [200, { body: QUOTE }]);
    render(<ConvertForm {...PROPS} />);
    expect((screen.getByLabelText("Currency to sell") as HTMLSelectElement).value).toBe("GBP");
    expect((screen.getByLabelText("Currency to receive") as HTMLSelectElement).value).toBe("EUR");
    expect(screen.getByText("Available: 250.00 GBP")).toBeTruthy();
    expect(screen.getByLabelText("Amount to sell").getAttribute("inputmode")).toBe("decimal");
  });

  test("starts from what the page was opened with (the calculator's Convert now)", () => {
    fakeApi(() => [200, { body: QUOTE }]);
    render(<ConvertForm {...PROPS} start={{ sell: "EUR", buy: "GBP", fixed: "buy", amount: "50.00" }} />);
    expect((screen.getByLabelText("Currency to sell") as HTMLSelectElement).value).toBe("EUR");
    expect((screen.getByLabelText("Currency to receive") as HTMLSelectElement).value).toBe("GBP");
    expect((screen.getByLabelText("Amount to receive") as HTMLInputElement).value).toBe("50.00");
    expect((screen.getByLabelText("Amount to sell") as HTMLInputElement).value).toBe("");
  });

  test("amounts kept while a currency changes are written with its decimals, so a quote is not refused", async () => {
    const calls = fakeApi(() => [200, { body: QUOTE }]);
    const currencies = [...CURRENCIES, { code: "JPY", name: "Japanese Yen", minor_units: 0 }];
    render(<ConvertForm {...PROPS} currencies={currencies} />);
    await settle();
    fireEvent.change(screen.getByLabelText("Amount to sell"), { target: { value: "100.00" } });
    fireEvent.change(screen.getByLabelText("Currency to sell"), { target: { value: "JPY" } });
    expect((screen.getByLabelText("Amount to sell") as HTMLInputElement).value).toBe("100");
    // Choosing the other side's currency swaps the pair: the amount takes the new currency's decimals.
    fireEvent.change(screen.getByLabelText("Currency to sell"), { target: { value: "EUR" } });
    fireEvent.change(screen.getByLabelText("Currency to receive"), { target: { value: "EUR" } });
    expect((screen.getByLabelText("Currency to sell") as HTMLSelectElement).value).toBe("JPY");
    expect((screen.getByLabelText("Amount to sell") as HTMLInputElement).value).toBe("100");
    fireEvent.change(screen.getByLabelText("Currency to sell"), { target: { value: "GBP" } });
    expect((screen.getByLabelText("Amount to sell") as HTMLInputElement).value).toBe("100.00");
    fireEvent.click(screen.getByRole("button", { name: "Get a quote" }));
    await settle();
    expect(calls.at(-1)!.body).toMatchObject({ sell_currency: "GBP", amount: "100.00", fixed: "sell" });
  });

  test("the server render has the buttons disabled until hydrated", () => {
    const html = renderToString(<ConvertForm {...PROPS} />);
    expect(html).toMatch(/<button type="submit"[^>]*disabled/);
  });

  test("'Get a quote' posts the quote request and shows the amounts, the rate, the fee and a countdown", async () => {
    const calls = fakeApi(() => [200, { body: QUOTE }]);
    await quoted();
    expect(calls).toEqual([
      expect.objectContaining({
        method: "POST",
        path: "account/conversions/quote",
        body: { sell_currency: "GBP", buy_currency: "EUR", amount: "100.00", fixed: "sell" },
      }),
    ]);
    const quote = within(screen.getByRole("region", { name: "Your quote" }));
    expect(quote.getByText("100.00 GBP")).toBeTruthy();
    expect(quote.getByText("117.01 EUR")).toBeTruthy();
    expect(quote.getByText("1 GBP = 1.182000 EUR")).toBeTruthy();
    expect(quote.getByText("1.00 GBP")).toBeTruthy();
    expect(countdown().textContent).toBe("This quote is valid for 30 seconds.");
    expect(countdown().getAttribute("aria-live")).toBe("polite");
    expect((screen.getByLabelText("Amount to receive") as HTMLInputElement).value).toBe("117.01");

    await settle(1000);
    expect(countdown().textContent).toBe("This quote is valid for 29 seconds.");
    await settle(18_000);
    expect(countdown().textContent).toBe("This quote is valid for 11 seconds.");
  });

  test("typing on the receive side asks with fixed=buy", async () => {
    const calls = fakeApi(() => [200, { body: QUOTE }]);
    render(<ConvertForm {...PROPS} />);
    await settle();
    fireEvent.change(screen.getByLabelText("Amount to receive"), { target: { value: "117.01" } });
    fireEvent.click(screen.getByRole("button", { name: "Get a quote" }));
    await settle();
    expect(calls[0].body).toEqual({ sell_currency: "GBP", buy_currency: "EUR", amount: "117.01", fixed: "buy" });
  });

  test("at 0 the Confirm button is disabled and a new quote is offered", async () => {
    const calls = fakeApi(() => [200, { body: QUOTE }]);
    await quoted();
    const confirm = screen.getByRole("button", { name: "Confirm" }) as HTMLButtonElement;
    expect(confirm.disabled).toBe(false);
    await settle(29_000);
    expect(countdown().textContent).toBe("This quote is valid for 1 second.");
    expect(confirm.disabled).toBe(false);
    await settle(1000);
    expect(countdown().textContent).toBe("This quote has expired.");
    expect((screen.getByRole("button", { name: "Confirm" }) as HTMLButtonElement).disabled).toBe(true);

    fireEvent.click(screen.getByRole("button", { name: "Get a new quote" }));
    await settle();
    expect(calls.map((c) => c.path)).toEqual(["account/conversions/quote", "account/conversions/quote"]);
    expect(countdown().textContent).toBe("This quote is valid for 30 seconds.");
  });

  test("Confirm sends the quote_id with an Idempotency-Key, the same on a retry; success resets the form", async () => {
    let attempt = 0;
    const calls = fakeApi((call) => {
      if (call.path === "account/conversions/quote") return [200, { body: QUOTE }];
      if (call.path === "account/balances") return [200, { body: AFTER }];
      attempt += 1;
      return attempt === 1 ? fail(503, "Service unavailable, try again.") : [200, { body: CONVERSION }];
    });
    await quoted();

    fireEvent.click(screen.getByRole("button", { name: "Confirm" }));
    await settle();
    expect(screen.getByText("Service unavailable, try again.")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Confirm" }));
    await settle();

    const confirms = calls.filter((c) => c.path === "account/conversions");
    expect(confirms.map((c) => c.body)).toEqual([{ quote_id: "q-1" }, { quote_id: "q-1" }]);
    const key = confirms[0].headers.get(IDEMPOTENCY_HEADER);
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(confirms[1].headers.get(IDEMPOTENCY_HEADER)).toBe(key);

    expect(notifications.snapshot().visible.map((n) => n.title)).toEqual(["Converted 100.00 GBP to 117.01 EUR"]);
    expect(within(screen.getByRole("form", { name: "Convert" })).getByRole("status").textContent).toBe(
      "Converted 100.00 GBP to 117.01 EUR",
    );
    expect(screen.queryByRole("region", { name: "Your quote" })).toBeNull();
    expect((screen.getByLabelText("Amount to sell") as HTMLInputElement).value).toBe("");
    expect(screen.getByText("Available: 150.00 GBP")).toBeTruthy();
  });

  test("the quote shows the full price: the mid-market rate, our rate, the markup in money and the fee", async () => {
    fakeApi(() => [200, { body: QUOTE }]);
    await quoted();
    const quote = within(screen.getByRole("region", { name: "Your quote" }));
    const terms = quote.getAllByRole("term").map((t) => t.textContent);
    expect(terms).toEqual(["You sell", "Mid-market rate", "Our rate", "Our markup on the rate", "Fee", "You receive"]);
    expect(quote.getByText("1 GBP = 1.181900 EUR")).toBeTruthy();
    expect(quote.getByText("0.14 GBP")).toBeTruthy();
  });

  test("an amount to sell above the available balance is refused while typing, and not sent", async () => {
    const calls = fakeApi(() => [200, { body: QUOTE }]);
    render(<ConvertForm {...PROPS} />);
    await settle();
    const amount = screen.getByLabelText("Amount to sell");
    fireEvent.change(amount, { target: { value: "250.00" } });
    expect(amount.getAttribute("aria-invalid")).not.toBe("true");
    fireEvent.change(amount, { target: { value: "250.01" } });
    expect(screen.getByText("That is more than your available 250.00 GBP.")).toBeTruthy();
    expect(amount.getAttribute("aria-invalid")).toBe("true");
    fireEvent.click(screen.getByRole("button", { name: "Get a quote" }));
    await settle();
    expect(calls).toEqual([]);
    // A currency not held at all.
    fireEvent.change(screen.getByLabelText("Currency to sell"), { target: { value: "USD" } });
    fireEvent.change(amount, { target: { value: "1.00" } });
    expect(screen.getByText("You have no USD available to sell.")).toBeTruthy();
  });

  test("an amount to receive whose price sells more than is available is not offered a quote", async () => {
    fakeApi(() => [200, { body: { ...QUOTE, sell_amount: "300.00", buy_amount: "350.00" } }]);
    render(<ConvertForm {...PROPS} />);
    await settle();
    fireEvent.change(screen.getByLabelText("Amount to receive"), { target: { value: "350.00" } });
    fireEvent.click(screen.getByRole("button", { name: "Get a quote" }));
    await settle();
    expect(screen.queryByRole("region", { name: "Your quote" })).toBeNull();
    expect(screen.getAllByText("It would sell 300.00 GBP. That is more than your available 250.00 GBP.").length)
      .toBeGreaterThan(0);
  });

  test("a confirmed conversion shows its receipt, with a link to its movement", async () => {
    fakeApi((call) => {
      if (call.path === "account/conversions/quote") return [200, { body: QUOTE }];
      if (call.path === "account/conversions") return [200, { body: CONVERSION }];
      return [200, { body: AFTER }];
    });
    await quoted();
    fireEvent.click(screen.getByRole("button", { name: "Confirm" }));
    await settle();
    const receipt = within(screen.getByRole("region", { name: "Conversion receipt" }));
    const rows = receipt.getAllByRole("term").map((t) => `${t.textContent}: ${t.nextElementSibling?.textContent}`);
    expect(rows.slice(0, 5)).toEqual([
      "Reference: Conversion 9",
      "You sold: 100.00 GBP",
      "You received: 117.01 EUR",
      "Rate: 1 GBP = 1.182000 EUR",
      "Fee (included in what you sold): 1.00 GBP",
    ]);
    // In the browser's zone, named (the movement's page says UTC).
    expect(rows[5]).toMatch(/^Time: 22 Nov 2026, \d\d:\d\d:05 \S+$/);
    expect(receipt.getByRole("link", { name: "See the movement" }).getAttribute("href")).toBe(
      "/account/transactions/31",
    );
    // Typing a new amount starts a new conversion: the receipt goes.
    fireEvent.change(screen.getByLabelText("Amount to sell"), { target: { value: "10.00" } });
    expect(screen.queryByRole("region", { name: "Conversion receipt" })).toBeNull();
  });

  test("a double-click on Confirm converts once: one request, its receipt, and no refusal beside it", async () => {
    const calls = fakeApi((call) => {
      if (call.path === "account/conversions/quote") return [200, { body: QUOTE }];
      if (call.path === "account/conversions") return [200, { body: CONVERSION }];
      return [200, { body: AFTER }];
    });
    await quoted();
    const confirm = screen.getByRole("button", { name: "Confirm" });
    fireEvent.click(confirm);
    fireEvent.click(confirm);
    await settle();
    expect(calls.filter((c) => c.path === "account/conversions")).toHaveLength(1);
    expect(screen.getByRole("region", { name: "Conversion receipt" })).toBeTruthy();
    // Told once.
    expect(notifications.snapshot().visible.filter((n) => n.color === "success")).toHaveLength(1);
    expect(screen.queryAllByRole("alert").map((alert) => alert.textContent)).toEqual([""]);
  });

  test("a quote refused as expired says so and offers a new one, by its code whatever the server's words", async () => {
    fakeApi((call) =>
      call.path === "account/conversions/quote"
        ? [200, { body: QUOTE }]
        : [409, { error: "Quote no longer valid (reworded).", message: "", code: "quote_expired" }]
    );
    await quoted();
    fireEvent.click(screen.getByRole("button", { name: "Confirm" }));
    await settle();
    expect(screen.getByRole("alert").textContent).toBe(QUOTE_EXPIRED);
    expect((screen.getByRole("button", { name: "Confirm" }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByRole("button", { name: "Get a new quote" })).toBeTruthy();
  });

  test("the keyboard follows what replaces the button pressed: the quote, the receipt, the amount again", async () => {
    fakeApi((call) => {
      if (call.path === "account/conversions/quote") return [200, { body: QUOTE }];
      if (call.path === "account/conversions") return [200, { body: CONVERSION }];
      return [200, { body: AFTER }];
    });
    render(<ConvertForm {...PROPS} />);
    await settle();
    const sellAmount = screen.getByLabelText("Amount to sell");
    fireEvent.change(sellAmount, { target: { value: "100.00" } });
    const getQuote = screen.getByRole("button", { name: "Get a quote" });
    getQuote.focus();
    fireEvent.click(getQuote);
    await settle();
    expect(document.activeElement).toBe(screen.getByRole("heading", { name: "Your quote" }));

    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(document.activeElement).toBe(sellAmount);
    fireEvent.click(screen.getByRole("button", { name: "Get a quote" }));
    await settle();
    // Asked from the amount (Enter), the focus stays there.
    expect(document.activeElement).toBe(sellAmount);

    const confirm = screen.getByRole("button", { name: "Confirm" });
    confirm.focus();
    fireEvent.click(confirm);
    await settle();
    const receipt = screen.getByRole("heading", { name: "Conversion receipt" });
    expect(document.activeElement).toBe(receipt);
    expect(receipt.tabIndex).toBe(-1);
    fireEvent.click(screen.getByRole("button", { name: "Convert again" }));
    expect(document.activeElement).toBe(screen.getByLabelText("Amount to sell"));
  });

  test("a refused Confirm takes the keyboard to why", async () => {
    fakeApi((call) =>
      call.path === "account/conversions/quote"
        ? [200, { body: QUOTE }]
        : [409, { error: "This quote was already used. Get a new quote.", message: "", code: "quote_used" }]
    );
    await quoted();
    const confirm = screen.getByRole("button", { name: "Confirm" });
    confirm.focus();
    fireEvent.click(confirm);
    await settle();
    expect(document.activeElement).toBe(screen.getByRole("alert"));
  });

  test("a quote refused as used already says the server's words, not 'expired', and offers a new one", async () => {
    fakeApi((call) =>
      call.path === "account/conversions/quote"
        ? [200, { body: QUOTE }]
        : [409, { error: "This quote was already used. Get a new quote.", message: "", code: "quote_used" }]
    );
    await quoted();
    fireEvent.click(screen.getByRole("button", { name: "Confirm" }));
    await settle();
    expect(screen.getByRole("alert").textContent).toBe("This quote was already used. Get a new quote.");
    expect(screen.getByRole("button", { name: "Get a new quote" })).toBeTruthy();
  });

  test("a 422 (funds short) shows the server's text", async () => {
    fakeApi((
      call,
    ) => (call.path === "account/conversions/quote"
      ? [200, { body: QUOTE }]
      : fail(422, "You have 50.00 GBP available: not enough for 100.00 GBP."))
    );
    await quoted();
    fireEvent.click(screen.getByRole("button", { name: "Confirm" }));
    await settle();
    expect(screen.getByRole("alert").textContent).toBe("You have 50.00 GBP available: not enough for 100.00 GBP.");
  });

  test("a refused quote request shows its text under the amount; an empty amount is not sent", async () => {
    const calls = fakeApi(() => [
      422,
      {
        error: "The amount must be more than the fee of 1.00 GBP.",
        message: "",
        fields: { amount: "The amount must be more than the fee of 1.00 GBP." },
      },
    ]);
    render(<ConvertForm {...PROPS} />);
    await settle();
    fireEvent.click(screen.getByRole("button", { name: "Get a quote" }));
    await settle();
    expect(calls).toEqual([]);
    expect(screen.getByText("Enter the amount to sell or the amount to receive.")).toBeTruthy();

    fireEvent.change(screen.getByLabelText("Amount to sell"), { target: { value: "0.50" } });
    fireEvent.click(screen.getByRole("button", { name: "Get a quote" }));
    await settle();
    expect(calls).toHaveLength(1);
    expect(screen.getByLabelText("Amount to sell").getAttribute("aria-invalid")).toBe("true");
    expect(screen.getAllByText("The amount must be more than the fee of 1.00 GBP.").length).toBeGreaterThan(0);
  });

  test("a quote held long after the page opened counts down from its own validity, never more", async () => {
    const seen: number[] = [];
    function Countdown({ deadline }: { deadline: number | null }) {
      const left = useSecondsLeft(deadline);
      seen.push(left);
      return createElement("p", null, left);
    }
    const view = render(createElement(Countdown, { deadline: null }));
    await settle(60_000);
    view.rerender(createElement(Countdown, { deadline: quoteDeadline(Date.now(), 3) }));
    await settle(1000);
    expect(Math.max(...seen)).toBe(3);
    expect(seen.at(-1)).toBe(2);
  });

  test("the countdown follows this browser's clock from the request, whatever the server's clock says", async () => {
    // expires_at is years away on the server's clock; the countdown is still the validity.
    fakeApi(() => [200, { body: { ...QUOTE, expires_at: "2000-01-01T00:00:00.000Z" } }]);
    await quoted({ ...PROPS, validitySeconds: 10 });
    expect(countdown().textContent).toBe("This quote is valid for 10 seconds.");
    await settle(10_000);
    expect(countdown().textContent).toBe("This quote has expired.");
  });

  test("the balances beside the form change at once, then are read again once the write's pause is over", async () => {
    let answer: [number, unknown] = [200, { body: [...AFTER, { currency: "USD", available: "5.00", held: "1.00" }] }];
    const calls = fakeApi((call) => {
      if (call.path === "account/conversions/quote") return [200, { body: QUOTE }];
      if (call.path === "account/conversions") return [200, { body: CONVERSION }];
      return answer;
    });
    await quoted();
    const beside = within(screen.getByRole("complementary", { name: "Your balances" }));
    const rows = () => beside.getAllByRole("row").map((r) => r.textContent);
    expect(rows()).toEqual(["CurrencyAvailableHeld", "EUR0.000.00", "GBP250.000.00"]);
    fireEvent.click(screen.getByRole("button", { name: "Confirm" }));
    await settle();
    // The write's pause (the request batch) is not over: the amounts converted, at once.
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      "POST account/conversions/quote",
      "POST account/conversions",
    ]);
    expect(rows()).toEqual(["CurrencyAvailableHeld", "EUR117.010.00", "GBP150.000.00"]);
    await settle(500);
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      "POST account/conversions/quote",
      "POST account/conversions",
      "GET account/balances",
    ]);
    // Then the server's word.
    expect(rows()).toEqual(["CurrencyAvailableHeld", "EUR117.010.00", "GBP150.000.00", "USD5.001.00"]);
    expect(beside.getByRole("status").textContent).toBe("Balances updated.");

    // A refresh that fails keeps the amounts and says so.
    answer = fail(503, "Service unavailable");
    fireEvent.change(screen.getByLabelText("Amount to sell"), { target: { value: "100.00" } });
    fireEvent.click(screen.getByRole("button", { name: "Get a quote" }));
    await settle();
    fireEvent.click(screen.getByRole("button", { name: "Confirm" }));
    await settle(10_000);
    expect(rows()).toContain("GBP50.000.00");
    expect(beside.getByRole("status").textContent).toBe(
      "The balances could not be updated. Reload the page to see them.",
    );
  });

  test("addAmount is exact on decimal strings, in the currency's digits", () => {
    expect(addAmount("GBP", "250.00", "100.00", -1)).toBe("150.00");
    expect(addAmount("GBP", "0.10", "0.2", 1)).toBe("0.30");
    expect(addAmount("JPY", "15000", "1", -1)).toBe("14999");
    expect(addAmount("BHD", "1.250", "2.750", 1)).toBe("4.000");
    // What it cannot read it leaves as it was: the server's balances follow anyway.
    expect(addAmount("GBP", "250.00", "1.234", -1)).toBe("250.00");
    expect(addAmount("XXX", "250.00", "1.00", -1)).toBe("250.00");
  });
});

const FUNDING: NonNullable<BalancesProps["funding"]> = {
  account_ref: "P1234567",
  bank: {
    name: "Example Bank plc",
    account_name: "Portal Client Money",
    iban: "GB29NWBK60161331926819",
    bic: "NWBKGB2L",
    sort_code: "60-16-13",
    account_number: "31926819",
    test: false,
  },
};

describe("Balances", () => {
  test("lists every currency with available and held, and how to add money", () => {
    render(
      <Balances
        accountRef="P1234567"
        balances={[{ currency: "GBP", available: "250.00", held: "10.00" }, {
          currency: "JPY",
          available: "15000",
          held: "0",
        }]}
        funding={FUNDING}
      />,
    );
    const rows = screen.getAllByRole("row").map((r) => r.textContent);
    expect(rows).toEqual(["CurrencyAvailableHeld", "GBP250.0010.00", "JPY150000"]);
    expect(screen.getByRole("heading", { name: "How to add money" })).toBeTruthy();
    expect(screen.getByText("P1234567")).toBeTruthy();
    expect(screen.getByText("GB29 NWBK 6016 1331 9268 19")).toBeTruthy();
    expect(screen.getByText("60-16-13")).toBeTruthy();
  });

  test("compact: only the table", () => {
    render(
      <Balances
        accountRef="P1234567"
        balances={[{ currency: "GBP", available: "1.00", held: "0.00" }]}
        funding={FUNDING}
        compact
      />,
    );
    expect(screen.queryByRole("heading", { name: "How to add money" })).toBeNull();
  });

  test("with no money yet: says so and shows how to fund, even compact", () => {
    render(<Balances accountRef="P1234567" balances={[]} funding={FUNDING} compact />);
    expect(screen.getByText("You have no money in your account yet")).toBeTruthy();
    expect(screen.getByRole("heading", { name: "How to add money" })).toBeTruthy();
    expect(screen.queryByRole("table")).toBeNull();
  });

  test("a conversion in the convert form on the same page refreshes these balances too: one query", async () => {
    const calls = fakeApi((call) => {
      if (call.path === "account/conversions/quote") return [200, { body: QUOTE }];
      if (call.path === "account/conversions") return [200, { body: CONVERSION }];
      return [200, { body: [...AFTER, { currency: "USD", available: "5.00", held: "0.00" }] }];
    });
    // Two islands of one page, each hydrated as its own root, sharing the page's query client.
    render(<Balances accountRef="P1234567" balances={PROPS.balances} funding={FUNDING} compact />);
    const balances = within(screen.getByRole("table", { name: "Your balances" }));
    render(<ConvertForm {...PROPS} />);
    await settle();
    expect(calls).toEqual([]); // both start from the server's balances
    fireEvent.change(screen.getByLabelText("Amount to sell"), { target: { value: "100.00" } });
    fireEvent.click(screen.getByRole("button", { name: "Get a quote" }));
    await settle();
    fireEvent.click(screen.getByRole("button", { name: "Confirm" }));
    await settle();
    // At once, by the amounts converted, in both.
    expect(balances.getAllByRole("row").map((r) => r.textContent)).toEqual([
      "CurrencyAvailableHeld",
      "EUR117.010.00",
      "GBP150.000.00",
    ]);
    await settle(500);
    // Then read once from the server, for both.
    expect(calls.filter((c) => c.method === "GET").map((c) => c.path)).toEqual(["account/balances"]);
    expect(balances.getAllByRole("row").map((r) => r.textContent)).toEqual([
      "CurrencyAvailableHeld",
      "EUR117.010.00",
      "GBP150.000.00",
      "USD5.000.00",
    ]);
    expect(screen.getAllByText("Balances updated.")).toHaveLength(2);
  });

  test("the server HTML of both islands hydrates without a mismatch", async () => {
    fakeApi(() => [200, { body: [] }]);
    const root = document.createElement("div");
    const tree = () =>
      createElement(
        "div",
        null,
        createElement(Balances, {
          accountRef: "P1234567",
          balances: [{ currency: "GBP", available: "1.00", held: "0.00" }],
          funding: FUNDING,
        }),
        createElement(ConvertForm, PROPS),
      );
    root.innerHTML = renderToString(tree());
    document.body.append(root);
    act(() => {
      hydrateRoot(root, tree());
    });
    await settle();
    expect((root.querySelector("#convert-sell") as HTMLSelectElement).value).toBe("GBP");
    root.remove();
  });

  test("the copy button copies the reference", async () => {
    const writeText = vi.fn(() => Promise.resolve());
    vi.stubGlobal("navigator", { ...navigator, clipboard: { writeText } });
    render(<Balances accountRef="P1234567" balances={[]} funding={FUNDING} />);
    await settle();
    fireEvent.click(screen.getByRole("button", { name: "Copy the reference P1234567" }));
    await settle();
    expect(writeText).toHaveBeenCalledWith("P1234567");
    expect(screen.getByText("Reference copied.")).toBeTruthy();
  });

  test("every bank detail has a copy button; the IBAN shows in groups of four and copies without spaces", async () => {
    const writeText = vi.fn(() => Promise.resolve());
    vi.stubGlobal("navigator", { ...navigator, clipboard: { writeText } });
    render(<Balances accountRef="P1234567" balances={[]} funding={FUNDING} />);
    await settle();
    for (const what of ["the bank's name", "the account name", "the IBAN", "the BIC", "the sort code"]) {
      expect(screen.getByRole("button", { name: `Copy ${what}` })).toBeTruthy();
    }
    expect(screen.getByText("GB29 NWBK 6016 1331 9268 19")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Copy the IBAN" }));
    await settle();
    expect(writeText).toHaveBeenCalledWith("GB29NWBK60161331926819");
    expect(screen.getByText("IBAN copied.")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Copy the account number" }));
    await settle();
    expect(writeText).toHaveBeenLastCalledWith("31926819");
  });

  test("the built-in test details are marked as such, in words for the customer and without settings' names", () => {
    const { container } = render(
      <Balances
        accountRef="P1234567"
        balances={[]}
        funding={{ ...FUNDING, bank: { ...FUNDING.bank, test: true } }}
      />,
    );
    expect(screen.getByText("These are test bank details.")).toBeTruthy();
    expect(container.textContent).not.toMatch(/COMPANY_BANK|production|set /i);
    cleanup();
    render(<Balances accountRef="P1234567" balances={[]} funding={FUNDING} />);
    expect(screen.queryByText("These are test bank details.")).toBeNull();
  });
});
