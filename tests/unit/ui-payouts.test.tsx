// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import ConsolePayouts, { type ConsolePayoutsProps } from "../../islands/ConsolePayouts.tsx";
import { notifications } from "../../islands/lib/notification-store.ts";
import type { CreatedBatch, Payout, PayoutQueue } from "../../islands/payouts/calls.ts";
import { IDEMPOTENCY_HEADER } from "../../lib/api-types.ts";
import { BATCH_RESET_PAUSE_MS } from "../../lib/constants.ts";
import { fakeApi, resetIslands } from "../helpers/fake-api.ts";

/**
 * The payout desk's island (/console/local, /console/transfer) in a browser-like page against the
 * fake server: the queue's filters ask the server, Fail needs a reason and sends it, "Refuse on
 * submit…" sends the simulated rail's words, a SEPA payment is never offered Submit, and Export
 * SEPA file makes the file, downloads it and says what it left out.
 */

const settle = (ms = 0) => act(() => vi.advanceTimersByTimeAsync(ms));
const titles = () => notifications.snapshot().visible.map((n) => n.title);

const PIA = { id: 11, name: "Pia Payer", email: "pia@example.com" };

function payout(overrides: Partial<Payout> = {}): Payout {
  return {
    id: 5,
    status: "approved",
    rail: "faster_payments",
    rail_kind: "local",
    rail_name: "UK Faster Payments",
    customer: { account_id: 3, account_ref: "P1234567", name: "Otto Owner", restricted: false },
    created_by: PIA,
    recipient: {
      name: "Mary Smith",
      type: "person",
      currency: "GBP",
      country: "GB",
      details: { sort_code: "040004", account_number: "12345678" },
    },
    sell_amount: "101.00",
    sell_currency: "GBP",
    buy_amount: "100.00",
    buy_currency: "GBP",
    fee: "1.00",
    priority: false,
    reference: "Rent",
    created_at: "2026-03-02T09:00:00.000Z",
    approved_at: "2026-03-02T09:05:00.000Z",
    updated_at: "2026-03-02T09:05:00.000Z",
    expected_arrival: "2026-03-02T17:00:00.000Z",
    batch_id: null,
    rail_reference: null,
    reason: null,
    returned: null,
    actions: { submit: true, complete: false, fail: true, note: null },
    ...overrides,
  };
}

const queueOf = (items: Payout[]): PayoutQueue => ({
  items,
  total: items.length,
  as_of: "2026-03-02T12:00:00.000Z",
  rail_note: "Submit sends payments to the simulated rail.",
});

function renderDesk(props: Partial<ConsolePayoutsProps> = {}) {
  return render(
    <ConsolePayouts
      queue="local"
      initial={queueOf([payout()])}
      batches={[]}
      currencies={[{ code: "GBP", name: "British pound" }, { code: "EUR", name: "Euro" }]}
      {...props}
    />,
  );
}

const rowOf = (id: number) => document.querySelector<HTMLElement>(`tr[data-payout-id="${id}"]`)!;

beforeEach(() => {
  vi.useFakeTimers({ shouldAdvanceTime: true });
  notifications.clear();
});
afterEach(() => {
  cleanup();
  resetIslands();
  notifications.clear();
  vi.useRealTimers();
});

describe("the payout queue", () => {
  test("shows each payment's customer, recipient, amounts, reference and age without fetching", () => {
    const calls = fakeApi();
    renderDesk();
    const row = rowOf(5);
    for (const text of ["Otto Owner", "P1234567", "by Pia Payer", "Mary Smith (GB)", "Rent", "3 h ago", "101.00 GBP"]) {
      expect(row.textContent).toContain(text);
    }
    expect(calls, "hydration fetches nothing").toHaveLength(0);
  });

  test("asks the server for the status and payout currency chosen", async () => {
    const failed = payout({
      id: 8,
      status: "failed",
      reason: "Account closed",
      actions: { submit: false, complete: false, fail: false, note: null },
    });
    const calls = fakeApi({ "GET console/payouts": [200, { body: queueOf([failed]) }] });
    renderDesk();
    fireEvent.change(screen.getByLabelText("Status"), { target: { value: "failed" } });
    fireEvent.change(screen.getByLabelText("Payout currency"), { target: { value: "GBP" } });
    await settle();
    expect(calls.at(-1)!.query).toEqual({ rail: "local", status: "failed", currency: "GBP" });
    expect(await screen.findByText("Account closed")).toBeTruthy();
    expect(rowOf(5)).toBeNull();

    // Payments the bank sent back, whose return waits: in whatever status they are.
    fireEvent.change(screen.getByLabelText("Status"), { target: { value: "returned" } });
    await settle();
    expect(calls.at(-1)!.query).toEqual({ rail: "local", returned: "true", currency: "GBP" });
  });
});

