import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { auditLog, emails } from "../../db/schema.ts";
import { consoleAlerts } from "../../db/schema-console.ts";
import type { AlertKind } from "../../lib/alerts.ts";
import { JOBS } from "../../app.ts";
import {
  alertUnmatchedReceipts,
  unmatchedReceiptsJob,
  unmatchedReceiptsSchedule,
} from "../../server/alerts/triggers.ts";
import { type Admin, anotherAdmin, expectStatus, HOUR, personalProfile, registerCustomer } from "../helpers/client.ts";
import { customerWithoutAccount, type MoneyApp, moneyApp, openCustomer, postReceipt } from "../helpers/money.ts";
import { addRecipient, paid, type PaymentAccount, paymentAccount } from "../helpers/payments.ts";
import { asSent, codeIn, linkIn } from "../helpers/mailbox.ts";
import { CODE_REMOVED, LINK_REMOVED } from "../../server/mail/redact.ts";
import { SECURITY_RESEND_REFUSED } from "../../server/mail/console.ts";
import { DISABLED_ASSIGNEE } from "../../server/alerts/console.ts";

/**
 * The console's alerts (issue 11 item 3, decision 045): each event that needs an administrator
 * raises one alert, once, in the transaction of the event; an administrator gives it to someone
 * and resolves it with a note; each write is audited; nobody else sees any of it.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;
let second: Admin;
let account: PaymentAccount;
let uk: number;

beforeAll(async () => {
  ({ t, admin } = await moneyApp({ env: { ALERT_PAYMENT_GBP: "1000" } }));
  second = await anotherAdmin(t);
  account = await paymentAccount(t, admin, { GBP: "20000.00" });
  uk = await addRecipient(t, account, { name: "Mary Smith", currency: "GBP", country: "GB" });
});

/** The alerts of a kind whose subject has `key` = `value`. */
async function alertsAbout(kind: AlertKind, key: string, value: number) {
  return await t.db.select().from(consoleAlerts).where(
    and(eq(consoleAlerts.kind, kind), sql`json_extract(${consoleAlerts.subject}, ${`$.${key}`}) = ${value}`),
  );
}

const pay = (amount: string) => paid(account.owner.client, { recipient_id: uk, amount, sell_currency: "GBP" });

