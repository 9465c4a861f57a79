// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { createElement, type FunctionComponent } from "react";
import { hydrateRoot } from "react-dom/client";
import { renderToString } from "react-dom/server";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import ConsolePricingPlans from "../../islands/ConsolePricingPlans.tsx";
import ConsoleRates from "../../islands/ConsoleRates.tsx";
import ConsoleReceipts from "../../islands/ConsoleReceipts.tsx";
import ConsoleUserFees from "../../islands/ConsoleUserFees.tsx";
import type { PricingPlan, Rates, Receipt } from "../../islands/console/calls.ts";
import { tiersSummary } from "../../islands/console/plan-rows.tsx";
import { statusText } from "../../islands/console/receipt-rows.tsx";
import { notifications } from "../../islands/lib/notification-store.ts";
import { IDEMPOTENCY_HEADER } from "../../lib/api-types.ts";
import { fakeApi, resetIslands } from "../helpers/fake-api.ts";

const settle = (ms = 0) => act(() => vi.advanceTimersByTimeAsync(ms));
const type = (label: string | RegExp, value: string) =>
  fireEvent.change(screen.getByLabelText(label), { target: { value } });
const titles = () => notifications.snapshot().visible.map((n) => n.title);

const CURRENCIES = [
  { code: "EUR", name: "Euro" },
  { code: "GBP", name: "Pound Sterling" },
  { code: "USD", name: "US Dollar" },
];

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

/** The server's today, which the rates form starts from: rates entered now are today's. */
const TODAY = "2026-11-22";

describe("ConsoleRates", () => {
  const RATES: Rates = {
    base: "GBP",
    as_of: "2026-11-20",
    source: "indicative",
    indicative: true,
    rates: { EUR: "1.171200", GBP: "1", USD: "1.270000" },
  };

  test("shows each rate against the base, saves with PUT console/rates and an Idempotency-Key", async () => {
    const saved = {
      ...RATES,
      source: "admin",
      indicative: false,
      as_of: "2026-11-21",
      rates: { EUR: "1.180000", GBP: "1", USD: "1.270000" },
    };
    const calls = fakeApi(() => [200, { body: saved }]);
    render(<ConsoleRates rates={RATES} currencies={CURRENCIES} today={TODAY} />);
    await settle();
    expect((screen.getByLabelText(/^EUR/) as HTMLInputElement).value).toBe("1.171200");
    // The table in use is of 2026-11-20; what is entered now is dated today unless changed.
    expect((screen.getByLabelText("Rates as of") as HTMLInputElement).value).toBe(TODAY);
    expect(screen.queryByLabelText(/^GBP/)).toBeNull(); // the base is 1, not editable
    expect(screen.getByText("Rate for 1 GBP")).toBeTruthy();

    type(/^EUR/, "1.18");
    type("Rates as of", "2026-11-21");
    fireEvent.click(screen.getByRole("button", { name: "Save rates" }));
    await settle();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      method: "PUT",
      path: "console/rates",
      body: { base: "GBP", as_of: "2026-11-21", rates: { EUR: "1.18", USD: "1.270000" }, confirm_changes: [] },
    });
    expect(calls[0].headers.get(IDEMPOTENCY_HEADER)).toBeTruthy();
    expect((screen.getByLabelText(/^EUR/) as HTMLInputElement).value).toBe("1.180000");
    expect(screen.getByText("In use: rates as of 2026-11-21, source admin")).toBeTruthy();
    expect(titles()).toEqual(["Rates saved"]);
  });

  test("says 'indicative' once: by the source, or by a mark after a space when the source is another", async () => {
    let rates = RATES;
    fakeApi(() => [200, { body: rates }]);
    const { unmount } = render(<ConsoleRates rates={RATES} currencies={CURRENCIES} today={TODAY} />);
    await settle();
    expect(screen.getByText(/^In use:/).textContent).toBe("In use: rates as of 2026-11-20, source indicative");
    unmount();
    resetIslands();
    rates = { ...RATES, source: "ecb" };
    render(<ConsoleRates rates={rates} currencies={CURRENCIES} today={TODAY} />);
    await settle();
    expect(screen.getByText(/^In use:/).textContent).toBe("In use: rates as of 2026-11-20, source ecb indicative");
  });

  test("a 422 shows the problem under its rate", async () => {
    fakeApi(() => [422, {
      error: "The rate of USD must be a positive decimal.",
      message: "Unprocessable Entity",
      fields: { "rates.USD": "The rate of USD must be a positive decimal." },
    }]);
    render(<ConsoleRates rates={RATES} currencies={CURRENCIES} today={TODAY} />);
    await settle();
    type(/^USD/, "-1");
    fireEvent.click(screen.getByRole("button", { name: "Save rates" }));
    await settle();
    const usd = screen.getByLabelText(/^USD/);
    expect(usd.getAttribute("aria-invalid")).toBe("true");
    const describedBy = usd.getAttribute("aria-describedby")!;
    expect(document.getElementById(describedBy)!.textContent).toBe("The rate of USD must be a positive decimal.");
    expect(screen.getByLabelText(/^EUR/).getAttribute("aria-invalid")).toBeNull();
  });
});

