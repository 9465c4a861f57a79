import { and, asc, eq, like } from "drizzle-orm";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { auditLog } from "../../db/schema.ts";
import { consoleAlerts } from "../../db/schema-console.ts";
import { ledgerEntries, ledgerTransfers } from "../../db/schema-money.ts";
import { notifications, paymentEvents, payments } from "../../db/schema-payments.ts";
import { submitPayout } from "../../server/payouts/desk.ts";
import type { PayoutRail } from "../../server/payouts/rail.ts";
import { RESTRICTED_PAYOUT } from "../../lib/restriction.ts";
import { type Admin, expectStatus, TestClient } from "../helpers/client.ts";
import { latestEmail } from "../helpers/mailbox.ts";
import { decimalOf, expectLedgerSound, minorOf, type MoneyApp, moneyApp } from "../helpers/money.ts";
import {
  addRecipient,
  balanceOf,
  paid,
  type PaymentAccount,
  paymentAccount,
  paymentRowWrites,
} from "../helpers/payments.ts";

/**
 * The payout desk, one payment at a time (issue 8 item 7; decision 031): the queues of local rails
 * and SWIFT transfers; submit (paid out in the ledger, then the rail asked), complete (settled),
 * fail before and after sending (the customer gets everything back); the simulated rail refusing
 * when told to; a rail whose answer was lost; and the rules: who may, what twice means, bad input.
 * The ledger check runs after every step. SEPA files: payouts-batches.test.ts.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;
let account: PaymentAccount;
/** Recipients by rail: Faster Payments (GBP, UK), ACH (USD, US), SEPA (EUR, France), SWIFT (HKD, Hong Kong). */
let uk: number, us: number, france: number, hongKong: number;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  account = await paymentAccount(t, admin, { GBP: "10000.00", EUR: "10000.00" });
  uk = await addRecipient(t, account, { name: "Mary Smith", currency: "GBP", country: "GB" });
  us = await addRecipient(t, account, { name: "John Doe", currency: "USD", country: "US" });
  france = await addRecipient(t, account, {
    name: "Jean Dupont",
    currency: "EUR",
    country: "FR",
    details: { iban: "FR1420041010050500013M02606", bic: "PSSTFRPPXXX" },
  });
  hongKong = await addRecipient(t, account, { name: "Wong Ka Ho", currency: "HKD", country: "HK" });
});

const pay = (recipient: number, amount: string, currency = "GBP") =>
  paid(account.owner.client, { recipient_id: recipient, amount, sell_currency: currency });

const desk = () => admin.client;
const submit = (id: number, body: Record<string, unknown> = {}) => desk().post(`console/payouts/${id}/submit`, body);
const complete = (id: number) => desk().post(`console/payouts/${id}/complete`);
const fail = (id: number, reason?: string) =>
  desk().post(`console/payouts/${id}/fail`, reason === undefined ? {} : { reason });

async function queue(query: string) {
  const res = await desk().get(`console/payouts?${query}`);
  expectStatus(res, 200);
  return res.json.body as { items: { id: number }[]; total: number; as_of: string; rail_note: string };
}

/** What the customer sees of a payment: its status and timeline. */
async function customerSees(id: number) {
  const res = await account.owner.client.get(`account/payments/${id}`);
  expectStatus(res, 200);
  return res.json.body as { status: string; reason: string | null; events: { event: string }[] };
}

const noticesOf = async (paymentId: number) =>
  (await t.db.select().from(notifications).where(
    and(eq(notifications.userId, account.owner.id), eq(notifications.link, `/account/pendingpayments/${paymentId}`)),
  ).orderBy(asc(notifications.id))).map((n) => n.kind);

/** The entries of a payment's movement, by ledger account: payment:<id>:<step>. */
async function entriesOf(paymentId: number, step: string) {
  const rows = await t.db.select({ account: ledgerEntries.ledgerAccountId, amount: ledgerEntries.amount })
    .from(ledgerEntries).innerJoin(ledgerTransfers, eq(ledgerTransfers.id, ledgerEntries.transferId))
    .where(eq(ledgerTransfers.reference, `payment:${paymentId}:${step}`));
  return Object.fromEntries(rows.map((r) => [r.account, r.amount]));
}

const auditOf = async (paymentId: number) =>
  (await t.db.select().from(auditLog).where(like(auditLog.action, "payout.%")).orderBy(asc(auditLog.id)))
    .filter((row) => (row.after as { payment_id?: number } | null)?.payment_id === paymentId)
    .map((row) => ({ action: row.action, actor: row.actorId }));