describe("alerts are raised by themselves, once each", () => {
  test("a payment above ALERT_PAYMENT_GBP raises a large_payment alert; one below it does not", async () => {
    const large = await pay("1500.00");
    const small = await pay("900.00");
    const raised = await alertsAbout("large_payment", "payment_id", large.id);
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ severity: "warning", resolvedAt: null, createdBy: null });
    // Named, not numbered: who paid how much to whom (decision 057), and on which payout desk.
    expect(raised[0].message).toBe(
      "Ada Lovelace paid 1500.00 GBP to Mary Smith, above the 1000 GBP that needs a second look.",
    );
    expect(raised[0].subject).toMatchObject({ payment_id: large.id, desk: "local" });
    expect(await alertsAbout("large_payment", "payment_id", small.id)).toHaveLength(0);
  });

  test("the threshold is set in the console, audited, and the next payment is judged by it", async () => {
    const shown = await admin.client.get("console/alerts/threshold");
    expectStatus(shown, 200);
    expect(shown.json.body).toEqual({ gbp: 1000 });
    const bad = await admin.client.put("console/alerts/threshold", { gbp: "12.5" });
    expectStatus(bad, 422);
    expect(bad.json.fields).toHaveProperty("gbp");
    expectStatus(await account.owner.client.put("console/alerts/threshold", { gbp: "1" }), 404);

    const set = await admin.client.put("console/alerts/threshold", { gbp: "5000" });
    expectStatus(set, 200);
    expect(set.json.body).toEqual({ gbp: 5000 });
    const [entry] = await t.db.select().from(auditLog).where(eq(auditLog.action, "alerts.threshold"));
    expect(entry).toMatchObject({ actorId: admin.id, before: { gbp: 1000 }, after: { gbp: 5000 } });
    // 1,500 GBP was large under the environment's 1,000; not under 5,000.
    const under = await pay("1500.00");
    expect(await alertsAbout("large_payment", "payment_id", under.id)).toHaveLength(0);
    expectStatus(await admin.client.put("console/alerts/threshold", { gbp: "1000" }), 200);
  });

  test("a payment call retried with its Idempotency-Key raises its alert once", async () => {
    const quoted = await account.owner.client.post("account/payments/quote", {
      fixed: "send",
      priority: false,
      recipient_id: uk,
      amount: "1200.00",
      sell_currency: "GBP",
    });
    expectStatus(quoted, 200);
    const body = { quote_id: quoted.json.body.id, reference: "Invoice 99" };
    const headers = { "Idempotency-Key": crypto.randomUUID() };
    const first = await account.owner.client.post("account/payments", body, headers);
    const again = await account.owner.client.post("account/payments", body, headers);
    expectStatus(first, 201);
    expect(again.json.body.id).toBe(first.json.body.id);
    expect(await alertsAbout("large_payment", "payment_id", first.json.body.id)).toHaveLength(1);
  });

  test("a failed payout raises a critical payout_failed alert with the reason", async () => {
    const payment = await pay("50.00");
    const failed = await admin.client.post(`console/payouts/${payment.id}/fail`, { reason: "Account closed" });
    expectStatus(failed, 200);
    const raised = await alertsAbout("payout_failed", "payment_id", payment.id);
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ severity: "critical" });
    expect(raised[0].message).toBe("Ada Lovelace's payment of 50.00 GBP to Mary Smith failed: Account closed");
  });

  test("a payout an administrator failed names them, and is for another administrator to resolve", async () => {
    const payment = await pay("51.00");
    expectStatus(await admin.client.post(`console/payouts/${payment.id}/fail`, { reason: "Account closed" }), 200);
    const [raised] = await alertsAbout("payout_failed", "payment_id", payment.id);
    expect(raised).toMatchObject({ createdBy: admin.id, resolvedAt: null });
    const listed = await admin.client.get("console/alerts?status=open&kind=payout_failed&per_page=100");
    expect((listed.json.body.items as { id: number }[]).find((a) => a.id === raised.id)).toMatchObject({
      raised_by: { id: admin.id, email: admin.email },
    });

    const own = await admin.client.post(`console/alerts/${raised.id}/resolve`, { note: "Told the customer." });
    expectStatus(own, 409);
    expect(own.json.error).toBe("Your own action raised this alert: another administrator resolves it.");
    const screen = (await admin.client.get("/console/alerts")).text;
    expect(screen).not.toContain(`aria-label="Resolve alert ${raised.id}"`);
    expect((await second.client.get("/console/alerts")).text).toContain(`aria-label="Resolve alert ${raised.id}"`);
    expectStatus(await second.client.post(`console/alerts/${raised.id}/resolve`, { note: "Told the customer." }), 200);
  });

  test("an identity check the provider asks to retry raises an identity_check alert once, however often it is read", async () => {
    const customer = await registerCustomer(t);
    expectStatus(await customer.client.post("account/profile", personalProfile()), 200);
    expectStatus(await customer.client.post("sumsub/sandbox", { answer: "RED", reject_type: "RETRY" }), 200);
    // Confirming reads the verdict again (and refuses): still one alert.
    expectStatus(await customer.client.get("sumsub/confirm"), 422);
    expectStatus(await customer.client.get("sumsub/confirm"), 422);
    const raised = await alertsAbout("identity_check", "user_id", customer.id);
    expect(raised).toHaveLength(1);
    expect(raised[0].subject).toMatchObject({ status: "retry" });
  });

  test("a customer left waiting for the compliance review raises a compliance_review alert; one whose account opened does not", async () => {
    const waiting = await customerWithoutAccount(t);
    expect(await alertsAbout("compliance_review", "user_id", waiting.id)).toHaveLength(1);
    // Confirming again (a reload of /processing) raises nothing more.
    expectStatus(await waiting.client.get("sumsub/confirm"), 200);
    expect(await alertsAbout("compliance_review", "user_id", waiting.id)).toHaveLength(1);
    const opened = await openCustomer(t);
    expect(await alertsAbout("compliance_review", "user_id", opened.id)).toHaveLength(0);
  });

  test("a compliance_review alert closes by itself when the account opens, naming who opened it", async () => {
    const waiting = await customerWithoutAccount(t);
    const [before] = await alertsAbout("compliance_review", "user_id", waiting.id);
    expect(before.message).not.toMatch(/Customer \d/);
    expect(before.resolvedAt).toBeNull();
    const opened = await admin.client.post(`console/users/${waiting.id}/open-account`, {
      compliance: { done: true, amount: "100000", date: t.clock.today() },
    });
    expectStatus(opened, 200);
    const [after] = await alertsAbout("compliance_review", "user_id", waiting.id);
    expect(after).toMatchObject({ resolvedBy: admin.id, resolutionNote: "Closed by itself: the account opened." });
    expect(after.resolvedAt).not.toBeNull();
  });

  test("a receipt unmatched for more than a day raises an unmatched_receipt alert, once over the job's runs", async () => {
    const res = await postReceipt(t, admin, { amount: "75.00", currency: "GBP", reference: "no ref here" });
    expectStatus(res, 201);
    expect(res.json.body.status).toBe("unmatched");
    const id = res.json.body.id as number;
    await alertUnmatchedReceipts(t.db, new Date(t.clock.now() + 23 * HOUR));
    expect(await alertsAbout("unmatched_receipt", "receipt_id", id), "not before a day").toHaveLength(0);
    await alertUnmatchedReceipts(t.db, new Date(t.clock.now() + 25 * HOUR));
    await alertUnmatchedReceipts(t.db, new Date(t.clock.now() + 26 * HOUR));
    expect(await alertsAbout("unmatched_receipt", "receipt_id", id)).toHaveLength(1);

    // Allocated: the alert closes by itself, in the allocation's transaction.
    const allocated = await admin.client.post(`console/receipts/${id}/allocate`, {
      account_ref: account.owner.accountRef,
    });
    expectStatus(allocated, 200);
    const [closed] = await alertsAbout("unmatched_receipt", "receipt_id", id);
    expect(closed).toMatchObject({
      resolvedBy: admin.id,
      resolutionNote: `Closed by itself: allocated to ${account.owner.accountRef}.`,
    });
  });

  test("the look for unmatched receipts is a job the runner knows, queued every hour", () => {
    expect(JOBS).toContain(unmatchedReceiptsJob);
    expect(unmatchedReceiptsSchedule).toMatchObject({ pattern: "15 * * * *", catchUp: true });
  });
});

