// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import RateAlerts from "../../islands/RateAlerts.tsx";
import type { RateAlert, RateAlertList, Rates } from "../../islands/ratealerts/calls.ts";
import { notifications } from "../../islands/lib/notification-store.ts";
import { failure, fakeApi, resetIslands } from "../helpers/fake-api.ts";
import { BATCH_RESET_PAUSE_MS } from "../../lib/constants.ts";

/**
 * The rate alerts island (/account/ratealerts): the form with the pair's rate now beside it, the
 * list with each alert's rate now and state, and the writes, each followed by the list read again.
 * The server is the shared fake; the integration tests hold the real one to the contract.
 */

const settle = (ms = 0) => act(() => vi.advanceTimersByTimeAsync(ms));
const titles = () => notifications.snapshot().visible.map((n) => n.title);

const CURRENCIES = [
  { code: "EUR", name: "Euro" },
  { code: "GBP", name: "Pound Sterling" },
  { code: "USD", name: "US Dollar" },
];

const GBP_RATES: Rates = {
  base: "GBP",
  as_of: "2026-03-02",
  source: "admin",
  indicative: false,
  rates: { GBP: "1.000000", EUR: "1.137656", USD: "1.313993" },
};
const EUR_RATES: Rates = {
  base: "EUR",
  as_of: "2026-03-02",
  source: "admin",
  indicative: false,
  rates: { EUR: "1.000000", GBP: "0.879000", USD: "1.155000" },
};

const WAITING: RateAlert = {
  id: 3,
  sell_currency: "GBP",
  buy_currency: "EUR",
  target_rate: "1.2",
  direction: "above",
  paused: false,
  created_at: "2026-03-02T09:00:00.000Z",
  current_rate: "1.137656",
  fired_at: null,
  fired_rate: null,
};
const FIRED: RateAlert = {
  ...WAITING,
  id: 2,
  target_rate: "1.1",
  fired_at: "2026-03-01T16:05:00.000Z",
  fired_rate: "1.100406",
};
const LIST: RateAlertList = { items: [WAITING, FIRED], limit: 20, rates_as_of: "2026-03-02" };

function island(props: Partial<Parameters<typeof RateAlerts>[0]> = {}) {
  return render(
    <RateAlerts
      accountRef="P12345678"
      alerts={LIST}
      rates={GBP_RATES}
      currencies={CURRENCIES}
      canManage
      {...props}
    />,
  );
}

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

