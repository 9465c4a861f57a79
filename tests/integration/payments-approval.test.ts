import { and, eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import type { AccountRole } from "../../lib/permissions.ts";
import { accountMembers, auditLog } from "../../db/schema.ts";
import { notifications, paymentEvents, payments } from "../../db/schema-payments.ts";
import { businessOwner, invitationToken, invite, joinAsNewPerson, memberWithRole } from "../helpers/account-users.ts";
import { type Admin, anotherAdmin, completeOnboarding, expectStatus, uniqueEmail } from "../helpers/client.ts";
import { RULE_NOT_ON_BEHALF } from "../../lib/payments/approval-notes.ts";
import { PENDING_PAYMENT_RATE_HOURS } from "../../lib/constants.ts";
import { momentInUtc } from "../../lib/moment.ts";
import { expectLedgerSound, type MoneyApp, moneyApp } from "../helpers/money.ts";
import {
  addMember,
  addRecipient,
  approve,
  balanceOf,
  cancel,
  type Member,
  paid,
  type PaymentAccount,
  paymentAccount,
  paymentRowWrites,
  reject,
  setRule,
} from "../helpers/payments.ts";

/**
 * Maker-checker (issue 8 item 3; decision 030): the account's rule decides which payments wait for
 * a second person; an approver or owner approves or rejects them, never their own; rejecting or
 * cancelling returns the held money; an administrator acting on behalf sees but does not decide.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;
let account: PaymentAccount;
let payer: Member;
let approver: Member;
let viewer: Member;
let otherPayer: Member;
let recipient: number;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  account = await paymentAccount(t, admin, { GBP: "10000.00", EUR: "5000.00" });
  payer = await addMember(t, account, "payer");
  approver = await addMember(t, account, "approver");
  viewer = await addMember(t, account, "viewer");
  otherPayer = await addMember(t, account, "payer");
  recipient = await addRecipient(t, account, { currency: "EUR", country: "FR" });
});

// Whatever a test did (paid, approved, refused, rejected, cancelled), the books still balance after it.
afterEach(() => expectLedgerSound(t.db));

const send = (who: Member | PaymentAccount["owner"], amount: string, currency = "GBP", to = recipient) =>
  paid(who.client, { recipient_id: to, amount, sell_currency: currency });

describe("the approval rule", () => {
  test("no rule: payments are approved at once", async () => {
    const rule = await account.owner.client.get("account/approvals");
    expectStatus(rule, 200);
    expect(rule.json.body).toEqual({
      mode: "none",
      thresholds: {},
      new_recipient: false,
      updated_by: null,
      updated_at: null,
    });
    expect((await send(payer, "10.00")).status).toBe("approved");
  });

  test("only owners and admins set it; payers and viewers may read it", async () => {
    expectStatus(await payer.client.put("account/approvals", { mode: "all" }), 403);
    expectStatus(await approver.client.put("account/approvals", { mode: "all" }), 403);
    expectStatus(await viewer.client.get("account/approvals"), 200);
  });

  test("every payment: each waits for approval", async () => {
    const rule = await setRule(account.owner.client, { mode: "all" });
    expect(rule).toMatchObject({ mode: "all", updated_by: { id: account.owner.id, name: "Ada Lovelace" } });
    const p = await send(payer, "10.00");
    expect(p.status).toBe("pending_approval");
    const events = await t.db.select().from(paymentEvents).where(eq(paymentEvents.paymentId, p.id));
    expect(events.map((e) => e.event)).toEqual(["created", "approval_requested"]);
  });

  test("above an amount, per currency, on either side: from the threshold up; a payment with none never waits", async () => {
    await setRule(account.owner.client, { mode: "above", thresholds: { GBP: "1000.00", EUR: "500" } });
    expect((await account.owner.client.get("account/approvals")).json.body.thresholds).toEqual({
      GBP: "1000.00",
      EUR: "500.00",
    });
    await setRule(account.owner.client, { mode: "above", thresholds: { GBP: "1000.00" } });
    expect((await send(payer, "999.99")).status).toBe("approved");
    expect((await send(payer, "1000.00")).status).toBe("pending_approval");
    await setRule(account.owner.client, { mode: "above", thresholds: { EUR: "500" } });
    expect((await send(payer, "499.99", "EUR")).status).toBe("approved");
    expect((await send(payer, "500.00", "EUR")).status).toBe("pending_approval");
    expect((await send(payer, "300.00", "GBP")).status, "about 340 EUR arrive").toBe("approved");
    expect((await send(payer, "500.00", "GBP")).status, "about 570 EUR arrive, paid from pounds").toBe(
      "pending_approval",
    );
    // Either side counts: what is debited, or what the recipient gets.
    const usd = await addRecipient(t, account, { currency: "USD", country: "US" });
    await setRule(account.owner.client, { mode: "above", thresholds: { USD: "1000.00" } });
    expect((await send(payer, "100.00", "GBP", usd)).status, "about 127 USD arrive").toBe("approved");
    expect((await send(payer, "1000.00", "GBP", usd)).status, "about 1,270 USD arrive, paid from pounds").toBe(
      "pending_approval",
    );
    expect((await send(payer, "5000.00", "GBP")).status, "to euros from pounds: no threshold on either side").toBe(
      "approved",
    );
  });

  test("a new recipient, and new bank details, wait until one payment to them is approved", async () => {
    await setRule(account.owner.client, { mode: "none", new_recipient: true });
    const fresh = await addRecipient(t, account, { currency: "EUR", country: "DE" });
    const first = await send(payer, "10.00", "GBP", fresh);
    expect(first.status).toBe("pending_approval");
    const second = await send(payer, "10.00", "GBP", fresh);
    expect(second.status, "the first still waits: the details are not approved yet").toBe("pending_approval");
    expectStatus(await approve(approver.client, first.id), 200);
    expect((await send(payer, "10.00", "GBP", fresh)).status).toBe("approved");
    // The bank details change (the recipients work records when): the next payment waits again.
    t.clock.advance(1000);
    await t.db.$client.execute({
      sql: "UPDATE recipients SET details = ?, details_changed_at = ? WHERE id = ?",
      args: [JSON.stringify({ iban: "FR1420041010050500013M02606" }), t.clock.now(), fresh],
    });
    t.clock.advance(1000);
    expect((await send(payer, "10.00", "GBP", fresh)).status).toBe("pending_approval");
  });

  test("the approver is told who gave the bank details and when, until a payment to them is approved", async () => {
    await setRule(account.owner.client, { mode: "none", new_recipient: true });
    const added = await payer.client.post("account/recipients", {
      name: "Northwind Traders",
      type: "business",
      currency: "GBP",
      country: "GB",
      details: { sort_code: "20-00-00", account_number: "55779911" },
    });
    expectStatus(added, 201);
    const northwind = added.json.body.id;
    const first = await send(payer, "10.00", "GBP", northwind);
    const told = (await approver.client.get(`account/pendingpayments/one?id=${first.id}`)).json.body.actions;
    expect(told).toMatchObject({
      approve: true,
      note: `Northwind Traders was added on 2 Mar 2026, 09:00 UTC by ${payer.name}, and no payment to them has ` +
        "been approved yet: check their bank details with Northwind Traders by a means you already trust before " +
        "approving.",
    });
    expectStatus(await approve(approver.client, first.id), 200);

    // The payer gives new bank details and pays them: the approver is told, in the list and on the page.
    t.clock.advance(60_000);
    expectStatus(
      await payer.client.put(`account/recipients/${northwind}`, {
        ...added.json.body,
        details: { sort_code: "08-99-99", account_number: "66374958" },
      }),
      200,
    );
    const next = await send(payer, "10.00", "GBP", northwind);
    const note = `The bank details of Northwind Traders were changed on 2 Mar 2026, 09:01 UTC by ${payer.name}, ` +
      "and no payment to them has been approved since: check them with Northwind Traders by a means you already " +
      "trust before approving.";
    const listed = (await approver.client.get("account/pendingpayments/all")).json.body;
    expect(listed.find((x: { id: number }) => x.id === next.id).actions).toMatchObject({ approve: true, note });
    expectStatus(await approve(approver.client, next.id), 200);
    await setRule(account.owner.client, { mode: "none", new_recipient: false });
  });

  test("bank details our team gave on a customer's behalf are said to be our team's, not the customer's own", async () => {
    // The fraud a phone call to our support attempts: "I am the owner, here are the supplier's new details".
    await setRule(account.owner.client, { mode: "none", new_recipient: true });
    const staff = await anotherAdmin(t);
    expectStatus(await staff.client.post("account/onbehalf", { on_behalf_of: account.owner.id }), 200);
    let added;
    try {
      added = await staff.client.post("account/recipients", {
        name: "Southwind Traders",
        type: "business",
        currency: "GBP",
        country: "GB",
        details: { sort_code: "20-00-00", account_number: "55779911" },
      });
      expectStatus(added, 201);
    } finally {
      expectStatus(await staff.client.delete("account/onbehalf"), 200);
    }
    const p = await send(payer, "10.00", "GBP", added.json.body.id);
    const note = (await approver.client.get(`account/pendingpayments/one?id=${p.id}`)).json.body.actions.note;
    expect(note).toMatch(
      new RegExp(`^Southwind Traders was added on .+ by .+ of our team \\(on behalf of ${account.owner.name}\\), `),
    );
    expectStatus(await reject(approver.client, p.id), 200);
    await setRule(account.owner.client, { mode: "none", new_recipient: false });
  });

  test("a rule is refused while someone would have nobody else to approve their payments", async () => {
    const solo = await paymentAccount(t, admin);
    const refused = await solo.owner.client.put("account/approvals", { mode: "all" });
    expectStatus(refused, 422);
    expect(refused.json).toMatchObject({
      // Inviting is refused on a personal account, so the refusal does not send them to invite anyone.
      error:
        "A personal account has one user, so nobody else could approve your payments: approval rules are for business accounts.",
      fields: { mode: expect.any(String) },
    });
    expectStatus(await invite(solo.owner.client, uniqueEmail("would-approve"), "approver"), 403);
    expectStatus(await solo.owner.client.put("account/approvals", { mode: "none", new_recipient: true }), 422);
    expectStatus(await solo.owner.client.put("account/approvals", { mode: "none" }), 200);
    // On a business account, inviting an approver is the way out.
    const business = await businessOwner(t, admin);
    const alone = await business.client.put("account/approvals", { mode: "all" });
    expectStatus(alone, 422);
    expect(alone.json.error).toBe(
      "You are the only user of this account, so nobody could approve your payments. Invite an approver first.",
    );
    // With a payer beside the owner, the owner approves the payer's payments but nobody the owner's.
    const pair = await paymentAccount(t, admin);
    const pairPayer = await addMember(t, pair, "payer");
    const stranded = await pair.owner.client.put("account/approvals", { mode: "all" });
    expectStatus(stranded, 422);
    expect(stranded.json.error).toBe(
      "Nobody else on this account could approve the payments of Ada Lovelace. Approval rules are for business accounts, where you can invite an approver.",
    );
    expect(pairPayer.name).toBeTruthy();
  });

  test("while the rule is on, the last other approver cannot be demoted or removed: payments would wait for ever", async () => {
    const owner = await businessOwner(t, admin);
    const other = await memberWithRole(t, owner.client, "approver");
    const second = await memberWithRole(t, owner.client, "payer");
    expectStatus(await owner.client.put("account/approvals", { mode: "all" }), 200);
    // Without the approver, nobody but the owner could approve the owner's payments.
    const demoted = await owner.client.put(`account/users/${other.id}`, { role: "viewer" });
    expectStatus(demoted, 409);
    expect(demoted.json.error).toContain("The approval rule says every payment needs approval, so ");
    expect(demoted.json.error).toContain("needs someone else on this account to approve their payments");
    expectStatus(await owner.client.delete(`account/users/${other.id}`), 409);
    const roles = async () =>
      (await owner.client.get("account/users")).json.body.map((u: { id: number; role: string }) => u.role)
        .sort();
    expect(await roles()).toEqual(["approver", "owner", "payer"]);
    // Someone else made an approver first: then the change goes through.
    expectStatus(await owner.client.put(`account/users/${second.id}`, { role: "approver" }), 200);
    expectStatus(await owner.client.put(`account/users/${other.id}`, { role: "viewer" }), 200);
    // With no rule, nothing waits: any change goes.
    expectStatus(await owner.client.put("account/approvals", { mode: "none" }), 200);
    expectStatus(await owner.client.delete(`account/users/${second.id}`), 200);
  });

  test("a payment already waiting keeps someone to approve it after the rule is relaxed: its last approver stays until it is decided", async () => {
    const mine = await paymentAccount(t, admin, { GBP: "100.00" });
    const owner = mine.owner;
    const other = await addMember(t, mine, "approver");
    const to = await addRecipient(t, mine, { currency: "EUR", country: "FR" });
    expectStatus(await owner.client.put("account/approvals", { mode: "all" }), 200);
    const waiting = await paid(owner.client, { recipient_id: to, amount: "20.00", sell_currency: "GBP" });
    expect(waiting.status).toBe("pending_approval");
    expectStatus(await owner.client.put("account/approvals", { mode: "none" }), 200);
    // The rule no longer makes payments wait, but this one does, its 20.00 GBP held: only `other` could approve it.
    const removed = await owner.client.delete(`account/users/${other.id}`);
    expectStatus(removed, 409);
    expect(removed.json.error).toContain("Payments are waiting for approval");
    expectStatus(await owner.client.put(`account/users/${other.id}`, { role: "viewer" }), 409);
    // Decided, it no longer holds anyone.
    expectStatus(await owner.client.post(`account/payments/${waiting.id}/cancel`, {}), 200);
    expectStatus(await owner.client.delete(`account/users/${other.id}`), 200);
  });

  test("an approver who has not finished signing up cannot act yet, so does not count as someone who could approve", async () => {
    const owner = await businessOwner(t, admin);
    const newcomerEmail = uniqueEmail("newcomer");
    expectStatus(await invite(owner.client, newcomerEmail, "approver"), 201);
    // Registered and past the second factor, but no profile or identity check: every account call is refused.
    const newcomer = await joinAsNewPerson(t, await invitationToken(t, newcomerEmail), newcomerEmail, {
      onboard: false,
    });
    expectStatus(await newcomer.client.get("account/pendingpayments/all"), 403);
    const alone = await owner.client.put("account/approvals", { mode: "all" });
    expectStatus(alone, 422);
    expect(alone.json.error).toMatch(
      /^Nobody else on this account could approve the payments of .+\. .+ cannot act on this account yet\. Invite an approver first\.$/,
    );
    const other = await memberWithRole(t, owner.client, "approver");
    expectStatus(await owner.client.put("account/approvals", { mode: "all" }), 200);
    // The one approver who can act cannot be demoted or removed: the newcomer could not approve anything.
    expectStatus(await owner.client.put(`account/users/${other.id}`, { role: "viewer" }), 409);
    expectStatus(await owner.client.delete(`account/users/${other.id}`), 409);
    // Once the newcomer has finished signing up, they can approve, and the change goes through.
    await completeOnboarding({ client: newcomer.client, type: "Personal" });
    expectStatus(await owner.client.put(`account/users/${other.id}`, { role: "viewer" }), 200);
    expectStatus(await owner.client.put("account/approvals", { mode: "none" }), 200);
  });

  test("a business owner is named as the person they are, as the users list names them, not as the company", async () => {
    const owner = await businessOwner(t, admin);
    await memberWithRole(t, owner.client, "approver");
    expectStatus(await owner.client.put("account/approvals", { mode: "all" }), 200);
    const users = (await owner.client.get("account/users")).json.body as { you: boolean; name: string }[];
    const listed = users.find((u) => u.you)!.name;
    expect(listed).not.toBe("Acme Trading Ltd");
    const rule = await owner.client.get("account/approvals");
    expect(rule.json.body.updated_by.name).toBe(listed);
  });

  test("every change of the rule is audited: who changed it, from what to what; a refused one is not", async () => {
    const owner = await businessOwner(t, admin);
    await memberWithRole(t, owner.client, "approver");
    // Its own administrator: the on-behalf test below reads all of `admin`'s calls as for its account.
    const staff = await anotherAdmin(t);
    const changes = async () =>
      (await t.db.select().from(auditLog).where(eq(auditLog.action, "approval-rule.change")).orderBy(auditLog.id))
        .filter((e) => e.actorId === owner.id || e.subjectId === owner.id)
        .map((e) => ({ actor: e.actorId, subject: e.subjectId, before: e.before, after: e.after }));

    await setRule(owner.client, { mode: "above", thresholds: { GBP: "1000" } });
    expectStatus(await owner.client.put("account/approvals", { mode: "above", thresholds: {} }), 422);
    // An administrator on behalf may not change it at all (the refusal's own test is below).
    expectStatus(await staff.client.post("account/onbehalf", { on_behalf_of: owner.id }), 200);
    try {
      expectStatus(await staff.client.put("account/approvals", { mode: "none", thresholds: {} }), 403);
    } finally {
      expectStatus(await staff.client.delete("account/onbehalf"), 200);
    }
    await setRule(owner.client, { mode: "all", new_recipient: true });
    expect(await changes()).toEqual([
      {
        actor: owner.id,
        subject: null,
        before: null,
        after: { mode: "above", thresholds: { GBP: "1000.00" }, new_recipient: false },
      },
      {
        actor: owner.id,
        subject: null,
        before: { mode: "above", thresholds: { GBP: "1000.00" }, new_recipient: false },
        after: { mode: "all", thresholds: {}, new_recipient: true },
      },
    ]);
    // Compliance reads it in the customer's audit trail.
    const trail = await staff.client.get(`console/audit?customer=${owner.id}`);
    expectStatus(trail, 200);
    expect(trail.json.body.filter((e: { action: string }) => e.action === "approval-rule.change")).toHaveLength(2);
  });

  test("an administrator acting on behalf cannot change the rule, so cannot turn approval off to pay", async () => {
    const owner = await businessOwner(t, admin);
    await memberWithRole(t, owner.client, "approver");
    const staff = await anotherAdmin(t);
    await setRule(owner.client, { mode: "all" });
    expectStatus(await staff.client.post("account/onbehalf", { on_behalf_of: owner.id }), 200);
    try {
      const refused = await staff.client.put("account/approvals", { mode: "none", thresholds: {} });
      expectStatus(refused, 403);
      expect(refused.json.error).toBe(RULE_NOT_ON_BEHALF);
      // What the administrator sees on the account users page: the rule, and why they cannot change it.
      const page = await staff.client.get("/account/users");
      expectStatus(page, 200);
      expect(page.text).toContain(RULE_NOT_ON_BEHALF.replaceAll("'", "&#x27;"));
      expect(page.text).not.toContain('aria-label="Approval rule"');
    } finally {
      expectStatus(await staff.client.delete("account/onbehalf"), 200);
    }
    expect((await owner.client.get("account/approvals")).json.body.mode).toBe("all");
    // The owner still sees the form.
    expect((await owner.client.get("/account/users")).text).toContain('aria-label="Approval rule"');
  });

  test("thresholds are checked: a currency we hold, an amount in its digits, at least one for mode above", async () => {
    const bad = await account.owner.client.put("account/approvals", { mode: "above", thresholds: { GBP: "1.001" } });
    expectStatus(bad, 422);
    expect(bad.json.fields).toEqual({
      "thresholds.GBP": "The GBP threshold: GBP amounts have at most 2 decimal places.",
    });
    const unknown = await account.owner.client.put("account/approvals", { mode: "above", thresholds: { XXX: "1" } });
    expectStatus(unknown, 422);
    expect(unknown.json.fields).toHaveProperty("thresholds.XXX");
    const none = await account.owner.client.put("account/approvals", { mode: "above", thresholds: {} });
    expectStatus(none, 422);
    expect(none.json.fields).toHaveProperty("thresholds");
  });
});

describe("deciding", () => {
  beforeAll(async () => {
    await setRule(account.owner.client, { mode: "all" });
  });

  test("an approver approves someone else's payment; it is theirs in the timeline", async () => {
    const p = await send(payer, "25.00");
    const res = await approve(approver.client, p.id);
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({
      id: p.id,
      status: "approved",
      approved_by: { id: approver.id, name: approver.name },
      actions: { approve: false, reject: false },
    });
    expect(res.json.body.events.map((e: { event: string; actor: { id: number } }) => [e.event, e.actor.id])).toEqual([
      ["created", payer.id],
      ["approval_requested", payer.id],
      ["approved", approver.id],
    ]);
  });

  test("approving changes the payment's row once: its status, approver and expected arrival in one write", async () => {
    const p = await send(payer, "26.00");
    const writes = await paymentRowWrites(t.db, async () => {
      const res = await approve(approver.client, p.id);
      expectStatus(res, 200);
      expect(res.json.body.expected_arrival).not.toBeNull();
    });
    expect(writes).toEqual([p.id]);
  });

  test("nobody approves or rejects their own payment: the server refuses it and says why", async () => {
    const own = await send(account.owner, "30.00");
    const seen = await account.owner.client.get(`account/pendingpayments/one?id=${own.id}`);
    expect(seen.json.body.actions).toEqual({
      approve: false,
      reject: false,
      cancel: true,
      note: "You prepared this payment: someone else on the account must approve it.",
    });
    const approved = await approve(account.owner.client, own.id);
    expectStatus(approved, 403);
    expect(approved.json.error).toBe("You prepared this payment: someone else on the account must approve it.");
    expectStatus(await reject(account.owner.client, own.id, "no"), 403);
    const still = await account.owner.client.get(`account/pendingpayments/one?id=${own.id}`);
    expect(still.json.body.status).toBe("pending_approval");
    // Someone else may.
    const byOther = await approver.client.get(`account/pendingpayments/one?id=${own.id}`);
    expect(byOther.json.body.actions).toMatchObject({ approve: true, reject: true, note: null });
  });

  test("payers and viewers cannot approve; a viewer cannot pay", async () => {
    const p = await send(payer, "11.00");
    expectStatus(await approve(otherPayer.client, p.id), 403);
    expectStatus(await approve(viewer.client, p.id), 403);
    const viewed = await viewer.client.get(`account/pendingpayments/one?id=${p.id}`);
    expect(viewed.json.body.actions.note).toBe("Your role on this account does not allow approving payments.");
    const quote = await viewer.client.post("account/payments/quote", {
      recipient_id: recipient,
      amount: "10.00",
      fixed: "send",
      sell_currency: "GBP",
    });
    expectStatus(quote, 403);
  });

  test("a payment whose preparer was removed since still waits, and the approver is told before deciding", async () => {
    const leaving = await addMember(t, account, "payer");
    const p = await send(leaving, "12.00");
    const before = await approver.client.get(`account/pendingpayments/one?id=${p.id}`);
    expect(before.json.body.actions).toMatchObject({ approve: true, note: null });

    expectStatus(await account.owner.client.delete(`account/users/${leaving.id}`), 200);
    const note = `${leaving.name} is no longer a user of this account. ` +
      "Approve this payment only if it should still go; otherwise reject it.";
    const one = await approver.client.get(`account/pendingpayments/one?id=${p.id}`);
    expect(one.json.body).toMatchObject({ status: "pending_approval", actions: { approve: true, reject: true, note } });
    const all = await approver.client.get("account/pendingpayments/all");
    expect(all.json.body.find((x: { id: number }) => x.id === p.id).actions.note).toBe(note);
    // Someone who may not approve is told why not, as before.
    const viewed = await viewer.client.get(`account/pendingpayments/one?id=${p.id}`);
    expect(viewed.json.body.actions.note).toBe("Your role on this account does not allow approving payments.");

    const approved = await approve(approver.client, p.id);
    expectStatus(approved, 200);
    expect(approved.json.body).toMatchObject({ status: "approved", actions: { note: null } });
  });

  test("a payment whose recipient was deleted while it waited cannot be approved: it is rejected, and its money returns", async () => {
    const doomed = await addRecipient(t, account, { name: "Old Supplier", currency: "EUR", country: "FR" });
    const before = await balanceOf(account.owner.client, "GBP");
    const p = await send(payer, "15.00", "GBP", doomed);
    expectStatus(await account.owner.client.delete(`account/recipients/${doomed}`), 200);

    const approved = await approve(approver.client, p.id);
    expectStatus(approved, 409);
    expect(approved.json.error).toBe(
      "Old Supplier was deleted from the account's recipients after this payment was prepared, " +
        "so it cannot be approved: reject it.",
    );
    // The approver is told on the payment's page, and offered only to reject it.
    const still = await approver.client.get(`account/pendingpayments/one?id=${p.id}`);
    expect(still.json.body).toMatchObject({
      status: "pending_approval",
      actions: { approve: false, reject: true, note: approved.json.error },
    });
    expectStatus(await reject(approver.client, p.id, "Recipient deleted"), 200);
    expect(await balanceOf(account.owner.client, "GBP")).toEqual(before);
  });

  test("a payment whose recipient's bank details changed while it waited cannot be approved: it would pay the old ones", async () => {
    const supplier = await addRecipient(t, account, { name: "Acme Supplies", currency: "GBP", country: "GB" });
    const p = await send(payer, "16.00", "GBP", supplier);
    const saved = (await account.owner.client.get(`account/recipients/${supplier}`)).json.body;
    expectStatus(
      await account.owner.client.put(`account/recipients/${supplier}`, {
        ...saved,
        details: { sort_code: "08-99-99", account_number: "66374958" },
      }),
      200,
    );
    const note = "The bank details of Acme Supplies were changed after this payment was prepared, so it cannot be " +
      "approved: reject it, and pay the new details if they are right.";
    const listed = await approver.client.get("account/pendingpayments/all");
    expect(listed.json.body.find((x: { id: number }) => x.id === p.id).actions).toMatchObject({
      approve: false,
      reject: true,
      note,
    });
    const approved = await approve(approver.client, p.id);
    expectStatus(approved, 409);
    expect(approved.json.error).toBe(note);
    expect((await approver.client.get(`account/pendingpayments/one?id=${p.id}`)).json.body.status)
      .toBe("pending_approval");
    expectStatus(await reject(approver.client, p.id), 200);
  });

  test("rejecting, with a reason, returns the held money at once", async () => {
    const before = await balanceOf(account.owner.client, "GBP");
    const p = await send(payer, "40.00");
    const during = await balanceOf(account.owner.client, "GBP");
    expect(Number(during.available)).toBeCloseTo(Number(before.available) - 40, 2);
    expect(Number(during.held)).toBeCloseTo(Number(before.held) + 40, 2);
    const res = await reject(approver.client, p.id, "Wrong invoice");
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({ status: "rejected", reason: "Wrong invoice" });
    expect(res.json.body.events.at(-1)).toMatchObject({ event: "rejected", note: "Wrong invoice" });
    expect(await balanceOf(account.owner.client, "GBP")).toEqual(before);
    expectStatus(await approve(approver.client, p.id), 409);
    await expectLedgerSound(t.db);
  });

  test("a reason is optional (SPEC.md's call has none) and goes in the JSON body", async () => {
    const p = await send(payer, "12.00");
    const res = await reject(approver.client, p.id);
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({ status: "rejected", reason: null });
    const long = await send(payer, "12.00");
    const tooLong = await reject(approver.client, long.id, "x".repeat(501));
    expectStatus(tooLong, 422);
    expect(tooLong.json.fields).toEqual({ reason: "The reason has at most 500 characters." });
  });

  test("cancelling before it is sent returns the money: its creator, an owner or an admin may; others not", async () => {
    const before = await balanceOf(account.owner.client, "GBP");
    const mine = await send(payer, "15.00");
    expectStatus(await cancel(otherPayer.client, mine.id), 403);
    expectStatus(await cancel(viewer.client, mine.id), 403);
    const res = await cancel(payer.client, mine.id, "Paid by card instead");
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({ status: "cancelled", reason: "Paid by card instead" });

    const approved = await send(payer, "16.00");
    expectStatus(await approve(approver.client, approved.id), 200);
    const byOwner = await cancel(account.owner.client, approved.id);
    expectStatus(byOwner, 200);
    expect(byOwner.json.body.status).toBe("cancelled");
    expectStatus(await cancel(account.owner.client, approved.id), 409);
    expect(await balanceOf(account.owner.client, "GBP")).toEqual(before);
    await expectLedgerSound(t.db);
  });

  test("whoever prepared a payment may withdraw it while it waits, whatever their role since", async () => {
    const promoted = await addMember(t, account, "payer");
    const roleBecomes = (role: AccountRole) =>
      t.db.update(accountMembers).set({ role }).where(
        and(eq(accountMembers.accountId, account.accountId), eq(accountMembers.userId, promoted.id)),
      );
    const before = await balanceOf(account.owner.client, "GBP");
    const first = await send(promoted, "12.00");
    expect(first.status).toBe("pending_approval");
    await roleBecomes("approver");
    // Rejecting one's own payment is refused with the way out, and the way out is open.
    const rejected = await reject(promoted.client, first.id, "changed my mind");
    expectStatus(rejected, 403);
    expect(rejected.json.error).toBe("You prepared this payment: cancel it instead of rejecting it.");
    const seen = await promoted.client.get(`account/pendingpayments/one?id=${first.id}`);
    expect(seen.json.body.actions).toMatchObject({ approve: false, reject: false, cancel: true });
    const cancelled = await cancel(promoted.client, first.id, "changed my mind");
    expectStatus(cancelled, 200);
    expect(cancelled.json.body.status).toBe("cancelled");
    // Made a viewer since: they still withdraw what they prepared, and nothing of anyone else's.
    await roleBecomes("payer");
    const second = await send(promoted, "13.00");
    await roleBecomes("viewer");
    expectStatus(await cancel(promoted.client, second.id), 200);
    const others = await send(payer, "14.00");
    const refused = await cancel(promoted.client, others.id);
    expectStatus(refused, 403);
    expect(refused.json.error).toBe("Only the person who prepared a payment, an owner or an admin can cancel it.");
    expectStatus(await cancel(payer.client, others.id), 200);
    expect(await balanceOf(account.owner.client, "GBP")).toEqual(before);
  });

  test("the pending calls of SPEC.md section 7: all, paginated, one", async () => {
    const a = await send(payer, "1.50");
    const b = await send(payer, "2.50");
    const all = await approver.client.get("account/pendingpayments/all");
    expectStatus(all, 200);
    const ids = all.json.body.map((p: { id: number }) => p.id);
    expect(ids).toContain(a.id);
    expect(ids.indexOf(a.id)).toBeLessThan(ids.indexOf(b.id));
    expect(all.json.body.every((p: { status: string }) => p.status === "pending_approval")).toBe(true);
    const page = await approver.client.get("account/pendingpayments/paginated?page=1&per_page=1");
    expectStatus(page, 200);
    expect(page.json.body).toMatchObject({ page: 1, per_page: 1, total: ids.length });
    expect(page.json.body.items).toHaveLength(1);
    const one = await approver.client.get(`account/pendingpayments/one?id=${b.id}`);
    expect(one.json.body).toMatchObject({ id: b.id, created_by: { id: payer.id }, sell_amount: "2.50" });
    expectStatus(await approver.client.get("account/pendingpayments/one?id=999999"), 404);
    expectStatus(await approver.client.get("account/pendingpayments/one?id=abc"), 422);
  });

  test("another account's payments are not found", async () => {
    const other = await paymentAccount(t, admin);
    const p = await send(payer, "3.00");
    expectStatus(await other.owner.client.get(`account/pendingpayments/one?id=${p.id}`), 404);
    expectStatus(await approve(other.owner.client, p.id), 404);
    expectStatus(await other.owner.client.get(`account/payments/${p.id}`), 404);
    expectStatus(await cancel(other.owner.client, p.id), 404);
  });
});

describe("an administrator acting on behalf", () => {
  test("sees the customer's pending payments, may not approve or reject them, and is audited", async () => {
    await setRule(account.owner.client, { mode: "all" });
    const p = await send(payer, "7.00");
    expectStatus(await admin.client.post("account/onbehalf", { on_behalf_of: account.owner.id }), 200);
    try {
      const all = await admin.client.get("account/pendingpayments/all");
      expectStatus(all, 200);
      const seen = all.json.body.find((x: { id: number }) => x.id === p.id);
      expect(seen.actions).toEqual({
        approve: false,
        reject: false,
        cancel: true,
        note:
          "Administrators acting on behalf of a customer cannot approve or reject their payments: approval is between the customer's own people.",
      });
      const refused = await approve(admin.client, p.id);
      expectStatus(refused, 403);
      expect(refused.json.error).toMatch(/^Administrators acting on behalf/);
      expectStatus(await reject(admin.client, p.id, "no"), 403);

      // A payment prepared on the customer's behalf is the customer's, and says who prepared it.
      const made = await paid(admin.client, { recipient_id: recipient, amount: "8.00", sell_currency: "GBP" });
      const detail = await admin.client.get(`account/payments/${made.id}`);
      expect(detail.json.body.created_by.id).toBe(account.owner.id);
      expect(detail.json.body.events[0]).toMatchObject({
        event: "created",
        actor: { id: account.owner.id },
        on_behalf_admin: { id: admin.id },
      });
      // The approvers are told our team prepared it for the owner, as the timeline says, not the owner.
      const [told] = await t.db.select().from(notifications).where(
        and(eq(notifications.userId, approver.id), eq(notifications.link, `/account/pendingpayments/${made.id}`)),
      );
      expect(told.body).toMatch(/^.+ of our team \(on behalf of .+\) prepared a payment of /);
      expect(told.body).toContain(`(on behalf of ${detail.json.body.created_by.name}) prepared`);
      const audited = await t.db.select().from(auditLog).where(eq(auditLog.actorId, admin.id));
      const calls = audited.filter((a) => a.action === "on-behalf.call");
      expect(calls.map((a) => {
        const { method, path } = a.after as { method: string; path: string };
        return `${method} ${path}`;
      })).toEqual(
        expect.arrayContaining([
          `PUT /api/account/pendingpayments/update`,
          `POST /api/account/payments`,
        ]),
      );
      expect(calls.every((a) => a.subjectId === account.owner.id)).toBe(true);
    } finally {
      await admin.client.delete("account/onbehalf");
    }
    expectStatus(await approve(approver.client, p.id), 200);
  });
});

describe("a waiting payment's rate is held for a stated time (decision 092)", () => {
  const HOUR = 60 * 60 * 1000;
  const HOLD = PENDING_PAYMENT_RATE_HOURS * HOUR;

  beforeAll(async () => {
    await setRule(account.owner.client, { mode: "all" });
  });

  /**
   * `work` runs `ms` after now, with an approver who signs in then (everyone else's session has run
   * out by a day later); the clock goes back after it, for the tests that follow.
   */
  async function later(ms: number, work: (late: Member) => Promise<void>) {
    t.clock.advance(ms);
    try {
      await work(await addMember(t, account, "approver"));
    } finally {
      t.clock.advance(-ms);
    }
  }

  test("converted on the way: approved within the time at its rate, and its page says until when", async () => {
    const p = await send(payer, "30.00");
    const until = new Date(Date.parse(p.created_at) + HOLD).toISOString();
    expect(p).toMatchObject({ status: "pending_approval", rate_held_until: until });
    const seen = await approver.client.get(`account/pendingpayments/one?id=${p.id}`);
    expect(seen.json.body).toMatchObject({ rate_held_until: until, actions: { approve: true, note: null } });
    await later(HOLD - 60_000, async (late) => {
      const res = await approve(late.client, p.id);
      expectStatus(res, 200);
      expect(res.json.body).toMatchObject({ status: "approved", rate: p.rate, buy_amount: p.buy_amount });
      expect(res.json.body.rate_held_until, "no longer waiting: nothing to hold").toBeNull();
    });
  });

  test("after the time it cannot be approved (409 rate_expired), nothing changes, and the approver is told to reject it", async () => {
    const p = await send(payer, "31.00");
    const expiredAt = new Date(Date.parse(p.created_at) + HOLD);
    const why = `The rate held for this payment expired at ${momentInUtc(expiredAt)}, so it cannot be approved: ` +
      "reject it, and prepare it again at today's rate.";
    await later(HOLD, async (late) => {
      const before = await balanceOf(late.client, "GBP");
      let res: Awaited<ReturnType<typeof approve>> | undefined;
      expect(await paymentRowWrites(t.db, async () => void (res = await approve(late.client, p.id)))).toEqual([]);
      expectStatus(res!, 409);
      expect(res!.json).toMatchObject({ code: "rate_expired", error: why });
      expect(await balanceOf(late.client, "GBP")).toEqual(before);
      const still = await late.client.get(`account/pendingpayments/one?id=${p.id}`);
      expect(still.json.body).toMatchObject({
        status: "pending_approval",
        rate_held_until: expiredAt.toISOString(),
        actions: { approve: false, reject: true, note: why },
      });
      expect(still.json.body.events.map((e: { event: string }) => e.event)).toEqual(["created", "approval_requested"]);
      const listed = await late.client.get("account/pendingpayments/all");
      expect(listed.json.body.find((x: { id: number }) => x.id === p.id).actions).toMatchObject({
        approve: false,
        note: why,
      });
      // Rejecting still returns the held money, as ever.
      expectStatus(await reject(late.client, p.id, "Rate expired"), 200);
      expect(Number((await balanceOf(late.client, "GBP")).held)).toBeCloseTo(
        Number(before.held) - Number(p.sell_amount),
        2,
      );
    });
  });

  test("after the time its preparer is told nobody can approve it any more and to cancel it, not to wait for an approver", async () => {
    const p = await send(payer, "33.00");
    // Confirmed a day and a minute ago, so that the preparer's own session is still the one of today.
    const confirmed = new Date(t.clock.now() - HOLD - 60_000);
    await t.db.update(payments).set({ createdAt: confirmed }).where(eq(payments.id, p.id));
    const expiredAt = momentInUtc(new Date(confirmed.getTime() + HOLD));
    const own = await payer.client.get(`account/pendingpayments/one?id=${p.id}`);
    expect(own.json.body.actions).toEqual({
      approve: false,
      reject: false,
      cancel: true,
      note: `The rate held for this payment expired at ${expiredAt}, so it can no longer be approved: cancel it, ` +
        "and prepare it again at today's rate.",
    });
    expectStatus(await payer.client.post(`account/payments/${p.id}/cancel`, {}), 200);
  });

  test("a payment in the recipient's own currency has no rate: approved however long it waited", async () => {
    const p = await send(payer, "32.00", "EUR");
    expect(p.rate_held_until).toBeNull();
    await later(HOLD + HOUR, async (late) => {
      const res = await approve(late.client, p.id);
      expectStatus(res, 200);
      expect(res.json.body.status).toBe("approved");
    });
  });
});