describe("an administrator assigns and resolves alerts", () => {
  test("GET console/alerts lists the open ones; assign gives one to an administrator; resolve closes it with a note", async () => {
    const payment = await pay("2000.00");
    const [raised] = await alertsAbout("large_payment", "payment_id", payment.id);

    const open = await admin.client.get("console/alerts?per_page=100");
    expectStatus(open, 200);
    const listed = (open.json.body.items as { id: number }[]).find((a) => a.id === raised.id);
    expect(listed).toMatchObject({ kind: "large_payment", assigned_to: null, resolved_at: null });

    const assigned = await admin.client.post(`console/alerts/${raised.id}/assign`, { admin_id: second.id });
    expectStatus(assigned, 200);
    expect(assigned.json.body.assigned_to).toEqual({ id: second.id, email: second.email });

    const resolved = await second.client.post(`console/alerts/${raised.id}/resolve`, {
      note: "Called the customer: a house purchase.",
    });
    expectStatus(resolved, 200);
    expect(resolved.json.body).toMatchObject({
      resolved_by: { id: second.id, email: second.email },
      resolution_note: "Called the customer: a house purchase.",
      resolved_at: expect.any(String),
    });

    const after = await admin.client.get("console/alerts?status=open&per_page=100");
    expect((after.json.body.items as { id: number }[]).map((a) => a.id)).not.toContain(raised.id);
    const done = await admin.client.get(`console/alerts?status=resolved&assigned_to=${second.id}`);
    expect((done.json.body.items as { id: number }[]).map((a) => a.id)).toContain(raised.id);

    const again = await admin.client.post(`console/alerts/${raised.id}/resolve`, { note: "Twice" });
    expectStatus(again, 409);

    const trail = await t.db.select().from(auditLog).where(eq(auditLog.action, "alert.resolve"));
    expect(trail.some((e) => e.actorId === second.id && (e.after as { id: number }).id === raised.id)).toBe(true);
  });

  test("a large payment an administrator made on a customer's behalf is for another administrator to resolve", async () => {
    expectStatus(await admin.client.post("account/onbehalf", { on_behalf_of: account.owner.id }), 200);
    let payment: { id: number };
    try {
      payment = await paid(admin.client, { recipient_id: uk, amount: "1100.00", sell_currency: "GBP" });
    } finally {
      expectStatus(await admin.client.delete("account/onbehalf"), 200);
    }
    const [raised] = await alertsAbout("large_payment", "payment_id", payment.id);
    expect(raised).toMatchObject({ createdBy: admin.id, resolvedAt: null });

    const own = await admin.client.post(`console/alerts/${raised.id}/resolve`, { note: "Looks fine to me." });
    expectStatus(own, 409);
    expect(own.json.error).toBe("Your own action raised this alert: another administrator resolves it.");
    // The screen knows it before anyone tries: the list names who raised it, and the administrator
    // who did is told instead of being offered Resolve.
    const listed = await admin.client.get("console/alerts?status=open&per_page=100");
    expect((listed.json.body.items as { id: number }[]).find((a) => a.id === raised.id)).toMatchObject({
      raised_by: { id: admin.id, email: admin.email },
    });
    const screen = (await admin.client.get("/console/alerts")).text;
    expect(screen).toContain("Your own action raised this alert: another administrator resolves it.");
    expect(screen).not.toContain(`aria-label="Resolve alert ${raised.id}"`);
    expect((await second.client.get("/console/alerts")).text).toContain(`aria-label="Resolve alert ${raised.id}"`);

    const checked = await second.client.post(`console/alerts/${raised.id}/resolve`, {
      note: "Checked with the customer.",
    });
    expectStatus(checked, 200);
    expect(checked.json.body.resolved_by).toEqual({ id: second.id, email: second.email });
  });

  test("refusals: a note is required, the assignee must be an administrator, an unknown alert is 404", async () => {
    const payment = await pay("3000.00");
    const [raised] = await alertsAbout("large_payment", "payment_id", payment.id);
    const noNote = await admin.client.post(`console/alerts/${raised.id}/resolve`, { note: "  " });
    expectStatus(noNote, 422);
    expect(noNote.json.fields).toHaveProperty("note");
    const customer = await admin.client.post(`console/alerts/${raised.id}/assign`, { admin_id: account.owner.id });
    expectStatus(customer, 422);
    expect(customer.json.fields).toHaveProperty("admin_id");
    expectStatus(await admin.client.post(`console/alerts/999999/resolve`, { note: "x" }), 404);
    const [still] = await t.db.select().from(consoleAlerts).where(eq(consoleAlerts.id, raised.id));
    expect(still).toMatchObject({ resolvedAt: null, assignedTo: null });
  });

  test("only an active administrator is given an alert: a disabled one is refused naming admin_id, and not offered", async () => {
    const gone = await anotherAdmin(t);
    expectStatus(await admin.client.delete(`console/admins/${gone.id}`), 200);
    const payment = await pay("3100.00");
    const [raised] = await alertsAbout("large_payment", "payment_id", payment.id);
    const refused = await admin.client.post(`console/alerts/${raised.id}/assign`, { admin_id: gone.id });
    expectStatus(refused, 422);
    expect(refused.json.fields).toEqual({ admin_id: DISABLED_ASSIGNEE });
    const [still] = await t.db.select().from(consoleAlerts).where(eq(consoleAlerts.id, raised.id));
    expect(still.assignedTo).toBe(null);

    // The screen offers only active administrators, the signed-in one chosen first.
    const page = await second.client.get("/console/alerts");
    expectStatus(page, 200);
    const select = page.text.match(new RegExp(`<select id="assignee-${raised.id}"[^>]*>(.*?)</select>`))?.[1] ?? "";
    expect(select).not.toBe("");
    expect(select).not.toContain(gone.email);
    expect(select).toMatch(new RegExp(`<option value="${second.id}" selected="">`));
  });

  test("a bad status filter is refused naming the field", async () => {
    const res = await admin.client.get("console/alerts?status=closed");
    expectStatus(res, 422);
    expect(res.json.fields).toHaveProperty("status");
    const kind = await admin.client.get("console/alerts?kind=weather");
    expectStatus(kind, 422);
    expect(kind.json.fields).toHaveProperty("kind");
  });

  test("filtered by kind and by assignee, a page at a time with the total (no silent stop)", async () => {
    for (const amount of ["1100.00", "1200.00", "1300.00"]) await pay(amount);
    const all = await admin.client.get("console/alerts?status=all&kind=large_payment&per_page=100");
    expectStatus(all, 200);
    const total = all.json.body.total as number;
    expect(total).toBeGreaterThanOrEqual(3);
    expect((all.json.body.items as { kind: string }[]).every((a) => a.kind === "large_payment")).toBe(true);

    // Two at a time: every alert once across the pages, newest first, the total on each page.
    const seen: number[] = [];
    for (let page = 1; page <= Math.ceil(total / 2); page++) {
      const res = await admin.client.get(`console/alerts?status=all&kind=large_payment&per_page=2&page=${page}`);
      expect(res.json.body).toMatchObject({ page, per_page: 2, total });
      seen.push(...(res.json.body.items as { id: number }[]).map((a) => a.id));
    }
    expect(seen).toEqual((all.json.body.items as { id: number }[]).map((a) => a.id));

    const [mine] = await alertsAbout("large_payment", "payment_id", (await pay("1400.00")).id);
    expectStatus(await admin.client.post(`console/alerts/${mine.id}/assign`, { admin_id: admin.id }), 200);
    const given = await admin.client.get(`console/alerts?assigned_to=${admin.id}&per_page=100`);
    const ids = given.json.body.items as { id: number; assigned_to: { id: number } }[];
    expect(ids.map((a) => a.id)).toContain(mine.id);
    expect(ids.every((a) => a.assigned_to.id === admin.id)).toBe(true);
  });

  test("the console menu counts the open alerts", async () => {
    const [{ n }] = await t.db.select({ n: sql<number>`count(*)` }).from(consoleAlerts)
      .where(sql`${consoleAlerts.resolvedAt} IS NULL`);
    expect(n).toBeGreaterThan(0);
    const page = await admin.client.get("/console/users");
    expect(page.text).toMatch(new RegExp(`data-count="/console/alerts"[^>]*>${n}<`));
  });
});