describe("the rate alerts page", () => {
  test("shows each alert with the rate now, watching or when it fired; the form's pair with its rate now", async () => {
    const calls = fakeApi({
      "GET rates": (call) => [200, { body: call.query.base === "EUR" ? EUR_RATES : GBP_RATES }],
    });
    island();
    const items = within(screen.getByRole("list", { name: "Rate alerts" })).getAllByRole("listitem");
    expect(items.map((li) => li.querySelector("p")?.textContent)).toEqual([
      "1 GBP = 1.2 EUR, at or above",
      "1 GBP = 1.1 EUR, at or above",
    ]);
    expect(items[0].textContent).toContain("Now: 1 GBP = 1.137656 EUR · Watching");
    expect(items[1].textContent).toContain("Fired 1 Mar 2026, 16:05 UTC at 1 GBP = 1.100406 EUR");
    // A fired alert can be deleted, not paused.
    expect(within(items[1]).queryByRole("button", { name: /^Pause/ })).toBeNull();
    const now = () => screen.getAllByRole("status").find((s) => s.textContent?.startsWith("Now:"))?.textContent;
    expect(now()).toBe("Now: 1 GBP = 1.137656 EURMid-market rate of 2026-03-02");

    fireEvent.change(screen.getByLabelText("1 unit of"), { target: { value: "EUR" } });
    fireEvent.change(screen.getByLabelText("In"), { target: { value: "USD" } });
    await settle();
    expect(calls.map((c) => `${c.method} ${c.path}?base=${c.query.base}`)).toContain("GET rates?base=EUR");
    expect(now()).toBe("Now: 1 EUR = 1.155000 USDMid-market rate of 2026-03-02");
  });

  test("sets an alert and reads the list again; a refused target shows beside its field", async () => {
    let created = false;
    const calls = fakeApi({
      "GET rates": [200, { body: GBP_RATES }],
      "POST account/ratealerts": (call) => {
        const body = call.body as { target_rate: string };
        if (body.target_rate === "1.1") {
          return failure(422, "The rate is already 1 GBP = 1.137656 EUR, at or above 1.1.", {
            fields: { target_rate: "The rate is already 1 GBP = 1.137656 EUR, at or above 1.1." },
          });
        }
        created = true;
        return [201, { body: { ...WAITING, id: 4, target_rate: "1.25" } }];
      },
      "GET account/ratealerts": () => [
        200,
        {
          body: { ...LIST, items: created ? [{ ...WAITING, id: 4, target_rate: "1.25" }, ...LIST.items] : LIST.items },
        },
      ],
    });
    island();
    const target = screen.getByLabelText("Target rate");
    fireEvent.change(target, { target: { value: "1.1" } });
    fireEvent.click(screen.getByRole("button", { name: "Set alert" }));
    await settle();
    expect(target.getAttribute("aria-invalid")).toBe("true");
    expect(screen.getByText("The rate is already 1 GBP = 1.137656 EUR, at or above 1.1.")).toBeTruthy();

    fireEvent.change(target, { target: { value: "1.25" } });
    fireEvent.click(screen.getByRole("button", { name: "Set alert" }));
    await settle();
    // Writes refresh what they change once the batch of writes pauses.
    await settle(BATCH_RESET_PAUSE_MS + 10);
    const posts = calls.filter((c) => c.method === "POST");
    expect(posts.at(-1)?.body).toEqual({
      sell_currency: "GBP",
      buy_currency: "EUR",
      target_rate: "1.25",
      direction: "above",
    });
    expect(titles()).toContain("Alert set: 1 GBP = 1.25 EUR, at or above");
    expect(calls.map((c) => `${c.method} ${c.path}`).at(-1), "the list reloaded").toBe("GET account/ratealerts");
    expect((screen.getByLabelText("Target rate") as HTMLInputElement).value, "the form emptied").toBe("");
  });

  test("pauses an alert with PUT {paused: true} and reads the list again", async () => {
    const calls = fakeApi({
      "GET rates": [200, { body: GBP_RATES }],
      "PUT account/ratealerts/3": [200, { body: { ...WAITING, paused: true } }],
      "GET account/ratealerts": [200, { body: { ...LIST, items: [{ ...WAITING, paused: true }, FIRED] } }],
    });
    island();
    fireEvent.click(screen.getByRole("button", { name: "Pause GBP to EUR at or above 1.2" }));
    await settle();
    // Writes refresh what they change once the batch of writes pauses.
    await settle(BATCH_RESET_PAUSE_MS + 10);
    expect(calls.find((c) => c.method === "PUT")?.body).toEqual({ paused: true });
    expect(calls.map((c) => `${c.method} ${c.path}`).at(-1), "the list reloaded").toBe("GET account/ratealerts");
    expect(titles()).toContain("Paused: GBP to EUR at or above 1.2");
  });

  test("a viewer sees the alerts, with no form and no buttons", () => {
    fakeApi({ "GET rates": [200, { body: GBP_RATES }] });
    island({ canManage: false });
    expect(screen.queryByRole("form", { name: "New rate alert" })).toBeNull();
    expect(screen.queryAllByRole("button")).toEqual([]);
    expect(within(screen.getByRole("list", { name: "Rate alerts" })).getAllByRole("listitem")).toHaveLength(2);
  });

  test("at 20 alerts the form gives way to the limit", () => {
    fakeApi({ "GET rates": [200, { body: GBP_RATES }] });
    const full = { ...LIST, items: Array.from({ length: 20 }, (_, i) => ({ ...WAITING, id: i + 10 })) };
    island({ alerts: full });
    expect(screen.queryByRole("form", { name: "New rate alert" })).toBeNull();
    expect(screen.getByText("An account keeps at most 20 rate alerts: delete one to set another.")).toBeTruthy();
  });
});