describe("ConsoleRates: large moves (docs/decisions/025)", () => {
  const RATES: Rates = {
    base: "GBP",
    as_of: "2026-11-20",
    source: "admin",
    indicative: false,
    rates: { EUR: "1.171200", GBP: "1", USD: "1.270000" },
  };
  const MOVE = "GBP/EUR moves by 25.0 % (1.171200 → 1.464000): confirm this change.";

  test("a 409 lists each move and asks to confirm; confirming sends the same rates with those currencies", async () => {
    const saved = { ...RATES, rates: { ...RATES.rates, EUR: "1.464000" } };
    const calls = fakeApi((call) =>
      (call.body as { confirm_changes: string[] }).confirm_changes.length === 0
        ? [409, {
          error: `${MOVE.replace(": confirm this change.", "")}: confirm to apply.`,
          message: "Conflict",
          fields: { "rates.EUR": MOVE },
        }]
        : [200, { body: saved }]
    );
    render(<ConsoleRates rates={RATES} currencies={CURRENCIES} today={TODAY} />);
    await settle();
    type(/^EUR/, "1.464");
    fireEvent.click(screen.getByRole("button", { name: "Save rates" }));
    await settle();
    const alert = screen.getByText("Large changes: confirm before they are used").closest<HTMLElement>("[role=alert]")!;
    expect(within(alert).getByText(MOVE)).toBeTruthy();
    // The move is also said under its rate.
    const eur = screen.getByLabelText(/^EUR/);
    expect(document.getElementById(eur.getAttribute("aria-describedby")!)!.textContent).toBe(MOVE);

    fireEvent.click(within(alert).getByRole("button", { name: "Confirm EUR and save" }));
    await settle();
    expect(calls).toHaveLength(2);
    expect(calls[1].body).toEqual({
      base: "GBP",
      as_of: TODAY,
      rates: { EUR: "1.464", USD: "1.270000" },
      confirm_changes: ["EUR"],
    });
    expect(screen.queryByText("Large changes: confirm before they are used")).toBeNull();
    expect(titles()).toEqual(["Rates saved"]);
  });

  test("changing a rate after a 409 drops the confirmation: the next save asks again", async () => {
    const calls = fakeApi(
      () => [409, { error: "confirm to apply.", message: "Conflict", fields: { "rates.EUR": MOVE } }],
    );
    render(<ConsoleRates rates={RATES} currencies={CURRENCIES} today={TODAY} />);
    await settle();
    type(/^EUR/, "1.464");
    fireEvent.click(screen.getByRole("button", { name: "Save rates" }));
    await settle();
    expect(screen.getByRole("button", { name: "Confirm EUR and save" })).toBeTruthy();
    type(/^EUR/, "1.5");
    expect(screen.queryByRole("button", { name: "Confirm EUR and save" })).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Save rates" }));
    await settle();
    expect((calls[1].body as { confirm_changes: string[] }).confirm_changes).toEqual([]);
  });
});