describe("a payment's actions", () => {
  test("Fail asks for the reason, then sends it with an Idempotency-Key and reloads the queue", async () => {
    const calls = fakeApi({
      "POST console/payouts/5/fail": [200, {
        body: { payment: payout({ status: "failed", reason: "Account closed" }), refused: null },
      }],
      "GET console/payouts": [200, { body: queueOf([]) }],
    });
    renderDesk();
    fireEvent.click(within(rowOf(5)).getByRole("button", { name: "Fail payment 5, 100.00 GBP to Mary Smith" }));
    const form = screen.getByRole("form", { name: "Fail the payment: payment 5" });
    fireEvent.click(within(form).getByRole("button", { name: "Fail the payment" }));
    await settle();
    expect(form.textContent).toContain("Say why the payment failed.");
    expect(calls, "nothing sent without a reason").toHaveLength(0);

    fireEvent.change(within(form).getByLabelText("Why did the payment fail?"), {
      target: { value: "Account closed" },
    });
    fireEvent.click(within(form).getByRole("button", { name: "Fail the payment" }));
    await settle();
    const fail = calls.find((c) => c.path === "console/payouts/5/fail")!;
    expect(fail.body).toEqual({ reason: "Account closed" });
    expect(fail.headers.get(IDEMPOTENCY_HEADER)).toBeTruthy();
    expect(titles()).toContain("Payment failed");
    // Writes refresh what they change once the batch of writes pauses.
    await settle(BATCH_RESET_PAUSE_MS + 10);
    expect(calls.some((c) => c.method === "GET" && c.path === "console/payouts"), "the queue reloaded").toBe(true);
  });

  test.each([
    ["waiting to be sent", {}],
    ["sent, waiting to arrive", {
      status: "submitted" as const,
      actions: { submit: false, complete: true, fail: true, note: null },
    }],
  ])("each action's name for screen readers and voice control starts with the words on its button: %s", (_, state) => {
    fakeApi({});
    renderDesk({ initial: queueOf([payout(state)]) });
    const buttons = within(rowOf(5)).getAllByRole("button");
    expect(buttons.length).toBeGreaterThan(1);
    for (const button of buttons) {
      const shown = button.textContent!.replace("…", "").trim();
      expect(button.getAttribute("aria-label") ?? shown, shown).toMatch(new RegExp(`^${shown}\\b`));
    }
  });

  test("Refuse on submit sends the simulated rail's words, and the desk is told the rail refused", async () => {
    const calls = fakeApi({
      "POST console/payouts/5/submit": [200, {
        body: { payment: payout({ status: "failed", reason: "Refused" }), refused: "Name does not match" },
      }],
      "GET console/payouts": [200, { body: queueOf([]) }],
    });
    renderDesk();
    fireEvent.click(
      within(rowOf(5)).getByRole("button", { name: /^Refuse on submit: payment 5, / }),
    );
    const form = screen.getByRole("form", { name: "Submit, to be refused: payment 5" });
    fireEvent.change(within(form).getByLabelText("What the simulated rail says"), {
      target: { value: "Name does not match" },
    });
    fireEvent.click(within(form).getByRole("button", { name: "Submit, to be refused" }));
    await settle();
    expect(calls.find((c) => c.path === "console/payouts/5/submit")!.body).toEqual({
      simulate_refusal: "Name does not match",
    });
    expect(titles()).toContain("The rail refused the payment");
  });

  test("a payment the bank sent back says so on its row, and Fail offers the return as the reason, editable", async () => {
    const returned = payout({
      rail: "sepa",
      status: "submitted",
      buy_amount: "300.00",
      buy_currency: "EUR",
      returned: {
        receipt_id: 7,
        amount: "299.50",
        currency: "EUR",
        reason: "reason AC04: Account closed",
        settled: false,
      },
      actions: { submit: false, complete: false, fail: true, note: null },
    });
    const calls = fakeApi({
      "POST console/payouts/5/fail": [200, { body: { payment: payout({ status: "failed" }), refused: null } }],
      "GET console/payouts": [200, { body: queueOf([]) }],
    });
    renderDesk({ initial: queueOf([returned]) });
    expect(rowOf(5).textContent).toContain(
      "Returned by the bank: receipt 7, 299.50 EUR (reason AC04: Account closed)",
    );
    expect(rowOf(5).textContent).toContain("Fail it to refund the customer; the receipt is then settled.");

    fireEvent.click(within(rowOf(5)).getByRole("button", { name: /^Fail payment 5, / }));
    const form = screen.getByRole("form", { name: "Fail the payment: payment 5" });
    const reason = within(form).getByLabelText<HTMLInputElement>("Why did the payment fail?");
    // The customer reads it: no receipt number of ours in it.
    expect(reason.value).toBe("Returned by the beneficiary's bank: reason AC04: Account closed");
    fireEvent.change(reason, { target: { value: `${reason.value}. We have written to you.` } });
    fireEvent.click(within(form).getByRole("button", { name: "Fail the payment" }));
    await settle();
    expect(calls.find((c) => c.path === "console/payouts/5/fail")!.body).toEqual({
      reason: "Returned by the beneficiary's bank: reason AC04: Account closed. We have written to you.",
    });
  });

  test("a return of a payment marked arrived says to ask the bank; a settled one says so; Fail is empty without one", () => {
    fakeApi();
    const back = { receipt_id: 7, amount: "300.00", currency: "EUR", reason: null, settled: false };
    renderDesk({
      initial: queueOf([
        payout({
          status: "completed",
          returned: back,
          actions: { submit: false, complete: false, fail: false, note: null },
        }),
        payout({
          id: 6,
          status: "failed",
          returned: { ...back, receipt_id: 8, settled: true },
          actions: { submit: false, complete: false, fail: false, note: null },
        }),
        payout({ id: 9 }),
      ]),
    });
    expect(rowOf(5).textContent).toContain("Returned by the bank: receipt 7, 300.00 EUR");
    expect(rowOf(5).textContent).toContain(
      "It was marked arrived, so it cannot be failed here: ask the bank whether it arrived or came back.",
    );
    expect(within(rowOf(5)).queryByRole("button", { name: /^Fail / })).toBeNull();
    expect(rowOf(6).textContent).toContain("Settled: the payment failed and its customer was refunded.");
    fireEvent.click(within(rowOf(9)).getByRole("button", { name: /^Fail payment 9, / }));
    expect(screen.getByLabelText<HTMLInputElement>("Why did the payment fail?").value).toBe("");
  });

  test("a SEPA payment offers no Submit and says it goes in a file", () => {
    fakeApi();
    const note = 'SEPA payments go out in a SEPA file: "Export SEPA file" sends every approved one.';
    renderDesk({
      initial: queueOf([payout({ rail: "sepa", actions: { submit: false, complete: false, fail: true, note } })]),
    });
    expect(within(rowOf(5)).queryByRole("button", { name: /^Submit payment/ })).toBeNull();
    expect(rowOf(5).textContent).toContain(note);
  });
});