describe("the queues", () => {
  test("local rails on /console/local, SWIFT transfers on /console/transfer, each with whose and to whom", async () => {
    const gbp = await pay(uk, "20.00");
    const usd = await pay(us, "30.00");
    const hkd = await pay(hongKong, "40.00");
    const local = await queue("rail=local");
    const ids = local.items.map((p) => p.id);
    expect(ids).toEqual(expect.arrayContaining([gbp.id, usd.id]));
    expect(ids).not.toContain(hkd.id);
    expect(local.items.find((p) => p.id === gbp.id)).toMatchObject({
      status: "approved",
      rail: "faster_payments",
      rail_kind: "local",
      customer: { account_id: account.accountId, account_ref: account.owner.accountRef },
      created_by: { id: account.owner.id },
      recipient: { name: "Mary Smith", currency: "GBP", country: "GB" },
      sell_amount: "20.00",
      sell_currency: "GBP",
      buy_currency: "GBP",
      reference: "Invoice 17",
      actions: { submit: true, complete: false, fail: true, note: null },
    });
    expect(local.rail_note).toContain("simulated rail");
    const transfer = await queue("rail=transfer");
    expect(transfer.items.map((p) => p.id)).toContain(hkd.id);
    expect(transfer.items.map((p) => p.id)).not.toContain(gbp.id);
  });

  test("filtered by status and payout currency; work to do oldest first", async () => {
    const a = await pay(uk, "21.00");
    const b = await pay(us, "22.00");
    const usdOnly = await queue("rail=local&currency=usd");
    expect(usdOnly.items.every((p) => (p as unknown as { buy_currency: string }).buy_currency === "USD")).toBe(true);
    expect(usdOnly.items.map((p) => p.id)).toContain(b.id);
    expect(usdOnly.items.map((p) => p.id)).not.toContain(a.id);
    const approved = await queue("rail=local&status=approved");
    const order = approved.items.map((p) => p.id);
    expect(order).toEqual([...order].sort((x, y) => x - y));
    expectStatus(await submit(a.id), 200);
    expect((await queue("rail=local&status=approved")).items.map((p) => p.id)).not.toContain(a.id);
    expect((await queue("rail=local&status=submitted")).items.map((p) => p.id)).toContain(a.id);
    expect((await queue("rail=local")).items.map((p) => p.id), "no status: approved and submitted").toContain(a.id);
    await expectLedgerSound(t.db);
  });

  test("a query that breaks the rules is refused, naming it", async () => {
    const res = await desk().get("console/payouts?rail=abroad&status=lost&currency=XXX");
    expectStatus(res, 422);
    expect(Object.keys(res.json.fields).sort()).toEqual(["currency", "rail", "status"]);
  });
});

