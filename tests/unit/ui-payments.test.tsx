// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import PaymentForm, { type PaymentFormProps, QUOTE_EXPIRED } from "../../islands/PaymentForm.tsx";
import PendingPayment from "../../islands/PendingPayment.tsx";
import PendingPayments from "../../islands/PendingPayments.tsx";
import ApprovalsForYou from "../../islands/ApprovalsForYou.tsx";
import { setOnBehalf } from "../../islands/lib/on-behalf.ts";
import { pageQueryClient } from "../../islands/lib/query-client.tsx";
import type { PaymentWithTimeline } from "../../islands/payments/calls.ts";
import { IDEMPOTENCY_HEADER } from "../../lib/api-types.ts";
import { NOT_ON_BEHALF } from "../../lib/payments/approval-notes.ts";
import { referenceRules } from "../../lib/payments/rail-rules.ts";
import { fakeApi, resetIslands } from "../helpers/fake-api.ts";

/**
 * The payment islands in a browser-like page (happy-dom) against the fake server: the pending list
 * reloaded when on-behalf mode changes, a payment's page that never offers one's own payment for
 * approval, and the payment form's reference checked by the rail before anything is sent.
 */

const settle = (ms = 0) => act(() => vi.advanceTimersByTimeAsync(ms));

const NO_ACTIONS = { approve: false, reject: false, cancel: false, note: null };
const PAULA = { id: 11, name: "Paula Payer", email: "paula@example.com" };
const ARTHUR = { id: 12, name: "Arthur Approver", email: "arthur@example.com" };

function payment(overrides: Partial<PaymentWithTimeline> = {}): PaymentWithTimeline {
  return {
    id: 5,
    status: "pending_approval",
    recipient_id: 3,
    recipient: { name: "Jean Dupont", type: "person", currency: "EUR", country: "FR", details: { iban: "FR14" } },
    sell_currency: "GBP",
    sell_amount: "100.00",
    buy_currency: "EUR",
    buy_amount: "110.93",
    fee: "1.00",
    fee_currency: "GBP",
    mid_rate: "1.137656",
    rate: "1.120591",
    markup: "1.49",
    priority: false,
    rail: "sepa",
    rail_kind: "local",
    rail_name: "SEPA transfer",
    expected_arrival: "2026-03-03T09:00:00.000Z",
    reference: "Invoice 42",
    created_by: PAULA,
    created_at: "2026-03-02T09:00:00.000Z",
    rate_held_until: "2026-03-03T09:00:00.000Z",
    approved_by: null,
    approved_at: null,
    reason: null,
    rail_reference: null,
    actions: { approve: true, reject: true, cancel: false, note: null },
    events: [{ event: "created", at: "2026-03-02T09:00:00.000Z", actor: PAULA, on_behalf_admin: null, note: null }],
    ...overrides,
  };
}

beforeEach(() => {
  vi.useFakeTimers({ shouldAdvanceTime: true });
});
afterEach(() => {
  cleanup();
  resetIslands();
  vi.useRealTimers();
});