describe("a receipt's alert closes when a second administrator decides the receipt", () => {
  /** The open alerts about a receipt, of any kind. */
  const openAbout = async (receiptId: number) =>
    (await alertsAbout("receipt_approval", "receipt_id", receiptId)).concat(
      await alertsAbout("duplicate_receipt", "receipt_id", receiptId),
    ).filter((a) => a.resolvedAt === null);

  test("approved, declined, released or discarded, its 'a second administrator must…' alert is closed by itself", async () => {
    const bea = await openCustomer(t);
    const record = async (amount: string, reference: string) => {
      const res = await postReceipt(t, admin, { amount, currency: "GBP", reference: `${reference} ${bea.accountRef}` });
      expectStatus(res, 201);
      return res.json.body as { id: number; status: string };
    };
    const big = await record("60000.00", "Big one");
    expect(big.status).toBe("awaiting_approval");
    expect(await openAbout(big.id)).toHaveLength(1);
    expectStatus(await second.client.post(`console/receipts/${big.id}/approve`), 200);
    expect(await openAbout(big.id)).toEqual([]);
    const [approved] = await alertsAbout("receipt_approval", "receipt_id", big.id);
    expect(approved).toMatchObject({
      resolvedBy: second.id,
      resolutionNote: expect.stringMatching(/^Closed by itself/),
    });

    const wrong = await record("70000.00", "Typo");
    expectStatus(
      await second.client.post(`console/receipts/${wrong.id}/decline`, { reason: "Typed 70000 for 700" }),
      200,
    );
    expect(await openAbout(wrong.id)).toEqual([]);

    const twice = await record("60000.00", "Big one");
    expect(twice.status).toBe("held_duplicate");
    expect(await openAbout(twice.id)).toHaveLength(1);
    expectStatus(await second.client.post(`console/receipts/${twice.id}/discard`, { reason: "The same money" }), 200);
    expect(await openAbout(twice.id)).toEqual([]);

    const again = await record("60000.00", "Big one");
    expect(again.status).toBe("held_duplicate");
    expectStatus(await second.client.post(`console/receipts/${again.id}/release`), 200);
    expect(await openAbout(again.id)).toEqual([]);
  });

  test("declined by the administrator who recorded it, its alert stays for a second administrator", async () => {
    const bea = await openCustomer(t);
    const res = await postReceipt(t, admin, {
      amount: "80000.00",
      currency: "GBP",
      reference: `Mine ${bea.accountRef}`,
    });
    expectStatus(res, 201);
    const held = res.json.body as { id: number; status: string };
    expect(held.status).toBe("awaiting_approval");
    expectStatus(await admin.client.post(`console/receipts/${held.id}/decline`, { reason: "Not ours after all" }), 200);
    // The recorder's own decision on what they recorded is for another administrator to see too.
    const [alert] = await openAbout(held.id);
    expect(alert).toMatchObject({ createdBy: admin.id, resolvedAt: null });
    expectStatus(await admin.client.post(`console/alerts/${alert.id}/resolve`, { note: "Declined it myself" }), 409);
    expectStatus(await second.client.post(`console/alerts/${alert.id}/resolve`, { note: "Checked the bank" }), 200);
  });
});