const TRAIL = {
  recorded_by: { id: 1, email: "admin@example.com" },
  approved_by: null,
  duplicate_of: null,
  closed_by: null,
  reason: null,
  returns_payment_id: null,
  returns_payment_status: null,
};

describe("ConsoleReceipts", () => {
  const UNMATCHED: Receipt = {
    id: 1,
    amount: "50.00",
    currency: "EUR",
    payer_name: "J Smith",
    reference: "INVOICE 7",
    received_at: "2026-11-19",
    status: "unmatched",
    account_ref: null,
    recorded_by: { id: 1, email: "admin@example.com" },
    approved_by: null,
    duplicate_of: null,
    closed_by: null,
    reason: null,
    returns_payment_id: null,
    returns_payment_status: null,
  };
  const MATCHED: Receipt = {
    id: 2,
    amount: "500.00",
    currency: "GBP",
    payer_name: "Ada Lovelace",
    reference: "P1234567",
    received_at: "2026-11-20",
    status: "matched",
    account_ref: "P1234567",
    recorded_by: { id: 1, email: "admin@example.com" },
    approved_by: null,
    duplicate_of: null,
    closed_by: null,
    reason: null,
    returns_payment_id: null,
    returns_payment_status: null,
  };

  test("records a receipt with POST console/receipts; the new row shows its status", async () => {
    const calls = fakeApi((
      call,
    ) => [200, { body: { ...TRAIL, ...(call.body as object), id: 3, status: "matched", account_ref: "P1234567" } }]);
    render(<ConsoleReceipts receipts={[UNMATCHED]} currencies={CURRENCIES} />);
    await settle();
    type("Amount", "250.00");
    type("Currency", "GBP");
    type("Payer's name", "Ada Lovelace");
    type("Reference on the payment", "P1234567");
    type("Received on", "2026-11-21");
    fireEvent.click(screen.getByRole("button", { name: "Record the receipt" }));
    await settle();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      method: "POST",
      path: "console/receipts",
      body: {
        amount: "250.00",
        currency: "GBP",
        payer_name: "Ada Lovelace",
        reference: "P1234567",
        received_at: "2026-11-21",
      },
    });
    expect(calls[0].headers.get(IDEMPOTENCY_HEADER)).toBeTruthy();
    const row = screen.getByRole("row", { name: /Ada Lovelace/ });
    expect(within(row).getByText("Credited to P1234567")).toBeTruthy();
    expect(within(row).getByText("250.00 GBP")).toBeTruthy();
    expect((screen.getByLabelText("Amount") as HTMLInputElement).value).toBe("");
    expect(titles()).toEqual(["Receipt of 250.00 GBP recorded"]);
  });

  test("an unmatched receipt shows as Unmatched; a 422 shows under its field", async () => {
    let n = 0;
    fakeApi((call) => {
      n += 1;
      return n === 1
        ? [422, { error: "Enter the payer's name.", message: "", fields: { payer_name: "Enter the payer's name." } }]
        : [200, { body: { ...TRAIL, ...(call.body as object), id: 4, status: "unmatched", account_ref: null } }];
    });
    render(<ConsoleReceipts receipts={[]} currencies={CURRENCIES} />);
    await settle();
    type("Amount", "10.00");
    type("Reference on the payment", "HELLO");
    fireEvent.click(screen.getByRole("button", { name: "Record the receipt" }));
    await settle();
    const payer = screen.getByLabelText("Payer's name");
    expect(payer.getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById(payer.getAttribute("aria-describedby")!)!.textContent).toBe(
      "Enter the payer's name.",
    );

    type("Payer's name", "Someone");
    fireEvent.click(screen.getByRole("button", { name: "Record the receipt" }));
    await settle();
    expect(within(screen.getByRole("row", { name: /Someone/ })).getByText("Unmatched")).toBeTruthy();
  });

  test("filters the receipts waiting for a person and allocates one with POST console/receipts/{id}/allocate", async () => {
    const calls = fakeApi(() => [200, { body: { ...UNMATCHED, status: "allocated", account_ref: "P7654321" } }]);
    render(<ConsoleReceipts receipts={[UNMATCHED, MATCHED]} currencies={CURRENCIES} />);
    await settle();
    expect(screen.getAllByRole("row")).toHaveLength(3);
    fireEvent.click(screen.getByRole("button", { name: "Waiting for a person (1)" }));
    expect(screen.getAllByRole("row")).toHaveLength(2);
    expect(screen.queryByText("Ada Lovelace")).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "All" }));
    expect(screen.getAllByRole("row")).toHaveLength(3);

    fireEvent.click(screen.getByRole("button", { name: "Allocate 50.00 EUR from J Smith" }));
    const form = within(screen.getByRole("form", { name: "Allocate the receipt from J Smith" }));
    fireEvent.change(form.getByLabelText("Account reference"), { target: { value: " P7654321 " } });
    fireEvent.click(form.getByRole("button", { name: "Allocate and credit" }));
    await settle();
    expect(calls[0]).toMatchObject({
      method: "POST",
      path: "console/receipts/1/allocate",
      body: { account_ref: "P7654321" },
    });
    expect(calls[0].headers.get(IDEMPOTENCY_HEADER)).toBeTruthy();
    expect(within(screen.getByRole("row", { name: /J Smith/ })).getByText("Allocated to P7654321")).toBeTruthy();
    expect(screen.queryByRole("button", { name: /^Allocate / })).toBeNull();
  });

  test("an allocation refused shows the server's text", async () => {
    fakeApi(() => [404, { error: "No account has the reference P0000000.", message: "Not Found" }]);
    render(<ConsoleReceipts receipts={[UNMATCHED]} currencies={CURRENCIES} />);
    await settle();
    fireEvent.click(screen.getByRole("button", { name: "Allocate 50.00 EUR from J Smith" }));
    fireEvent.change(screen.getByLabelText("Account reference"), { target: { value: "P0000000" } });
    fireEvent.click(screen.getByRole("button", { name: "Allocate and credit" }));
    await settle();
    expect(screen.getByText("No account has the reference P0000000.")).toBeTruthy();
  });

  test("a receipt awaiting approval is approved with POST console/receipts/{id}/approve; a refusal says why", async () => {
    const waiting: Receipt = { ...MATCHED, id: 5, amount: "60000.00", status: "awaiting_approval" };
    let n = 0;
    const calls = fakeApi(() => {
      n += 1;
      return n === 1
        ? [403, { error: "You recorded this receipt: another administrator must approve it.", message: "Forbidden" }]
        : [200, {
          body: { ...waiting, status: "matched", approved_by: { id: 2, email: "checker@example.com" } },
        }];
    });
    render(<ConsoleReceipts receipts={[waiting]} currencies={CURRENCIES} />);
    await settle();
    const row = within(screen.getByRole("row", { name: /Ada Lovelace/ }));
    expect(row.getByText("Awaiting approval (P1234567)")).toBeTruthy();
    fireEvent.click(row.getByRole("button", { name: "Approve 60000.00 GBP from Ada Lovelace" }));
    await settle();
    expect(calls[0]).toMatchObject({ method: "POST", path: "console/receipts/5/approve" });
    expect(calls[0].headers.get(IDEMPOTENCY_HEADER)).toBeTruthy();
    expect(notifications.snapshot().visible.map((v) => v.description)).toContain(
      "You recorded this receipt: another administrator must approve it.",
    );
    fireEvent.click(row.getByRole("button", { name: "Approve 60000.00 GBP from Ada Lovelace" }));
    await settle();
    expect(row.getByText("Credited to P1234567")).toBeTruthy();
    expect(row.getByText(/Approved by checker@example.com/)).toBeTruthy();
  });

  test("a credited receipt is reversed with a reason: POST console/receipts/{id}/reverse", async () => {
    const calls = fakeApi((call) => [200, {
      body: {
        ...MATCHED,
        status: "reversed",
        closed_by: TRAIL.recorded_by,
        reason: (call.body as { reason: string }).reason,
      },
    }]);
    render(<ConsoleReceipts receipts={[MATCHED]} currencies={CURRENCIES} />);
    await settle();
    fireEvent.click(screen.getByRole("button", { name: "Reverse 500.00 GBP from Ada Lovelace" }));
    const form = within(screen.getByRole("form", { name: "Reverse the receipt from Ada Lovelace" }));
    fireEvent.click(form.getByRole("button", { name: "Reverse the credit" }));
    await settle();
    expect(calls).toHaveLength(0);
    expect(form.getByRole("alert").textContent).toBe("Give the reason: it is kept with the receipt.");
    fireEvent.change(form.getByLabelText("Reason"), { target: { value: "Wrong customer" } });
    fireEvent.click(form.getByRole("button", { name: "Reverse the credit" }));
    await settle();
    expect(calls[0]).toMatchObject({
      method: "POST",
      path: "console/receipts/2/reverse",
      body: { reason: "Wrong customer" },
    });
    const row = within(screen.getByRole("row", { name: /Ada Lovelace/ }));
    expect(row.getByText("Reversed")).toBeTruthy();
    expect(row.getByText(/admin@example.com: Wrong customer/)).toBeTruthy();
    expect(screen.queryByRole("button", { name: /^Reverse / })).toBeNull();
  });

  test("a payout's return offers no Allocate or Reverse: it says which payment to fail on the payout desk", async () => {
    const returned: Receipt = { ...UNMATCHED, id: 9, payer_name: "Elodie Martin", returns_payment_id: 42 };
    const settled: Receipt = { ...returned, id: 10, status: "reversed" };
    fakeApi(() => [500]);
    render(<ConsoleReceipts receipts={[returned, settled]} currencies={CURRENCIES} />);
    await settle();
    expect(screen.getByText("Return of payment 42: fail it on the payout desk")).toBeTruthy();
    expect(screen.getByText("Return of payment 42: settled")).toBeTruthy();
    expect(screen.queryByRole("button", { name: /^Allocate / })).toBeNull();
    expect(screen.queryByRole("button", { name: /^Reverse / })).toBeNull();
  });

  test("a return of a payment marked arrived says to ask the bank: the desk cannot fail it", async () => {
    const arrived: Receipt = {
      ...UNMATCHED,
      id: 11,
      payer_name: "Elodie Martin",
      returns_payment_id: 43,
      returns_payment_status: "completed",
    };
    fakeApi(() => [500]);
    render(<ConsoleReceipts receipts={[arrived]} currencies={CURRENCIES} />);
    await settle();
    const row = within(screen.getByRole("row", { name: /Elodie Martin/ }));
    expect(row.getByText("Return of payment 43, marked arrived: ask the bank")).toBeTruthy();
    expect(
      row.getByText(
        /Payment 43 was marked arrived, so the payout desk cannot fail it and this cannot be allocated: ask the bank whether the payment arrived or came back/,
      ),
    ).toBeTruthy();
    expect(screen.queryByRole("button", { name: /^Allocate / })).toBeNull();
  });

  test("status texts", () => {
    expect(statusText({ status: "matched", account_ref: "P1" })).toBe("Credited to P1");
    expect(statusText({ status: "unmatched", account_ref: null })).toBe("Unmatched");
    expect(statusText({ status: "allocated", account_ref: "P2" })).toBe("Allocated to P2");
    expect(statusText({ status: "held_duplicate", account_ref: "P3" })).toBe("Held as a likely duplicate (P3)");
    expect(statusText({ status: "declined", account_ref: "P3" })).toBe("Declined");
  });
});