describe("the pending list", () => {
  test("is reloaded when on-behalf mode is set or cleared (SPEC.md section 4)", async () => {
    const { events: _events, ...first } = payment();
    const second = { ...first, id: 6, recipient: { ...first.recipient, name: "Hans Meier" } };
    const calls = fakeApi({ "GET account/pendingpayments/all": [200, { body: [first, second] }] });
    render(<PendingPayments accountRef="P1" actingFor={null} payments={[first]} />);
    expect(screen.queryByText("Hans Meier")).toBeNull();
    expect(calls, "hydration fetches nothing").toHaveLength(0);

    await act(() => setOnBehalf({ id: 7, name: "Ada", username: "ada@example.com" }, pageQueryClient()));
    await settle();
    expect(calls.map((c) => c.path)).toEqual(["account/pendingpayments/all"]);
    expect(await screen.findByText("Hans Meier")).toBeTruthy();
  });

  test("a list shown on a customer's behalf is not fetched again once the mode is cleared: the page is left", async () => {
    const { events: _events, ...first } = payment();
    const calls = fakeApi({ "GET account/pendingpayments/all": [200, { body: [first] }] });
    const ada = { id: 7, name: "Ada", username: "ada@example.com" };
    // The page was rendered while acting for Ada: the mode is on before the island starts.
    setOnBehalf(ada, pageQueryClient());
    render(<PendingPayments accountRef="P1" actingFor={7} payments={[first]} />);
    await act(() => setOnBehalf(ada, pageQueryClient()));
    await settle();
    expect(calls.map((c) => c.path), "still acting for Ada: reloaded").toEqual(["account/pendingpayments/all"]);
    await act(() => setOnBehalf(null, pageQueryClient()));
    await settle();
    expect(calls, "cleared: the administrator no longer reads them").toHaveLength(1);
  });

  test("offers Approve only where the person may, and says once why an administrator may not", () => {
    const { events: _events, ...mine } = payment({
      actions: { approve: false, reject: false, cancel: true, note: NOT_ON_BEHALF },
    });
    fakeApi({});
    render(<PendingPayments accountRef="P1" actingFor={7} payments={[mine, { ...mine, id: 6 }]} />);
    expect(screen.queryByRole("button", { name: /^Approve/ })).toBeNull();
    expect(screen.getAllByText(/Administrators acting on behalf/)).toHaveLength(1);
  });

  test("an approver is asked by when, as their email asks, for a payment converted on the way only", () => {
    const { events: _events, ...converted } = payment();
    const same = {
      ...converted,
      id: 6,
      sell_currency: "EUR",
      rate: null,
      rate_held_until: null,
      recipient: { ...converted.recipient, name: "Hans Meier" },
    };
    fakeApi({});
    render(<PendingPayments accountRef="P1" actingFor={null} payments={[converted, same]} />);
    const [first, second] = within(screen.getByRole("table")).getAllByRole("row").slice(1);
    expect(first.textContent).toContain("Approve or reject it by 3 Mar 2026, 09:00 UTC, while its rate is guaranteed.");
    expect(second.textContent).not.toContain("rate is guaranteed");
  });

  test("an administrator is told once why they decide none, and still reads on its row that a rate expired", () => {
    const { events: _events, ...held } = payment({
      actions: { approve: false, reject: false, cancel: true, note: NOT_ON_BEHALF },
    });
    const expired =
      "The rate held for this payment expired at 3 Mar 2026, 09:00 UTC, so it can no longer be approved: " +
      "cancel it, and prepare it again at today's rate.";
    const late = { ...held, id: 7, actions: { ...held.actions, note: expired } };
    fakeApi({});
    render(<PendingPayments accountRef="P1" actingFor={7} payments={[held, { ...held, id: 6 }, late]} />);
    expect(screen.getAllByText(NOT_ON_BEHALF), "once, above the table").toHaveLength(1);
    const rows = within(screen.getByRole("table")).getAllByRole("row").slice(1);
    expect(rows[2].textContent).toContain(expired);
  });

  test("someone whose own payments are all that wait is told so on each, not in a one-payment banner", () => {
    const ownNote = "You prepared this payment: someone else on the account must approve it.";
    const { events: _events, ...mine } = payment({
      actions: { approve: false, reject: false, cancel: true, note: ownNote },
    });
    const other = { ...mine, id: 6, recipient: { ...mine.recipient, name: "Hans Meier" } };
    fakeApi({});
    render(<PendingPayments accountRef="P1" actingFor={null} payments={[mine, other]} />);
    const rows = within(screen.getByRole("table")).getAllByRole("row").slice(1);
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row.textContent).toContain(ownNote);
    expect(screen.getAllByText(ownNote), "on each payment, and nowhere else").toHaveLength(2);
  });
});

describe("the dashboard's payments waiting for your approval", () => {
  test("approving from the dashboard's table updates the card too: both read the pending payments' query", async () => {
    const { events: _events, ...first } = payment();
    const second = { ...first, id: 6, recipient: { ...first.recipient, name: "Hans Meier" } };
    const approved = { ...first, status: "approved", actions: { ...NO_ACTIONS, cancel: true } };
    const calls = fakeApi((call) => call.method === "PUT" ? [200, { body: approved }] : [200, { body: [second] }]);
    render(
      <>
        <ApprovalsForYou accountRef="P1" actingFor={null} payments={[first, second]} />
        <PendingPayments accountRef="P1" actingFor={null} payments={[first, second]} compact />
      </>,
    );
    const card = () => document.querySelector("[data-approvals]")!;
    expect(card().getAttribute("data-approvals")).toBe("2");
    expect(within(card() as HTMLElement).getByText(/Jean Dupont/)).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Approve the payment to Jean Dupont" }));
    await settle(500);
    expect(calls.some((c) => c.method === "PUT")).toBe(true);
    await vi.waitFor(() => expect(card().getAttribute("data-approvals")).toBe("1"));
    expect(within(card() as HTMLElement).queryByText(/Jean Dupont/)).toBeNull();
    expect(within(card() as HTMLElement).getByText(/Hans Meier/)).toBeTruthy();
  });

  test("names each payment by what arrives to whom, not what is debited", () => {
    const { events: _events, ...first } = payment();
    fakeApi({});
    render(<ApprovalsForYou accountRef="P1" actingFor={null} payments={[first]} />);
    const link = screen.getByRole("link", { name: /Jean Dupont/ });
    expect(link.textContent).toBe("110.93 EUR to Jean Dupont");
  });
});