describe("Export SEPA file", () => {
  test("makes the file, downloads it, lists it and says what it left out", async () => {
    const made: CreatedBatch = {
      id: 4,
      scheme: "sepa",
      message_id: "PAYOUTS-20260302-4",
      currency: "EUR",
      payment_count: 1,
      total: "250.00",
      created_by: { id: 1, name: "Desk", email: "desk@example.com" },
      created_at: "2026-03-02T12:00:00.000Z",
      file_name: "PAYOUTS-20260302-4.xml",
      payments: [],
      left_out: [{ payment_id: 9, problems: ["A transfer to CH needs the bank's BIC."] }],
      changes: [],
      test_details: false,
    };
    const { payments: _p, left_out: _l, changes: _c, test_details: _t, ...listed } = made;
    const calls = fakeApi({
      "POST console/payouts/batches": [201, { body: made }],
      "GET console/payouts/batches": [200, { body: [listed] }],
      "GET console/payouts": [200, { body: queueOf([]) }],
    });
    const downloads: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
      // Followed, not saved: a `download` attribute would save a refusal as the file (decision 075).
      downloads.push(`${new URL(this.href).pathname}${this.hasAttribute("download") ? " saved" : " followed"}`);
    });
    renderDesk();
    fireEvent.click(screen.getByRole("button", { name: "Export SEPA file" }));
    await settle();
    const post = calls.find((c) => c.method === "POST")!;
    expect([post.path, post.body]).toEqual(["console/payouts/batches", { scheme: "sepa" }]);
    expect(post.headers.get(IDEMPOTENCY_HEADER)).toBeTruthy();
    expect(downloads).toEqual(["/api/console/payouts/batches/4/file followed"]);
    expect(await screen.findByText("PAYOUTS-20260302-4.xml is downloading")).toBeTruthy();
    expect(document.body.textContent).toContain("Payment 9: A transfer to CH needs the bank's BIC.");
    const files = screen.getByRole("table", { name: "SEPA files" });
    expect(await within(files).findByText("PAYOUTS-20260302-4")).toBeTruthy();
  });

  test("says why when no file could be made", async () => {
    fakeApi({
      "POST console/payouts/batches": [409, { error: "No approved SEPA payment is waiting for a file." }],
    });
    renderDesk();
    fireEvent.click(screen.getByRole("button", { name: "Export SEPA file" }));
    expect(await screen.findByText("No approved SEPA payment is waiting for a file.")).toBeTruthy();
  });
});