/** Lets the plan editor's module load (on first use) and the editor render. */
async function openedEditor() {
  await act(async () => {
    await import("../../islands/console/plan-editor.tsx");
  });
  await settle();
}

describe("ConsolePricingPlans", () => {
  const fees = {
    EUR: { regular: "1.00", priority: "10.00" },
    GBP: { regular: "1.00", priority: "9.00" },
    USD: { regular: "2.00", priority: "12.00" },
  };
  const DEFAULT: PricingPlan = {
    id: 1,
    name: "Standard",
    is_default: true,
    tier_currency: "GBP",
    tiers: [{ up_to: "10000.00", bps: 50 }, { up_to: null, bps: 30 }],
    fees,
    accounts: [],
  };
  const VIP: PricingPlan = {
    ...DEFAULT,
    id: 2,
    name: "VIP",
    is_default: false,
    tiers: [{ up_to: null, bps: 10 }],
    accounts: ["P1234567"],
  };

  test("lists the plans with their tiers", () => {
    fakeApi(() => [200, { body: null }]);
    render(<ConsolePricingPlans plans={[DEFAULT, VIP]} currencies={CURRENCIES} />);
    expect(tiersSummary(DEFAULT)).toBe("0.50% up to 10000.00 GBP, then 0.30%");
    expect(screen.getByText("0.50% up to 10000.00 GBP, then 0.30%")).toBeTruthy();
    expect(screen.getByText("P1234567")).toBeTruthy();
  });

  test("edits a plan: add a tier, change a fee, PUT console/pricingplans/{id}", async () => {
    const calls = fakeApi((call) => [200, { body: { ...DEFAULT, ...(call.body as object), accounts: [] } }]);
    render(<ConsolePricingPlans plans={[DEFAULT, VIP]} currencies={CURRENCIES} />);
    await settle();
    fireEvent.click(screen.getByRole("button", { name: "Edit Standard" }));
    // The editor is loaded when it is first opened.
    await openedEditor();
    expect(document.activeElement).toBe(screen.getByRole("heading", { name: "Edit Standard" }));
    fireEvent.click(screen.getByRole("button", { name: "Add a tier" }));
    type("Tier 2 up to", "50000.00");
    type("Tier 3 markup in basis points", "20");
    type("Regular fee in EUR", "1.50");
    fireEvent.click(screen.getByRole("button", { name: "Save the plan" }));
    await settle();
    expect(calls[0]).toMatchObject({ method: "PUT", path: "console/pricingplans/1" });
    expect(calls[0].body).toEqual({
      id: 1,
      is_default: true,
      name: "Standard",
      tier_currency: "GBP",
      tiers: [{ up_to: "10000.00", bps: 50 }, { up_to: "50000.00", bps: 30 }, { up_to: null, bps: 20 }],
      fees: { ...fees, EUR: { regular: "1.50", priority: "10.00" } },
    });
    expect(screen.getByText("0.50% up to 10000.00 GBP, then 0.30% up to 50000.00 GBP, then 0.20%")).toBeTruthy();
    expect(titles()).toEqual(["Plan saved"]);
  });

  test("a new plan starts from the default and is POSTed; a 422 shows under the tier", async () => {
    let n = 0;
    const calls = fakeApi((call) => {
      n += 1;
      return n === 1
        ? [422, {
          error: "Tier 1's bps must be a whole number from 0 to 1000.",
          message: "",
          fields: { "tiers.0.bps": "Tier 1's bps must be a whole number from 0 to 1000." },
        }]
        : [200, { body: { ...(call.body as object), id: 3, is_default: false } }];
    });
    render(<ConsolePricingPlans plans={[DEFAULT]} currencies={CURRENCIES} />);
    await settle();
    fireEvent.click(screen.getByRole("button", { name: "New plan" }));
    await openedEditor();
    expect((screen.getByLabelText("Tier 1 up to") as HTMLInputElement).value).toBe("10000.00");
    type("Name", "Partners");
    type("Tier 1 markup in basis points", "5000");
    fireEvent.click(screen.getByRole("button", { name: "Create the plan" }));
    await settle();
    expect(calls[0]).toMatchObject({ method: "POST", path: "console/pricingplans" });
    expect(calls[0].body).toMatchObject({
      name: "Partners",
      tier_currency: "GBP",
      tiers: [{ up_to: "10000.00", bps: 5000 }, { up_to: null, bps: 30 }],
    });
    const bps = screen.getByLabelText("Tier 1 markup in basis points");
    expect(bps.getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById(bps.getAttribute("aria-describedby")!)!.textContent).toBe(
      "Tier 1's bps must be a whole number from 0 to 1000.",
    );

    type("Tier 1 markup in basis points", "40");
    fireEvent.click(screen.getByRole("button", { name: "Create the plan" }));
    await settle();
    expect(screen.getByRole("rowheader", { name: "Partners" })).toBeTruthy();
    expect(titles()).toEqual(["Plan created"]);
  });

  test("assigns a plan to an account with {assign_account_ref}; the account leaves its old plan", async () => {
    const calls = fakeApi(() => [200, { body: { ...DEFAULT, accounts: ["P1234567"] } }]);
    render(<ConsolePricingPlans plans={[DEFAULT, VIP]} currencies={CURRENCIES} />);
    await settle();
    fireEvent.click(screen.getByRole("button", { name: "Assign Standard to an account" }));
    type("Account reference", "P1234567");
    fireEvent.click(screen.getByRole("button", { name: "Assign the plan" }));
    await settle();
    expect(calls[0]).toMatchObject({
      method: "PUT",
      path: "console/pricingplans/1",
      body: { assign_account_ref: "P1234567" },
    });
    const vipRow = screen.getByRole("row", { name: /VIP/ });
    expect(within(vipRow).getByText("None")).toBeTruthy();
    expect(within(screen.getByRole("row", { name: /Standard/ })).getByText("P1234567")).toBeTruthy();
  });
});