describe("a payment's page", () => {
  const arrival = () => screen.getByText("Expected to arrive").nextElementSibling?.textContent;

  test("says when it is expected by the rail's speed: a same-day ACH payment is not 'within seconds'", () => {
    fakeApi({});
    render(
      <PendingPayment
        accountRef="P1"
        actingFor={null}
        payment={payment({
          status: "submitted",
          priority: true,
          rail: "ach",
          rail_name: "ACH transfer",
          // Same Day ACH: the confirmation's own business day, at the same time.
          expected_arrival: "2026-03-02T09:00:00.000Z",
        })}
      />,
    );
    expect(arrival()).toBe("by Mon, 2 Mar 2026 (ACH transfer)");
    cleanup();
    render(
      <PendingPayment
        accountRef="P1"
        actingFor={null}
        payment={payment({ id: 6, status: "submitted", priority: true })}
      />,
    );
    expect(arrival(), "SEPA Instant").toBe("within seconds (SEPA transfer)");
  });

  test("one not sent yet is expected from when it is sent; an arrived one says when it arrived", () => {
    fakeApi({});
    const EVENT = { actor: null, on_behalf_admin: null, note: null };
    const shown = (overrides: Partial<PaymentWithTimeline>) => {
      render(
        <PendingPayment accountRef="P1" actingFor={null} payment={payment({ actions: NO_ACTIONS, ...overrides })} />,
      );
      const row = screen.queryByText(/^(Expected to arrive|Arrived)$/, { selector: "dt" });
      const said = row ? `${row.textContent}: ${row.nextElementSibling?.textContent}` : null;
      cleanup();
      return said;
    };
    // Approved, waiting in the payout desk's queue: not "within seconds" while nobody has sent it.
    expect(shown({ id: 60, status: "approved", priority: true })).toBe(
      "Expected to arrive: within seconds of being sent (SEPA transfer)",
    );
    expect(shown({ id: 61, status: "pending_approval" })).toBe(
      "Expected to arrive: the next business day after it is sent (SEPA transfer)",
    );
    expect(shown({ id: 62, status: "submitted" })).toBe("Expected to arrive: by Tue, 3 Mar 2026 (SEPA transfer)");
    expect(shown({
      id: 63,
      status: "completed",
      events: [{ ...EVENT, event: "completed", at: "2026-03-03T08:15:00.000Z" }],
    })).toBe("Arrived: 3 Mar 2026, 08:15 UTC (SEPA transfer)");
    expect(shown({ id: 64, status: "completed", events: [] })).toBeNull();
  });

  test("a rejected payment expects no arrival", () => {
    fakeApi({});
    render(
      <PendingPayment
        accountRef="P1"
        actingFor={null}
        payment={payment({ status: "rejected", reason: "Wrong invoice", actions: NO_ACTIONS })}
      />,
    );
    expect(screen.queryByText("Expected to arrive")).toBeNull();
  });

  test("a failed, rejected or cancelled payment says its money is back, and its cost is what it would have been", () => {
    fakeApi({});
    const EVENT = { at: "2026-03-02T10:00:00.000Z", actor: null, on_behalf_admin: null, note: null };
    const cases: [Partial<PaymentWithTimeline>, string][] = [
      [
        { status: "failed", events: [{ ...EVENT, event: "submitted" }, { ...EVENT, event: "failed" }] },
        "The payment failed after it was sent and was refunded: 100.00 GBP is back in your balance.",
      ],
      [
        { status: "failed", events: [{ ...EVENT, event: "failed" }] },
        "The payment failed before it was sent, so nothing was sent: 100.00 GBP is back in your balance.",
      ],
      [{ status: "rejected" }, "The payment was rejected, so it was never sent: 100.00 GBP is back in your balance."],
      [{ status: "cancelled" }, "The payment was cancelled before it was sent: 100.00 GBP is back in your balance."],
    ];
    for (const [i, [overrides, said]] of cases.entries()) {
      render(
        <PendingPayment
          accountRef="P1"
          actingFor={null}
          payment={payment({ id: 40 + i, reason: "Bank refused", actions: NO_ACTIONS, ...overrides })}
        />,
      );
      expect(screen.getByText(said)).toBeTruthy();
      expect(screen.queryByText("Total debited")).toBeNull();
      expect(screen.queryByText("The recipient gets")).toBeNull();
      expect(screen.getByText("Would have been debited").nextElementSibling?.textContent).toBe("100.00 GBP");
      expect(screen.getByText("The recipient would have got").nextElementSibling?.textContent).toBe("110.93 EUR");
      cleanup();
    }
    render(<PendingPayment accountRef="P1" actingFor={null} payment={payment({ id: 49, status: "completed" })} />);
    expect(screen.getByText("Total debited")).toBeTruthy();
    expect(screen.queryByText(/is back in your balance/)).toBeNull();
  });

  test("one's own payment: no Approve or Reject, and the reason said", () => {
    fakeApi({});
    render(
      <PendingPayment
        accountRef="P1"
        actingFor={null}
        payment={payment({
          actions: {
            approve: false,
            reject: false,
            cancel: true,
            note: "You prepared this payment: someone else on the account must approve it.",
          },
        })}
      />,
    );
    expect(screen.getByText("You prepared this payment: someone else on the account must approve it.")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Approve" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Reject…" })).toBeNull();
    expect(screen.getByRole("button", { name: "Cancel this payment…" })).toBeTruthy();
  });

  test("an approver approves it: PUT with the id and an Idempotency-Key; the page shows the answer", async () => {
    const approved = payment({
      status: "approved",
      approved_by: ARTHUR,
      approved_at: "2026-03-02T09:05:00.000Z",
      actions: { approve: false, reject: false, cancel: true, note: null },
      events: [
        ...payment().events,
        { event: "approved", at: "2026-03-02T09:05:00.000Z", actor: ARTHUR, on_behalf_admin: null, note: null },
      ],
    });
    const calls = fakeApi((call) => call.method === "PUT" ? [200, { body: approved }] : [200, { body: approved }]);
    render(<PendingPayment accountRef="P1" actingFor={null} payment={payment()} />);
    fireEvent.click(screen.getByRole("button", { name: "Approve" }));
    await settle();
    const put = calls.find((c) => c.method === "PUT")!;
    expect(put.path).toBe("account/pendingpayments/update");
    expect(put.query).toEqual({ id: "5" });
    expect(put.headers.get(IDEMPOTENCY_HEADER)).toBeTruthy();
    expect(await screen.findByText("Approved", { selector: "[data-status]" })).toBeTruthy();
    expect(within(screen.getByRole("list", { name: "Timeline" })).getByText(/by Arthur Approver/)).toBeTruthy();
  });

  test("converted on the way, it says until when its rate is guaranteed while it waits; past it, that it was, and the approver is told to reject it", () => {
    fakeApi({});
    const held = "Its rate is guaranteed until 3 Mar 2026, 09:00 UTC while it waits for approval. After that it " +
      "cannot be approved, and must be prepared again at the day's rate.";
    // Its preparer, who cannot approve it, is told too.
    render(
      <PendingPayment
        accountRef="P1"
        actingFor={null}
        payment={payment({ id: 70, actions: { ...NO_ACTIONS, cancel: true, note: "You prepared this payment." } })}
      />,
    );
    expect(screen.getByText(held)).toBeTruthy();
    cleanup();
    const expired = "The rate held for this payment expired at 3 Mar 2026, 09:00 UTC, so it cannot be approved: " +
      "reject it, and prepare it again at today's rate.";
    render(
      <PendingPayment
        accountRef="P1"
        actingFor={null}
        payment={payment({ id: 71, actions: { approve: false, reject: true, cancel: false, note: expired } })}
      />,
    );
    // The promise is not repeated for a time gone by.
    expect(screen.queryByText(held)).toBeNull();
    expect(
      screen.getByText(
        "Its rate was guaranteed until 3 Mar 2026, 09:00 UTC while it waited for approval: it can no longer be approved.",
      ),
    ).toBeTruthy();
    expect(screen.getByText(expired)).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Approve" })).toBeNull();
    expect(screen.getByRole("button", { name: "Reject…" })).toBeTruthy();
    cleanup();
    // In the recipient's own currency there is no rate to hold, and nothing is said of one.
    render(
      <PendingPayment
        accountRef="P1"
        actingFor={null}
        payment={payment({ id: 72, sell_currency: "EUR", mid_rate: null, rate: null, rate_held_until: null })}
      />,
    );
    expect(screen.queryByText(/rate is guaranteed/)).toBeNull();
  });

  test("the bank details it pays are written and named as on the recipients screen", () => {
    fakeApi({});
    const details = { iban: "FR1420041010050500013M02606", bic: "PSSTFRPPXXX" };
    render(
      <PendingPayment
        accountRef="P1"
        actingFor={null}
        payment={payment({ id: 80, recipient: { ...payment().recipient, details } })}
      />,
    );
    const where = screen.getByRole("region", { name: "Where the money goes" });
    expect(within(where).getByText("FR14 2004 1010 0505 0001 3M02 606")).toBeTruthy();
    expect(within(where).getByText("BIC (SWIFT code)")).toBeTruthy();
    cleanup();
    const uk = { sort_code: "089999", account_number: "66374958" };
    render(
      <PendingPayment
        accountRef="P1"
        actingFor={null}
        payment={payment({
          id: 81,
          recipient: { ...payment().recipient, currency: "GBP", country: "GB", details: uk },
        })}
      />,
    );
    expect(within(screen.getByRole("region", { name: "Where the money goes" })).getByText("08-99-99")).toBeTruthy();
  });

  test("rejecting asks for a reason and sends it in the body, not the address", async () => {
    const rejected = payment({
      status: "rejected",
      reason: "Wrong invoice",
      actions: { ...payment().actions, approve: false, reject: false },
    });
    const calls = fakeApi(() => [200, { body: rejected }]);
    render(<PendingPayment accountRef="P1" actingFor={null} payment={payment()} />);
    fireEvent.click(screen.getByRole("button", { name: "Reject…" }));
    clickFocused(screen.getByRole("button", { name: "Reject the payment" }));
    // Said once, next to the field, not again in an alert above the buttons.
    expect(screen.getAllByText("Say why you reject it.")).toHaveLength(1);
    const field = screen.getByLabelText("Why do you reject it?");
    expect(field.getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById(field.getAttribute("aria-describedby")!.split(" ").at(-1)!)?.textContent).toBe(
      "Say why you reject it.",
    );
    expect(calls).toHaveLength(0);
    fireEvent.change(screen.getByLabelText("Why do you reject it?"), { target: { value: "Wrong invoice" } });
    fireEvent.click(screen.getByRole("button", { name: "Reject the payment" }));
    await settle();
    const sent = calls.find((c) => c.method === "DELETE")!;
    expect(sent.query).toEqual({ id: "5" });
    expect(sent.body).toEqual({ reason: "Wrong invoice" });
    expect(await screen.findByText("Reason: Wrong invoice")).toBeTruthy();
  });

  test("by keyboard: Reject… and Cancel this payment… take the focus into what they open; Back, Keep it or Escape bring it back", () => {
    const open = payment({ actions: { approve: true, reject: true, cancel: true, note: null } });
    fakeApi(() => [200, { body: open }]);
    render(<PendingPayment accountRef="P1" actingFor={null} payment={open} />);
    const reject = () => screen.getByRole("button", { name: "Reject…" });
    fireEvent.click(reject());
    expect(document.activeElement).toBe(screen.getByLabelText("Why do you reject it?"));
    fireEvent.click(screen.getByRole("button", { name: "Back" }));
    expect(document.activeElement).toBe(reject());
    fireEvent.click(reject());
    fireEvent.keyDown(screen.getByLabelText("Why do you reject it?"), { key: "Escape" });
    expect(screen.queryByLabelText("Why do you reject it?")).toBeNull();
    expect(document.activeElement).toBe(reject());

    const cancel = () => screen.getByRole("button", { name: "Cancel this payment…" });
    fireEvent.click(cancel());
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Yes, cancel it" }));
    fireEvent.click(screen.getByRole("button", { name: "Keep it" }));
    expect(document.activeElement).toBe(cancel());
    fireEvent.click(cancel());
    fireEvent.keyDown(screen.getByRole("button", { name: "Yes, cancel it" }), { key: "Escape" });
    expect(screen.queryByRole("button", { name: "Yes, cancel it" })).toBeNull();
    expect(document.activeElement).toBe(cancel());
  });

  test("a reason the server refuses is said once, next to the field", async () => {
    const tooLong = "The reason has at most 500 characters.";
    fakeApi(() => [422, { error: tooLong, fields: { reason: tooLong } }]);
    render(<PendingPayment accountRef="P1" actingFor={null} payment={payment()} />);
    fireEvent.click(screen.getByRole("button", { name: "Reject…" }));
    fireEvent.change(screen.getByLabelText("Why do you reject it?"), { target: { value: "Wrong invoice" } });
    clickFocused(screen.getByRole("button", { name: "Reject the payment" }));
    await settle();
    expect(await screen.findByText(tooLong)).toBeTruthy();
    expect(screen.getAllByText(tooLong)).toHaveLength(1);
  });
});