describe("one payment through the desk", () => {
  test("submit: the held money is paid out, the rail gives its reference, the customer is told it is sent", async () => {
    const before = await balanceOf(account.owner.client, "GBP");
    const p = await pay(uk, "100.00");
    expect(await balanceOf(account.owner.client, "GBP")).toMatchObject({ held: plus(before.held, "100.00") });
    const res = await submit(p.id);
    expectStatus(res, 200);
    expect(res.json.body.refused).toBeNull();
    expect(res.json.body.payment).toMatchObject({
      id: p.id,
      status: "submitted",
      rail_reference: `SIM-${p.id}`,
      actions: { submit: false, complete: true, fail: true },
    });
    // The held money left: held back where it was, available down by the payment.
    expect(await balanceOf(account.owner.client, "GBP")).toEqual({
      available: minus(before.available, "100.00"),
      held: before.held,
    });
    expect(Object.keys(await entriesOf(p.id, "payout")).length).toBeGreaterThan(0);
    await expectLedgerSound(t.db);
    const seen = await customerSees(p.id);
    expect(seen.status).toBe("submitted");
    expect(seen.events.map((e) => e.event)).toEqual(["created", "submitted"]);
    expect(await noticesOf(p.id)).toEqual(["payment_sent"]);
    expect(await auditOf(p.id)).toEqual([
      { action: "payout.submit", actor: admin.id },
      { action: "payout.sent", actor: admin.id },
    ]);
  });

  test("submit changes the payment's row once to send it (status, payout, arrival), then once for the rail's reference", async () => {
    const p = await pay(uk, "101.00");
    const writes = await paymentRowWrites(t.db, async () => expectStatus(await submit(p.id), 200));
    expect(writes).toEqual([p.id, p.id]);
    const [row] = await t.db.select().from(payments).where(eq(payments.id, p.id));
    expect(row).toMatchObject({ status: "submitted", railReference: `SIM-${p.id}` });
    expect(row.payoutTransferId).not.toBeNull();
    expect(row.expectedArrival).not.toBeNull();
  });

  test("complete: the payout settles; the customer is told it arrived", async () => {
    const p = await pay(us, "50.00");
    expectStatus(await submit(p.id), 200);
    const res = await complete(p.id);
    expectStatus(res, 200);
    expect(res.json.body.payment).toMatchObject({
      status: "completed",
      actions: { submit: false, complete: false, fail: false },
    });
    expect(Object.keys(await entriesOf(p.id, "settlement")).length).toBe(2);
    await expectLedgerSound(t.db);
    expect((await customerSees(p.id)).status).toBe("completed");
    expect(await noticesOf(p.id)).toEqual(["payment_sent", "payment_arrived"]);
    expect((await auditOf(p.id)).map((a) => a.action)).toEqual(["payout.submit", "payout.sent", "payout.complete"]);
  });

  test("fail before it was sent: the hold is released, the balance is back in full", async () => {
    const before = await balanceOf(account.owner.client, "GBP");
    const p = await pay(uk, "75.00");
    const res = await fail(p.id, "The recipient's bank account is closed.");
    expectStatus(res, 200);
    expect(res.json.body.payment).toMatchObject({
      status: "failed",
      reason: "The recipient's bank account is closed.",
    });
    expect(await balanceOf(account.owner.client, "GBP")).toEqual(before);
    expect(Object.keys(await entriesOf(p.id, "release")).length).toBe(2);
    expect(await entriesOf(p.id, "payout")).toEqual({});
    await expectLedgerSound(t.db);
    expect(await customerSees(p.id)).toMatchObject({
      status: "failed",
      reason: "The recipient's bank account is closed.",
    });
    expect(await noticesOf(p.id)).toEqual(["payment_failed"]);
  });

  test("fail after it was sent: the payout is reversed entry by entry, the fee and the conversion included", async () => {
    const before = await balanceOf(account.owner.client, "GBP");
    // GBP to a USD recipient: a fee, and a conversion booked when it is sent.
    const p = await pay(us, "80.00");
    expectStatus(await submit(p.id), 200);
    expectStatus(await fail(p.id, "Returned by the beneficiary bank."), 200);
    expect(await balanceOf(account.owner.client, "GBP")).toEqual(before);
    const payout = await entriesOf(p.id, "payout");
    const refund = await entriesOf(p.id, "refund");
    // The held account took the payout; the balance takes the refund: every other entry is reversed exactly.
    const held = Object.keys(payout).find((id) => !(id in refund))!;
    const balance = Object.keys(refund).find((id) => !(id in payout))!;
    expect(payout[held]).toBe(-8000);
    expect(refund[balance]).toBe(8000);
    for (const id of Object.keys(payout).filter((id) => id !== held)) expect(refund[id]).toBe(-payout[id]);
    expect(Object.keys(payout).length).toBeGreaterThanOrEqual(4);
    await expectLedgerSound(t.db);
    expect(await noticesOf(p.id)).toEqual(["payment_sent", "payment_failed"]);
    expect((await auditOf(p.id)).map((a) => a.action)).toEqual(["payout.submit", "payout.sent", "payout.fail"]);
  });

  test("the simulated rail refuses a payment when told to: it fails at once and the money is back", async () => {
    const before = await balanceOf(account.owner.client, "GBP");
    const p = await pay(uk, "60.00");
    await t.services.emailOutbox.drain();
    const res = await submit(p.id, { simulate_refusal: "Account closed (AC04)." });
    expectStatus(res, 200);
    expect(res.json.body.refused).toBe("Account closed (AC04).");
    expect(res.json.body.payment).toMatchObject({
      status: "failed",
      reason: "Refused by the simulated rail: Account closed (AC04).",
      rail_reference: null,
    });
    expect(await balanceOf(account.owner.client, "GBP")).toEqual(before);
    await expectLedgerSound(t.db);
    // Never accepted by the rail, it was never sent: its timeline does not say it was.
    expect((await customerSees(p.id)).events.map((e) => e.event)).toEqual(["created", "failed"]);
    expect((await auditOf(p.id)).map((a) => a.action)).toEqual(["payout.submit", "payout.refused"]);
    // It never went on its way: the customer is told only that it failed and the money is back.
    expect(await noticesOf(p.id)).toEqual(["payment_failed"]);
    await t.services.emailOutbox.drain();
    const mail = await latestEmail(t.db, account.owner.email);
    expect(mail?.subject).toMatch(/failed/i);
    expect(mail?.text).toContain("60.00 GBP is back in your balance");
    expect(mail?.text).not.toContain("on its way");
    // The rail refused it, not the administrator who sent it: its alert names nobody, any
    // administrator resolves it.
    const [alert] = await t.db.select().from(consoleAlerts).where(eq(consoleAlerts.dedupeKey, `payout_failed:${p.id}`));
    expect(alert).toMatchObject({ severity: "critical", createdBy: null });
  });

  test("a rail whose answer is lost: the payment stays sent, cannot be completed or failed, and is asked again", async () => {
    const p = await pay(uk, "45.00");
    const lost: PayoutRail = { name: "flaky rail", submit: () => Promise.reject(new Error("connection reset")) };
    await expect(submitPayout(t.db, lost, { paymentId: p.id, adminId: admin.id, now: new Date(t.clock.now()) }))
      .rejects.toThrow("connection reset");
    const [row] = await t.db.select().from(payments).where(eq(payments.id, p.id));
    expect([row.status, row.railReference]).toEqual(["submitted", null]);
    // Not told it is on its way before the rail has it: the rail may yet refuse it.
    expect(await noticesOf(p.id)).toEqual([]);
    expect((await customerSees(p.id)).events.map((e) => e.event)).toEqual(["created"]);
    await expectLedgerSound(t.db);
    const listed = (await queue("rail=local&status=submitted")).items.find((x) => x.id === p.id);
    expect(listed).toMatchObject({ actions: { submit: true, complete: false, fail: false } });
    expect((listed as unknown as { actions: { note: string } }).actions.note).toMatch(/has not confirmed/);
    expectStatus(await complete(p.id), 409);
    expectStatus(await fail(p.id, "Gave up."), 409);
    // Submit asks the rail again; the payment is paid out once.
    const again = await submit(p.id);
    expectStatus(again, 200);
    expect(again.json.body.payment).toMatchObject({ status: "submitted", rail_reference: `SIM-${p.id}` });
    expect(await noticesOf(p.id)).toEqual(["payment_sent"]);
    expect((await customerSees(p.id)).events.map((e) => e.event)).toEqual(["created", "submitted"]);
    const transfers = await t.db.select().from(ledgerTransfers).where(
      like(ledgerTransfers.reference, `payment:${p.id}:%`),
    );
    expect(transfers.map((tr) => tr.kind).sort()).toEqual(["payment_hold", "payment_payout"]);
    expectStatus(await complete(p.id), 200);
    await expectLedgerSound(t.db);
  });
});