describe("ConsoleUserFees", () => {
  const NONE = {
    override_transfer_fee: false,
    override_regular_transfer_fee: null,
    override_priority_transfer_fee: null,
  };

  test("shows a regular and a priority fee per currency, from the customer's overrides", async () => {
    fakeApi(() => [200, { body: null }]);
    render(
      <ConsoleUserFees
        userId={7}
        name="Ada Lovelace"
        overrides={{
          override_transfer_fee: true,
          override_regular_transfer_fee: { GBP: "0.50" },
          override_priority_transfer_fee: { EUR: "2.00" },
        }}
        currencies={CURRENCIES}
      />,
    );
    await settle();
    expect((screen.getByLabelText("Regular fee in GBP") as HTMLInputElement).value).toBe("0.50");
    expect((screen.getByLabelText("Priority fee in GBP") as HTMLInputElement).value).toBe("");
    expect((screen.getByLabelText("Priority fee in EUR") as HTMLInputElement).value).toBe("2.00");
    expect((screen.getByLabelText("Regular fee in USD") as HTMLInputElement).value).toBe("");
    expect((screen.getByLabelText("Override the plan's transfer fees") as HTMLInputElement).checked).toBe(true);
  });

  test("PUTs the currencies that have a fee, empty fees as null, and shows a 422 under its fee", async () => {
    let n = 0;
    const calls = fakeApi(() => {
      n += 1;
      return n === 1
        ? [422, {
          error: "The regular GBP fee: GBP amounts have at most 2 decimal places.",
          message: "",
          fields: { "fees.GBP.regular": "The regular GBP fee: GBP amounts have at most 2 decimal places." },
        }]
        : [200, {
          body: {
            id: 7,
            override_transfer_fee: true,
            override_regular_transfer_fee: { GBP: "0.50" },
            override_priority_transfer_fee: { USD: "3.00" },
          },
        }];
    });
    render(<ConsoleUserFees userId={7} name="Ada Lovelace" overrides={NONE} currencies={CURRENCIES} />);
    await settle();
    fireEvent.click(screen.getByLabelText("Override the plan's transfer fees"));
    type("Regular fee in GBP", "0.505");
    type("Priority fee in USD", "3");
    fireEvent.click(screen.getByRole("button", { name: "Save fees" }));
    await settle();
    expect(calls[0]).toMatchObject({
      method: "PUT",
      path: "console/users/7/fees",
      body: {
        override_transfer_fee: true,
        fees: { GBP: { regular: "0.505", priority: null }, USD: { regular: null, priority: "3" } },
      },
    });
    const gbp = screen.getByLabelText("Regular fee in GBP");
    expect(gbp.getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById(gbp.getAttribute("aria-describedby")!)!.textContent).toMatch(/at most 2 decimal/);

    type("Regular fee in GBP", "0.50");
    fireEvent.click(screen.getByRole("button", { name: "Save fees" }));
    await settle();
    expect(calls[1].body).toEqual({
      override_transfer_fee: true,
      fees: { GBP: { regular: "0.50", priority: null }, USD: { regular: null, priority: "3" } },
    });
    // The form shows what the server saved.
    expect((screen.getByLabelText("Priority fee in USD") as HTMLInputElement).value).toBe("3.00");
    expect(titles()).toEqual(["Fees saved"]);
  });
});