/**
 * A click as the browser makes it: the button takes the focus first (fireEvent.click alone leaves it
 * where it was, in the field, which a keyboard user's Enter does; alert.tsx then repeats the field's
 * problem for screen readers).
 */
function clickFocused(button: HTMLElement) {
  button.focus();
  fireEvent.click(button);
}

describe("the payment form", () => {
  /** A held quote as POST account/payments/quote answers it (the cost shown before Confirm). */
  const QUOTED = {
    id: "pq-1",
    recipient_id: 3,
    sell_currency: "GBP",
    sell_amount: "50.00",
    buy_currency: "GBP",
    buy_amount: "49.00",
    fee: "1.00",
    fee_currency: "GBP",
    mid_rate: null,
    rate: null,
    markup: null,
    priority: false,
    rail: "faster_payments",
    rail_kind: "local",
    rail_name: "UK bank transfer (Faster Payments)",
    expected_arrival: "2030-01-01T00:00:00.000Z",
    reference_max: 18,
    expires_at: "2030-01-01T00:00:30.000Z",
  };
  const PROPS: PaymentFormProps = {
    accountRef: "P1",
    currencies: [{ code: "GBP", name: "Pound Sterling", minor_units: 2 }],
    balances: [{ currency: "GBP", available: "500.00", held: "0.00" }],
    recipients: [{
      id: 3,
      name: "Tom Atkins",
      currency: "GBP",
      country: "GB",
      rail: "faster_payments",
      rail_name: "UK bank transfer (Faster Payments)",
      reference_max: 18,
      reference: referenceRules("faster_payments"),
      account_ending: "4958",
    }],
    recipientId: null,
    validitySeconds: 30,
  };

  test("two recipients of one name are told apart in the list by their currency and account ending, masked", async () => {
    const ana = {
      ...PROPS.recipients[0],
      name: "Ana Lima",
      currency: "EUR",
      country: "FR",
      rail: "sepa" as const,
      rail_name: "SEPA transfer",
      reference: referenceRules("sepa"),
    };
    fakeApi({});
    render(
      <PaymentForm
        {...PROPS}
        recipients={[{ ...ana, id: 7, account_ending: "3000" }, { ...ana, id: 8, account_ending: "1234" }]}
      />,
    );
    await settle();
    const options = within(screen.getByLabelText("Recipient")).getAllByRole("option");
    expect(options.map((o) => o.textContent)).toEqual([
      "Ana Lima · EUR · FR · ••••3000",
      "Ana Lima · EUR · FR · ••••1234",
    ]);
  });

  test("a reference the rail cannot carry is named before anything is sent", async () => {
    const calls = fakeApi({});
    render(<PaymentForm {...PROPS} />);
    await settle();
    fireEvent.change(screen.getByLabelText("Amount you send (GBP), fee included"), { target: { value: "50.00" } });
    fireEvent.change(screen.getByLabelText("Reference for the recipient"), { target: { value: "Rent: March" } });
    fireEvent.click(screen.getByRole("button", { name: "See the full cost" }));
    await settle();
    expect(screen.getByLabelText("Reference for the recipient").getAttribute("aria-invalid")).toBe("true");
    expect(
      screen.getAllByText(/carries only letters A–Z, digits, spaces and & - \. \/ in the reference, not “:”/).length,
    )
      .toBeGreaterThan(0);
    expect(calls).toHaveLength(0);
  });

  test("a UK recipient is offered no priority: a regular payment already arrives within seconds of being sent", async () => {
    fakeApi({});
    render(<PaymentForm {...PROPS} />);
    await settle();
    expect(screen.queryByRole("radio", { name: /Priority/ })).toBeNull();
    expect(screen.getByText("Speed: arrives within seconds of being sent.")).toBeTruthy();
  });

  test("the quote says when it arrives as the payment's page will: counted from its sending by the payout desk", async () => {
    fakeApi({ "POST account/payments/quote": [200, { body: QUOTED }] });
    render(<PaymentForm {...PROPS} />);
    await settle();
    fireEvent.change(screen.getByLabelText("Amount you send (GBP), fee included"), { target: { value: "50.00" } });
    fireEvent.change(screen.getByLabelText("Reference for the recipient"), { target: { value: "Rent March" } });
    fireEvent.click(screen.getByRole("button", { name: "See the full cost" }));
    await settle();
    const cost = within(screen.getByRole("region", { name: "The full cost" }));
    // Confirm makes a payment that waits (for approval, or in the payout desk's queue): "within
    // seconds" would promise what the payment's page then takes back.
    expect(cost.getByText("Expected to arrive").nextElementSibling?.textContent).toBe(
      "within seconds of being sent (UK bank transfer (Faster Payments))",
    );
    cleanup();
    const sepa = {
      ...PROPS.recipients[0],
      currency: "EUR",
      country: "FR",
      rail: "sepa" as const,
      rail_name: "SEPA transfer",
      reference: referenceRules("sepa"),
    };
    fakeApi({});
    render(<PaymentForm {...PROPS} recipients={[sepa]} recipientId={3} />);
    await settle();
    expect(screen.getByRole("radio", { name: "Regular: arrives the next business day after it is sent" })).toBeTruthy();
    expect(screen.getByRole("radio", { name: "Priority: arrives within seconds of being sent" })).toBeTruthy();
  });

  test("a reference too long for the rail is kept as typed and named, never cut short", async () => {
    const calls = fakeApi({});
    render(<PaymentForm {...PROPS} />);
    await settle();
    const typed = "Invoice 42 / March and April 2026";
    fireEvent.change(screen.getByLabelText("Amount you send (GBP), fee included"), { target: { value: "50.00" } });
    fireEvent.change(screen.getByLabelText("Reference for the recipient"), { target: { value: typed } });
    fireEvent.click(screen.getByRole("button", { name: "See the full cost" }));
    await settle();
    const field = screen.getByLabelText("Reference for the recipient") as HTMLInputElement;
    expect(field.value).toBe(typed);
    expect(field.hasAttribute("maxlength")).toBe(false);
    expect(screen.getAllByText(/carries a reference of at most 18 characters; this one has 33/).length).toBeGreaterThan(
      0,
    );
    expect(calls).toHaveLength(0);
  });

  test("a quote refused as expired keeps the cost, marked expired, by the answer's code whatever its words", async () => {
    fakeApi({
      "POST account/payments/quote": [200, { body: QUOTED }],
      "POST account/payments": [409, { error: "Your price ran out (reworded).", message: "", code: "quote_expired" }],
    });
    render(<PaymentForm {...PROPS} />);
    await settle();
    fireEvent.change(screen.getByLabelText("Amount you send (GBP), fee included"), { target: { value: "50.00" } });
    fireEvent.change(screen.getByLabelText("Reference for the recipient"), { target: { value: "Rent March" } });
    fireEvent.click(screen.getByRole("button", { name: "See the full cost" }));
    await settle();
    const cost = screen.getByRole("region", { name: "The full cost" });
    fireEvent.click(within(cost).getByRole("button", { name: "Confirm and pay" }));
    await settle();
    expect(screen.getAllByText(QUOTE_EXPIRED).length).toBeGreaterThan(0);
    expect(screen.queryByText("Your price ran out (reworded).")).toBeNull();
    expect(within(screen.getByRole("region", { name: "The full cost" })).getByText("This quote has expired."))
      .toBeTruthy();
  });

  test("another conflict (bank details changed) shows the server's words and drops the cost", async () => {
    const changed = "This recipient's bank details changed since this cost was shown. Get the full cost again to pay.";
    fakeApi({
      "POST account/payments/quote": [200, { body: QUOTED }],
      "POST account/payments": [409, { error: changed, message: "", code: "details_changed" }],
    });
    render(<PaymentForm {...PROPS} />);
    await settle();
    fireEvent.change(screen.getByLabelText("Amount you send (GBP), fee included"), { target: { value: "50.00" } });
    fireEvent.change(screen.getByLabelText("Reference for the recipient"), { target: { value: "Rent March" } });
    fireEvent.click(screen.getByRole("button", { name: "See the full cost" }));
    await settle();
    fireEvent.click(
      within(screen.getByRole("region", { name: "The full cost" })).getByRole("button", { name: "Confirm and pay" }),
    );
    await settle();
    expect(screen.getAllByText(changed).length).toBeGreaterThan(0);
    expect(screen.queryByText(QUOTE_EXPIRED)).toBeNull();
    expect(screen.queryByRole("region", { name: "The full cost" })).toBeNull();
  });

  test("a recipient deleted meanwhile (on confirming, or on asking the cost) is said so and no longer offered", async () => {
    const deleted = "This recipient was deleted. Choose another recipient.";
    const ana = { ...PROPS.recipients[0], id: 4, name: "Ana Lima", account_ending: "1234" };
    const ben = { ...PROPS.recipients[0], id: 5, name: "Ben Okoro", account_ending: "5678" };
    fakeApi({
      "POST account/payments/quote": [200, { body: QUOTED }],
      "POST account/payments": [409, { error: deleted, message: "", code: "recipient_deleted" }],
    });
    render(<PaymentForm {...PROPS} recipients={[...PROPS.recipients, ana, ben]} />);
    await settle();
    fireEvent.change(screen.getByLabelText("Amount you send (GBP), fee included"), { target: { value: "50.00" } });
    fireEvent.change(screen.getByLabelText("Reference for the recipient"), { target: { value: "Rent March" } });
    fireEvent.click(screen.getByRole("button", { name: "See the full cost" }));
    await settle();
    fireEvent.click(
      within(screen.getByRole("region", { name: "The full cost" })).getByRole("button", { name: "Confirm and pay" }),
    );
    await settle();
    expect(screen.getAllByText(deleted).length).toBeGreaterThan(0);
    const names = () =>
      within(screen.getByLabelText("Recipient")).getAllByRole("option").map((o) => o.textContent?.split(" · ")[0]);
    expect(names()).toEqual(["Ana Lima", "Ben Okoro"]);
    expect((screen.getByLabelText("Recipient") as HTMLSelectElement).value).toBe("4");

    // Ana was deleted too, before the cost was asked: the server does not know her any more.
    fakeApi({ "POST account/payments/quote": [404, { error: "There is no such recipient.", message: "" }] });
    fireEvent.click(screen.getByRole("button", { name: "See the full cost" }));
    await settle();
    expect(screen.getAllByText(deleted).length).toBeGreaterThan(0);
    expect(names()).toEqual(["Ben Okoro"]);
  });

  test("an amount to send above what is available is refused while typing, as the convert form does: no quote", async () => {
    const calls = fakeApi({
      "POST account/payments/quote": [200, { body: QUOTED }],
      "GET account/balances": [200, { body: PROPS.balances }],
    });
    render(<PaymentForm {...PROPS} />);
    await settle();
    fireEvent.change(screen.getByLabelText("Amount you send (GBP), fee included"), { target: { value: "5000.00" } });
    expect(screen.getByText("That is more than your available 500.00 GBP.")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "See the full cost" }));
    await settle();
    expect(calls.filter((c) => c.method === "POST")).toEqual([]);
    expect(screen.queryByRole("region", { name: "The full cost" })).toBeNull();
    fireEvent.change(screen.getByLabelText("Amount you send (GBP), fee included"), { target: { value: "500.00" } });
    expect(screen.queryByText("That is more than your available 500.00 GBP.")).toBeNull();
  });

  test("what they receive fixed: a cost debiting more than is available is shown, with why it cannot be confirmed", async () => {
    const calls = fakeApi({
      "POST account/payments/quote": [200, { body: { ...QUOTED, sell_amount: "601.00", buy_amount: "600.00" } }],
      "GET account/balances": [200, { body: PROPS.balances }],
    });
    render(<PaymentForm {...PROPS} />);
    await settle();
    fireEvent.change(screen.getByLabelText("Amount they receive (GBP)"), { target: { value: "600.00" } });
    fireEvent.change(screen.getByLabelText("Reference for the recipient"), { target: { value: "Rent" } });
    fireEvent.click(screen.getByRole("button", { name: "See the full cost" }));
    await settle();
    const cost = screen.getByRole("region", { name: "The full cost" });
    expect(within(cost).getByText("It would debit 601.00 GBP. That is more than your available 500.00 GBP."))
      .toBeTruthy();
    const pay = within(cost).getByRole("button", { name: "Confirm and pay" }) as HTMLButtonElement;
    expect(pay.disabled).toBe(true);
    fireEvent.click(pay);
    await settle();
    expect(calls.map((c) => `${c.method} ${c.path}`)).not.toContain("POST account/payments");
  });

  test("the full cost, then Confirm: the result says it waits for approval and the balances are read again", async () => {
    const { events: _events, ...made } = payment({
      sell_currency: "GBP",
      buy_currency: "GBP",
      rate: null,
      rate_held_until: null,
    });
    const calls = fakeApi({
      "POST account/payments/quote": [200, {
        body: {
          id: "pq-1",
          recipient_id: 3,
          sell_currency: "GBP",
          sell_amount: "50.00",
          buy_currency: "GBP",
          buy_amount: "49.00",
          fee: "1.00",
          fee_currency: "GBP",
          mid_rate: null,
          rate: null,
          markup: null,
          priority: false,
          rail: "faster_payments",
          rail_kind: "local",
          rail_name: "UK bank transfer (Faster Payments)",
          expected_arrival: "2030-01-01T00:00:00.000Z",
          reference_max: 18,
          expires_at: "2030-01-01T00:00:30.000Z",
        },
      }],
      "POST account/payments": [201, { body: made }],
      "GET account/balances": [200, { body: [{ currency: "GBP", available: "450.00", held: "50.00" }] }],
    });
    render(<PaymentForm {...PROPS} />);
    await settle();
    fireEvent.change(screen.getByLabelText("Amount you send (GBP), fee included"), { target: { value: "50.00" } });
    fireEvent.change(screen.getByLabelText("Reference for the recipient"), { target: { value: "Rent March" } });
    fireEvent.click(screen.getByRole("button", { name: "See the full cost" }));
    await settle();
    const cost = screen.getByRole("region", { name: "The full cost" });
    expect(within(cost).getByText("None: nothing is converted")).toBeTruthy();
    expect(calls[0].body).toEqual({
      recipient_id: 3,
      amount: "50.00",
      fixed: "send",
      sell_currency: "GBP",
      priority: false,
    });
    fireEvent.click(within(cost).getByRole("button", { name: "Confirm and pay" }));
    await settle();
    expect(calls[1].body).toEqual({ quote_id: "pq-1", reference: "Rent March" });
    expect(calls[1].headers.get(IDEMPOTENCY_HEADER)).toBeTruthy();
    expect(await screen.findByRole("heading", { name: "Your payment is waiting for approval" })).toBeTruthy();
    expect(screen.getByRole("link", { name: "Open the payment" }).getAttribute("href")).toBe(
      "/account/pendingpayments/5",
    );
    await settle(200);
    expect(calls.map((c) => `${c.method} ${c.path}`)).toContain("GET account/balances");
    expect(await screen.findByText("450.00")).toBeTruthy();
    // Nothing converted: no rate, and nothing is said of one.
    expect(screen.queryByText(/rate is guaranteed/)).toBeNull();
  });

  test("converted on the way and waiting: the payer is told at once until when its rate is guaranteed", async () => {
    const { events: _events, ...made } = payment();
    fakeApi({
      "POST account/payments/quote": [200, { body: QUOTED }],
      "POST account/payments": [201, { body: made }],
      "GET account/balances": [200, { body: PROPS.balances }],
    });
    render(<PaymentForm {...PROPS} />);
    await settle();
    fireEvent.change(screen.getByLabelText("Amount you send (GBP), fee included"), { target: { value: "50.00" } });
    fireEvent.change(screen.getByLabelText("Reference for the recipient"), { target: { value: "Invoice 42" } });
    fireEvent.click(screen.getByRole("button", { name: "See the full cost" }));
    await settle();
    fireEvent.click(
      within(screen.getByRole("region", { name: "The full cost" })).getByRole("button", { name: "Confirm and pay" }),
    );
    await settle();
    expect(await screen.findByRole("heading", { name: "Your payment is waiting for approval" })).toBeTruthy();
    expect(
      screen.getByText(
        "Its rate is guaranteed until 3 Mar 2026, 09:00 UTC while it waits for approval. After that it cannot be " +
          "approved, and must be prepared again at the day's rate.",
      ),
    ).toBeTruthy();
  });
});