describe("the rules", () => {
  test("SEPA payments are not submitted one by one: they go out in a file", async () => {
    const p = await pay(france, "10.00", "EUR");
    const res = await submit(p.id);
    expectStatus(res, 409);
    expect(res.json.error).toMatch(/SEPA file/);
    expect((await queue("rail=local&status=approved")).items.find((x) => x.id === p.id)).toMatchObject({
      actions: { submit: false, fail: true },
    });
  });

  test("twice is once: a second submit, complete or fail is a conflict and moves nothing", async () => {
    const p = await pay(uk, "12.00");
    expectStatus(await submit(p.id), 200);
    const again = await submit(p.id);
    expectStatus(again, 409);
    expect(again.json.error).toBe(`Payment ${p.id} cannot be sent: it has been sent already.`);
    expectStatus(await complete(p.id), 200);
    expectStatus(await complete(p.id), 409);
    // Each status is said as a sentence, not as its name lower-cased ("it is arrived").
    const late = await fail(p.id, "Too late.");
    expectStatus(late, 409);
    expect(late.json.error).toBe(`Payment ${p.id} cannot be marked failed: it has arrived.`);
    const cancelled = await account.owner.client.post(`account/payments/${p.id}/cancel`, {});
    expectStatus(cancelled, 409);
    expect(cancelled.json.error).toBe("This payment can no longer be cancelled: it has arrived.");
    const transfers = await t.db.select().from(ledgerTransfers).where(
      like(ledgerTransfers.reference, `payment:${p.id}:%`),
    );
    expect(transfers.map((tr) => tr.kind).sort()).toEqual(["payment_hold", "payment_payout", "payment_settlement"]);
    await expectLedgerSound(t.db);
  });

  test("the same request with the same Idempotency-Key is answered once, the same way", async () => {
    const p = await pay(uk, "13.00");
    const key = { "Idempotency-Key": crypto.randomUUID() };
    const first = await desk().post(`console/payouts/${p.id}/submit`, {}, key);
    const second = await desk().post(`console/payouts/${p.id}/submit`, {}, key);
    expectStatus(first, 200);
    expectStatus(second, 200);
    expect(second.headers.get("Idempotent-Replayed")).toBe("true");
    expect(second.json).toEqual(first.json);
    expect(await noticesOf(p.id)).toEqual(["payment_sent"]);
  });

  test("two administrators submitting at once send the payment once", async () => {
    const p = await pay(uk, "14.00");
    const [a, b] = await Promise.all([submit(p.id), submit(p.id)]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const events = await t.db.select().from(paymentEvents).where(eq(paymentEvents.paymentId, p.id));
    expect(events.filter((e) => e.event === "submitted")).toHaveLength(1);
    await expectLedgerSound(t.db);
  });

  test("a failure needs its reason; an unknown payment is not found", async () => {
    const p = await pay(uk, "15.00");
    const noReason = await fail(p.id, "  ");
    expectStatus(noReason, 422);
    expect(noReason.json.fields).toEqual({ reason: "Say why the payment failed: the customer reads it." });
    expectStatus(await fail(p.id), 422);
    expectStatus(await submit(999_999), 404);
    expectStatus(await complete(999_999), 404);
    expectStatus(await submit(p.id, { simulate_refusal: "x".repeat(301) }), 422);
    expect((await customerSees(p.id)).status).toBe("approved");
  });

  test("only administrators: customers and visitors get 'not found' from every desk call and page", async () => {
    const p = await pay(uk, "16.00");
    const visitor = new TestClient(t);
    const calls: [string, string, unknown?][] = [
      ["GET", "console/payouts?rail=local"],
      ["POST", `console/payouts/${p.id}/submit`, {}],
      ["POST", `console/payouts/${p.id}/complete`, {}],
      ["POST", `console/payouts/${p.id}/fail`, { reason: "No." }],
      ["POST", "console/payouts/batches", { scheme: "sepa" }],
      ["GET", "console/payouts/batches"],
      ["GET", "console/payouts/batches/1/file"],
      ["GET", "/console/local"],
      ["GET", "/console/transfer"],
    ];
    for (const client of [account.owner.client, visitor]) {
      for (const [method, path, body] of calls) {
        const res = await client.request(method, path, body);
        expect(res.status, `${method} ${path}`).toBe(404);
      }
    }
    expect((await customerSees(p.id)).status).toBe("approved");
  });
});

const plus = (a: string, b: string) => decimalOf(minorOf(a, 2) + minorOf(b, 2), 2);
const minus = (a: string, b: string) => decimalOf(minorOf(a, 2) - minorOf(b, 2), 2);

describe("a restricted customer's payment (decision 048, amended)", () => {
  type Row = { id: number; customer: { restricted: boolean }; actions: { submit: boolean; note: string | null } };
  const restrict = (reason: string) => admin.client.post(`console/users/${account.owner.id}/restrict`, { reason });
  const lift = (reason: string) => admin.client.delete(`console/users/${account.owner.id}/restrict`, { reason });

  test("the desk shows the customer restricted, refuses to send it, and compliance lifts or fails it", async () => {
    const held = await pay(uk, "12.00");
    const failed = await pay(uk, "13.00");
    expectStatus(await restrict("Payment under review"), 200);
    const rows = (await queue("rail=local")).items as unknown as Row[];
    const shown = rows.find((p) => p.id === held.id)!;
    expect(shown.customer.restricted).toBe(true);
    expect(shown.actions).toMatchObject({ submit: false, note: RESTRICTED_PAYOUT });
    const page = await admin.client.get("/console/local");
    expect(page.text).toContain('data-restricted="payout"');

    const refused = await submit(held.id);
    expectStatus(refused, 409);
    expect(refused.json.error).toBe(RESTRICTED_PAYOUT);
    expect((await customerSees(held.id)).status).toBe("approved");
    expectStatus(await fail(failed.id, "Compliance: source of funds not shown"), 200);

    expectStatus(await lift("Source of funds shown"), 200);
    const after = ((await queue("rail=local")).items as unknown as Row[]).find((p) => p.id === held.id)!;
    expect(after).toMatchObject({ customer: { restricted: false }, actions: { submit: true } });
    expectStatus(await submit(held.id), 200);
    await expectLedgerSound(t.db);
  });
});