describe("hydration", () => {
  /** Server HTML hydrated with the same props: any mismatch is a console.error, which fails the test. */
  async function hydrates<P extends object>(component: FunctionComponent<P>, props: P) {
    const root = document.createElement("div");
    root.innerHTML = renderToString(createElement(component, props));
    document.body.append(root);
    act(() => {
      hydrateRoot(root, createElement(component, props));
    });
    await settle();
    root.remove();
  }

  test("every console money island hydrates its server HTML", async () => {
    fakeApi(() => [200, { body: null }]);
    const fees = { GBP: { regular: "1.00", priority: "9.00" } };
    await hydrates(ConsoleRates, {
      rates: { base: "GBP", as_of: "2026-11-20", source: "ecb", indicative: false, rates: { GBP: "1", EUR: "1.1" } },
      currencies: CURRENCIES,
      today: TODAY,
    });
    await hydrates(ConsolePricingPlans, {
      plans: [{
        id: 1,
        name: "Standard",
        is_default: true,
        tier_currency: "GBP",
        tiers: [{ up_to: null, bps: 30 }],
        fees,
        accounts: [],
      }],
      currencies: CURRENCIES,
    });
    await hydrates(ConsoleReceipts, {
      receipts: [{
        id: 1,
        amount: "1.00",
        currency: "GBP",
        payer_name: "A",
        reference: "R",
        received_at: "2026-11-20",
        status: "unmatched",
        account_ref: null,
        recorded_by: { id: 1, email: "admin@example.com" },
        approved_by: null,
        duplicate_of: null,
        closed_by: null,
        reason: null,
        returns_payment_id: null,
        returns_payment_status: null,
      }],
      currencies: CURRENCIES,
    });
    await hydrates(ConsoleUserFees, {
      userId: 7,
      name: "Ada",
      overrides: {
        override_transfer_fee: true,
        override_regular_transfer_fee: { GBP: "0.50" },
        override_priority_transfer_fee: null,
      },
      currencies: CURRENCIES,
    });
  });
});
