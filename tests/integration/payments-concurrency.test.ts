import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { paymentEvents, payments } from "../../db/schema-payments.ts";
import { type Admin, expectStatus } from "../helpers/client.ts";
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
  quotePayment,
  setRule,
} from "../helpers/payments.ts";

/**
 * People acting on the same payment at the same moment (issue 8, "Concurrency"): each status change
 * is a conditional update in one transaction, so a payment is approved once, ends in one state, and
 * a balance never pays for more than it holds.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;
let account: PaymentAccount;
let payer: Member;
let approvers: Member[];
let recipient: number;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  account = await paymentAccount(t, admin, { GBP: "5000.00" });
  payer = await addMember(t, account, "payer");
  approvers = [await addMember(t, account, "approver"), await addMember(t, account, "approver")];
  recipient = await addRecipient(t, account, { currency: "EUR", country: "FR" });
  await setRule(account.owner.client, { mode: "all" });
});

const eventsOf = async (paymentId: number) =>
  (await t.db.select().from(paymentEvents).where(eq(paymentEvents.paymentId, paymentId))).map((e) => e.event);

describe("two approvers approving the same payment at once", () => {
  test("it is approved once: one 200, one 409, one approved event", async () => {
    for (let round = 0; round < 5; round++) {
      const p = await paid(payer.client, { recipient_id: recipient, amount: "10.00", sell_currency: "GBP" });
      const answers = await Promise.all(approvers.map((a) => approve(a.client, p.id)));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
      const conflict = answers.find((a) => a.status === 409)!;
      expect(conflict.json.error).toBe("This payment is no longer waiting for approval: it has been approved.");
      const winner = approvers[answers.findIndex((a) => a.status === 200)];
      const [row] = await t.db.select().from(payments).where(eq(payments.id, p.id));
      expect(row.approvedBy).toBe(winner.id);
      expect((await eventsOf(p.id)).filter((e) => e === "approved")).toHaveLength(1);
    }
    await expectLedgerSound(t.db);
  });
});

describe("approve racing cancel", () => {
  test("the payment ends in one state, its money released exactly once", async () => {
    for (let round = 0; round < 6; round++) {
      const before = await balanceOf(account.owner.client, "GBP");
      const p = await paid(payer.client, { recipient_id: recipient, amount: "20.00", sell_currency: "GBP" });
      // Alternate who is sent first, so both orders of arrival happen.
      const [approved, cancelled] = round % 2 === 0
        ? await Promise.all([approve(approvers[0].client, p.id), cancel(payer.client, p.id)])
        : (await Promise.all([cancel(payer.client, p.id), approve(approvers[0].client, p.id)])).reverse();
      const [row] = await t.db.select().from(payments).where(eq(payments.id, p.id));
      const events = await eventsOf(p.id);
      // Cancelling is allowed before sending, approved or not: either it was approved then cancelled,
      // or cancelled and the approval refused. Never approved and left with its money returned.
      expectStatus(cancelled, 200);
      expect(row.status).toBe("cancelled");
      if (approved.status === 200) {
        expect(events).toEqual(["created", "approval_requested", "approved", "cancelled"]);
      } else {
        expectStatus(approved, 409);
        expect(approved.json.error).toBe("This payment is no longer waiting for approval: it was cancelled.");
        expect(events).toEqual(["created", "approval_requested", "cancelled"]);
      }
      expect(await balanceOf(account.owner.client, "GBP"), "the hold was released once").toEqual(before);
    }
    await expectLedgerSound(t.db);
  });
});

describe("twenty payments at once against a balance that covers nine", () => {
  test("nine are made and held, eleven refused for want of money; nothing goes below zero", async () => {
    const small = await paymentAccount(t, admin, { GBP: "900.00" });
    const to = await addRecipient(t, small, { currency: "EUR", country: "FR" });
    const quotes: string[] = [];
    for (let i = 0; i < 20; i++) {
      const q = await quotePayment(small.owner.client, { recipient_id: to, amount: "100.00", sell_currency: "GBP" });
      expectStatus(q, 200);
      quotes.push(q.json.body.id);
    }
    const answers = await Promise.all(
      quotes.map((id) => small.owner.client.post("account/payments", { quote_id: id, reference: "Rent" })),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s !== 201 && s !== 422), answers.map((a) => a.text).join("\n")).toEqual([]);
    expect(statuses.filter((s) => s === 201)).toHaveLength(9);
    expect(statuses.filter((s) => s === 422)).toHaveLength(11);
    for (const refused of answers.filter((a) => a.status === 422)) {
      expect(refused.json.error).toMatch(/^Not enough GBP: your available balance is 0\.00 GBP/);
    }
    expect(await balanceOf(small.owner.client, "GBP")).toEqual({ available: "0.00", held: "900.00" });
    const made = await t.db.select().from(payments).where(eq(payments.accountId, small.accountId));
    expect(made).toHaveLength(9);
    await expectLedgerSound(t.db);
  });
});