describe("nobody but an administrator", () => {
  test("a customer gets 404 from every alerts and emails call", async () => {
    const c = account.owner.client;
    expectStatus(await c.get("console/alerts"), 404);
    expectStatus(await c.post("console/alerts/1/assign", { admin_id: admin.id }), 404);
    expectStatus(await c.post("console/alerts/1/resolve", { note: "x" }), 404);
    expectStatus(await c.get("console/emails"), 404);
    expectStatus(await c.get("console/emails/1"), 404);
    expectStatus(await c.post("console/emails/1/resend"), 404);
  });
});

describe("emails", () => {
  test("search by recipient or subject, newest first, paged", async () => {
    const res = await admin.client.get(`console/emails?q=${encodeURIComponent(account.owner.email)}&per_page=2`);
    expectStatus(res, 200);
    const body = res.json.body;
    expect(body.items.length).toBeGreaterThan(0);
    expect(body.items.every((e: { to: string }) => e.to === account.owner.email)).toBe(true);
    const ids = body.items.map((e: { id: number }) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(body.total).toBeGreaterThanOrEqual(body.items.length);

    // A whole address is found whatever its letter case; a part of one too.
    const upper = await admin.client.get(`console/emails?q=${encodeURIComponent(account.owner.email.toUpperCase())}`);
    expect(upper.json.body.total).toBe(body.total);
    const part = await admin.client.get(`console/emails?q=${encodeURIComponent(account.owner.email.split("@")[0])}`);
    expect(part.json.body.total).toBe(body.total);

    const bySubject = await admin.client.get("console/emails?q=received");
    expect(bySubject.json.body.items.every((e: { subject: string }) => /received/i.test(e.subject))).toBe(true);
    expect(bySubject.json.body.items.length).toBeGreaterThan(0);

    const none = await admin.client.get("console/emails?q=%25%25nothing%25");
    expect(none.json.body).toMatchObject({ items: [], total: 0 });
  });

  test("detail has the HTML, the text and the delivery status; resend makes a new, audited email", async () => {
    // An email that signs nobody in (the account opened): a security email is never sent again (below).
    const [original] = await t.db.select().from(emails)
      .where(and(eq(emails.to, account.owner.email), eq(emails.template, "account-opened"))).limit(1);
    const detail = await admin.client.get(`console/emails/${original.id}`);
    expectStatus(detail, 200);
    expect(detail.json.body).toMatchObject({
      id: original.id,
      to: original.to,
      subject: original.subject,
      html: original.html,
      text: original.text,
      status: original.status,
      security: false,
      customer_name: "Ada Lovelace",
    });

    const resent = await admin.client.post(`console/emails/${original.id}/resend`);
    expectStatus(resent, 201);
    expect(resent.json.body.id).toBeGreaterThan(original.id);
    expect(resent.json.body).toMatchObject({ to: original.to, subject: original.subject, html: original.html });
    const [entry] = await t.db.select().from(auditLog).where(eq(auditLog.action, "email.resend"));
    expect(entry).toMatchObject({ actorId: admin.id, before: { id: original.id }, after: { id: resent.json.body.id } });
    // The audit trail says what happened: the email was sent again, nothing was removed.
    const trail = await admin.client.get("/console/audit?action=email.resend");
    expectStatus(trail, 200);
    const shown = trail.text.replace(/<[^>]+>/g, " ");
    expect(shown).toContain(`email: #${original.id} → sent again as #${resent.json.body.id}`);
    expect(shown).toContain(`to: ${original.to}`);
    expect(shown).toContain(`status of #${original.id} then: ${original.status}`);
    expect(shown).not.toContain("removed");

    expectStatus(await admin.client.get("console/emails/999999"), 404);
  });

  test("a security email is shown without its link and code, its view is audited, and it is never sent again", async () => {
    // The customer's address validation: a link and a code that sign in, sent whole to the customer.
    const [kept] = await t.db.select().from(emails)
      .where(and(eq(emails.to, account.owner.email), eq(emails.template, "email-validation"))).limit(1);
    const sent = await asSent(t.db, kept);
    const link = linkIn(sent.text)!;
    const code = codeIn(sent.text)!;
    expect(link).toContain("token=");
    const token = new URL(link).searchParams.get("token")!;

    // The database never kept them, so no administrator can read them.
    for (const part of [kept.html, kept.text]) {
      expect(part).not.toContain(token);
      expect(part).not.toContain(code);
    }
    const viewsBefore = await t.db.select().from(auditLog).where(eq(auditLog.action, "email.view"));
    const detail = await admin.client.get(`console/emails/${kept.id}`);
    expectStatus(detail, 200);
    expect(detail.json.body.security).toBe(true);
    expect(detail.json.body.text).toContain(LINK_REMOVED);
    expect(detail.json.body.text).not.toContain(token);
    const page = await admin.client.get(`/console/emails/${kept.id}`);
    const main = page.text.slice(page.text.indexOf("<main"));
    expect(main).toContain("cannot be sent");
    expect(main).not.toContain("Send again");
    expect(main).not.toContain(token);
    const views = await t.db.select().from(auditLog).where(eq(auditLog.action, "email.view"));
    expect(views.length).toBe(viewsBefore.length + 2);
    expect(views.at(-1)).toMatchObject({ actorId: admin.id, after: { id: kept.id, part: "page" } });

    const resent = await admin.client.post(`console/emails/${kept.id}/resend`);
    expectStatus(resent, 422);
    expect(resent.json.error).toBe(SECURITY_RESEND_REFUSED);
    const again = await t.db.select().from(emails).where(eq(emails.template, "email-validation"));
    expect(again.filter((e) => e.to === account.owner.email)).toHaveLength(1);
  });

  test("an email kept before redaction is shown without its link and code", async () => {
    const [old] = await t.db.insert(emails).values({
      to: "old@example.com",
      subject: "Reset your password",
      template: "password-reset",
      html:
        '<a href="http://localhost/forgot?token=abc&amp;username=old">http://localhost/forgot?token=abc&amp;username=old</a>',
      text: "Open http://localhost/forgot?token=abc&username=old or type 123456",
      status: "stored",
      createdAt: new Date(),
    }).returning();
    const detail = await admin.client.get(`console/emails/${old.id}`);
    expect(detail.json.body.html).not.toContain("token=abc");
    expect(detail.json.body.text).toBe(`Open ${LINK_REMOVED} or type ${CODE_REMOVED}`);
  });

  test("the pages: the list links each email; the email's page shows its HTML in a sandboxed frame", async () => {
    const list = await admin.client.get(`/console/emails?q=${encodeURIComponent(account.owner.email)}`);
    expect(list.status).toBe(200);
    const main = list.text.slice(list.text.indexOf("<main"));
    const id = Number(main.match(/href="\/console\/emails\/(\d+)"/)?.[1]);
    expect(id).toBeGreaterThan(0);
    const page = await admin.client.get(`/console/emails/${id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`sandbox="" src="/console/emails/${id}/html"`);
    const html = await admin.client.get(`/console/emails/${id}/html`);
    expect(html.status).toBe(200);
    const [row] = await t.db.select().from(emails).where(eq(emails.id, id));
    expect(html.text).toBe(row.html);
    // Its own policy: the email's inline styles, no script, a sandbox even when opened alone.
    expect(html.headers.get("content-security-policy")).toMatch(
      /default-src 'none'.*style-src 'unsafe-inline'.*sandbox/,
    );
    expectStatus(await account.owner.client.get(`/console/emails/${id}/html`), 404);
    expect((await admin.client.get("/console/emails/999999")).status).toBe(404);
  });

  test("a page past the last says so and links to the last page, on the emails and the audit log", async () => {
    const [{ n }] = await t.db.select({ n: sql<number>`count(*)` }).from(emails);
    const last = Math.max(1, Math.ceil(n / 20));
    const past = await admin.client.get("/console/emails?page=99999");
    expect(past.status).toBe(200);
    const main = past.text.slice(past.text.indexOf("<main"));
    expect(main).toContain(`There is no page 99999: the list has ${last === 1 ? "1 page" : `${last} pages`}.`);
    expect(main).toContain(`href="/console/emails?page=${last}"`);
    expect(main).not.toContain("page=99998");
    expect(main).not.toContain(">Newer<");

    const audit = await admin.client.get("/console/audit?page=99999");
    expect(audit.status).toBe(200);
    const auditMain = audit.text.slice(audit.text.indexOf("<main"));
    expect(auditMain).toMatch(/There is no page 99999: the list has \d+ pages?\./);
    expect(auditMain).not.toContain("page=99998");
  });
});
