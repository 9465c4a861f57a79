import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { type Admin, expectStatus } from "../helpers/client.ts";
import { dyingInstance } from "../helpers/dying-instance.ts";
import { expectLedgerSound, type MoneyApp, moneyApp } from "../helpers/money.ts";
import {
  addMember,
  addRecipient,
  balanceOf,
  type Member,
  type PaymentAccount,
  paymentAccount,
  quotePayment,
  setRule,
} from "../helpers/payments.ts";

/**
 * Idempotency-Key on the payment calls that move or decide money (decision 025, as conversions): the
 * answer commits with the change, so a retry after the process died between the COMMIT and the
 * reply is told what happened, and nothing happens twice.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;
let account: PaymentAccount;
let payer: Member;
let approver: Member;
let recipient: number;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  account = await paymentAccount(t, admin, { GBP: "1000.00" });
  payer = await addMember(t, account, "payer");
  approver = await addMember(t, account, "approver");
  recipient = await addRecipient(t, account, { currency: "EUR", country: "FR" });
  await setRule(account.owner.client, { mode: "all" });
});
afterAll(() => expectLedgerSound(t.db));
afterEach(() => {
  vi.restoreAllMocks();
});

const rows = async (sql: string, args: (string | number)[]) => (await t.db.$client.execute({ sql, args })).rows;

async function heldQuote(): Promise<string> {
  const res = await quotePayment(payer.client, { recipient_id: recipient, amount: "100.00", sell_currency: "GBP" });
  expectStatus(res, 200);
  return res.json.body.id;
}

describe("a retry after the process died between the change's commit and its answer", () => {
  test("making a payment: the retry gets the payment's 201, the same every time, and the money is held once", async () => {
    const before = await balanceOf(payer.client, "GBP");
    const quoteId = await heldQuote();
    const body = { quote_id: quoteId, reference: "Invoice 9" };
    const key = `pay-${crypto.randomUUID()}`;
    const dying = await dyingInstance(t.db, {
      now: t.clock.now,
      diesAfter: async () => (await rows("SELECT 1 FROM payments WHERE quote_id = ?", [quoteId])).length > 0,
    });
    try {
      void payer.client.to(dying.app).post("account/payments", body, { "Idempotency-Key": key });
      await dying.died;

      const retry = await payer.client.post("account/payments", body, { "Idempotency-Key": key });
      expect(retry.status, retry.text).toBe(201);
      const [made] = await rows("SELECT id FROM payments WHERE quote_id = ?", [quoteId]);
      expect(retry.json.body).toMatchObject({ id: made.id, status: "pending_approval", sell_amount: "100.00" });

      vi.spyOn(Date, "now").mockReturnValue(Date.now() + 61_000);
      const again = await payer.client.post("account/payments", body, { "Idempotency-Key": key });
      expect(again.status, again.text).toBe(201);
      expect(again.text).toBe(retry.text);
    } finally {
      dying.close();
    }
    expect(await rows("SELECT id FROM payments WHERE quote_id = ?", [quoteId])).toHaveLength(1);
    const after = await balanceOf(payer.client, "GBP");
    expect(Number(after.available)).toBeCloseTo(Number(before.available) - 100, 2);
    expect(Number(after.held)).toBeCloseTo(Number(before.held) + 100, 2);
  });

  test("approving: the retry is told it was approved (not that it no longer waits), approved once", async () => {
    const made = await payer.client.post("account/payments", { quote_id: await heldQuote(), reference: "Invoice 10" });
    expectStatus(made, 201);
    const id = made.json.body.id as number;
    const path = `account/pendingpayments/update?id=${id}`;
    const key = `approve-${crypto.randomUUID()}`;
    const approvedEvents = () => rows("SELECT 1 FROM payment_events WHERE payment_id = ? AND event = 'approved'", [id]);
    const dying = await dyingInstance(t.db, {
      now: t.clock.now,
      diesAfter: async () => (await approvedEvents()).length > 0,
    });
    try {
      void approver.client.to(dying.app).put(path, undefined, { "Idempotency-Key": key });
      await dying.died;

      const retry = await approver.client.put(path, undefined, { "Idempotency-Key": key });
      expect(retry.status, retry.text).toBe(200);
      expect(retry.json.body).toMatchObject({ id, status: "approved", approved_by: { id: approver.id } });
      expect(retry.json.body.events.map((e: { event: string }) => e.event)).toEqual([
        "created",
        "approval_requested",
        "approved",
      ]);
    } finally {
      dying.close();
    }
    expect(await approvedEvents()).toHaveLength(1);
  });

  test("rejecting: the stored answer is the one the client got, byte for byte, and the money returned once", async () => {
    const made = await payer.client.post("account/payments", { quote_id: await heldQuote(), reference: "Invoice 11" });
    expectStatus(made, 201);
    const held = (await balanceOf(payer.client, "GBP")).held;
    const key = `reject-${crypto.randomUUID()}`;
    const path = `account/pendingpayments/one?id=${made.json.body.id}`;
    const first = await approver.client.delete(path, { reason: "Wrong invoice" }, { "Idempotency-Key": key });
    expectStatus(first, 200);
    const [stored] = await rows("SELECT state, response_status, response_body FROM idempotency_keys WHERE key = ?", [
      key,
    ]);
    expect(stored).toMatchObject({ state: "done", response_status: 200, response_body: first.text });
    const again = await approver.client.delete(path, { reason: "Wrong invoice" }, { "Idempotency-Key": key });
    expect(again.text).toBe(first.text);
    expect(Number((await balanceOf(payer.client, "GBP")).held)).toBeCloseTo(Number(held) - 100, 2);
  });
});

describe("two attempts with one key at once (the key is claimed with the change, decision 053)", () => {
  test("making a payment: both get its 201, the money held once, and the retry replays the 201", async () => {
    const before = await balanceOf(payer.client, "GBP");
    const quoteId = await heldQuote();
    const body = { quote_id: quoteId, reference: "Invoice 12" };
    const key = `pay-${crypto.randomUUID()}`;
    const send = () => payer.client.post("account/payments", body, { "Idempotency-Key": key });
    const answers = await Promise.all([send(), send()]);
    expect(answers.map((a) => a.status)).toEqual([201, 201]);
    expect(answers[0].text).toBe(answers[1].text);
    const retry = await send();
    expect([retry.status, retry.text]).toEqual([201, answers[0].text]);
    expect(await rows("SELECT id FROM payments WHERE quote_id = ?", [quoteId])).toHaveLength(1);
    expect(Number((await balanceOf(payer.client, "GBP")).held)).toBeCloseTo(Number(before.held) + 100, 2);
  });

  test("approving: approved once with one event, both get its 200, and the retry replays it", async () => {
    const made = await payer.client.post("account/payments", { quote_id: await heldQuote(), reference: "Invoice 13" });
    expectStatus(made, 201);
    const id = made.json.body.id as number;
    const path = `account/pendingpayments/update?id=${id}`;
    const key = `approve-${crypto.randomUUID()}`;
    const send = () => approver.client.put(path, undefined, { "Idempotency-Key": key });
    const answers = await Promise.all([send(), send()]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers[0].text).toBe(answers[1].text);
    const retry = await send();
    expect([retry.status, retry.text]).toEqual([200, answers[0].text]);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    const approved = await rows("SELECT 1 FROM payment_events WHERE payment_id = ? AND event = 'approved'", [id]);
    expect(approved).toHaveLength(1);
  });
});
