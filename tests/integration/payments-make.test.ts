import Big from "big.js";
import { eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { paymentEvents, paymentQuotes, payments } from "../../db/schema-payments.ts";
import { type Admin, expectStatus, MINUTE } from "../helpers/client.ts";
import { expectLedgerSound, type MoneyApp, moneyApp } from "../helpers/money.ts";
import {
  addRecipient,
  balanceOf,
  pay,
  type PaymentAccount,
  paymentAccount,
  quotePayment,
} from "../helpers/payments.ts";

/**
 * Making a payment (issue 8 item 2; decision 030): the full cost before confirming, then the money
 * held at once. A quote pays once and only while it holds; a reference the rail cannot carry, or a
 * balance that cannot cover the total, changes nothing.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let t: MoneyApp;
let admin: Admin;
let account: PaymentAccount;
let eurRecipient: number;
let gbpRecipient: number;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  account = await paymentAccount(t, admin, { GBP: "1000.00", EUR: "50.00" });
  eurRecipient = await addRecipient(t, account, { name: "Jean Dupont", currency: "EUR", country: "FR" });
  gbpRecipient = await addRecipient(t, account, { name: "Tom Atkins", currency: "GBP", country: "GB" });
});

// Whatever a test did (paid, approved, refused, rejected, cancelled), the books still balance after it.
afterEach(() => expectLedgerSound(t.db));

const minor = (text: string) => Number(text.replace(".", ""));

describe("the full cost, before confirming", () => {
  test("from GBP to a EUR recipient: mid-market rate, our rate, the markup in money, the fee, the total, what arrives", async () => {
    const res = await quotePayment(account.owner.client, {
      recipient_id: eurRecipient,
      amount: "200.00",
      sell_currency: "GBP",
    });
    expectStatus(res, 200);
    const q = res.json.body;
    expect(q).toMatchObject({
      recipient_id: eurRecipient,
      sell_currency: "GBP",
      sell_amount: "200.00",
      buy_currency: "EUR",
      fee: "1.00",
      fee_currency: "GBP",
      priority: false,
      rail: "sepa",
      rail_kind: "local",
      rail_name: "SEPA transfer",
      reference_max: 140,
    });
    // What arrives is what is converted at our rate, rounded down.
    const converted = minor(q.sell_amount) - minor(q.fee);
    expect(minor(q.buy_amount)).toBe(new Big(converted).times(q.rate).round(0, Big.roundDown).toNumber());
    expect(Number(q.rate)).toBeLessThan(Number(q.mid_rate));
    // The markup is what the same amount would have cost less at mid: converted at mid + markup + fee = total.
    const atMid = new Big(minor(q.buy_amount)).div(q.mid_rate).round(0, Big.roundHalfUp).toNumber();
    expect(minor(q.markup)).toBe(converted - atMid);
    expect(minor(q.markup)).toBeGreaterThan(0);
    // 1.5 % of 199.00 GBP is about 2.98 GBP.
    expect(minor(q.markup)).toBeGreaterThan(290);
    expect(minor(q.markup)).toBeLessThan(305);
    // Sent on a Monday at 09:00 UTC (the test clock): SEPA arrives the next business day.
    expect(q.expected_arrival).toBe("2026-03-03T09:00:00.000Z");
    expect(Date.parse(q.expires_at) - t.clock.now()).toBe(30_000);
  });

  test("priority costs the plan's priority fee and arrives sooner", async () => {
    const res = await quotePayment(account.owner.client, {
      recipient_id: eurRecipient,
      amount: "200.00",
      sell_currency: "GBP",
      priority: true,
    });
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({ fee: "5.00", priority: true });
    expect(res.json.body.expected_arrival, "SEPA Instant").toBe(new Date(t.clock.now()).toISOString());
  });

  test("priority is not sold where a regular payment already arrives within seconds (UK Faster Payments)", async () => {
    const res = await quotePayment(account.owner.client, {
      recipient_id: gbpRecipient,
      amount: "20.00",
      sell_currency: "GBP",
      priority: true,
    });
    expectStatus(res, 422);
    expect(res.json.fields.priority).toBe(
      "A UK bank transfer (Faster Payments) arrives within seconds already: there is no priority to pay for.",
    );
    const regular = await quotePayment(account.owner.client, {
      recipient_id: gbpRecipient,
      amount: "20.00",
      sell_currency: "GBP",
    });
    expectStatus(regular, 200);
    expect(regular.json.body).toMatchObject({ fee: "1.00", priority: false, rail: "faster_payments" });
  });

  test("fixed on what they receive: that amount arrives exactly and the total is computed", async () => {
    const res = await quotePayment(account.owner.client, {
      recipient_id: eurRecipient,
      amount: "100.00",
      fixed: "receive",
      sell_currency: "GBP",
    });
    expectStatus(res, 200);
    const q = res.json.body;
    expect(q.buy_amount).toBe("100.00");
    const converted = minor(q.sell_amount) - minor(q.fee);
    expect(new Big(converted).times(q.rate).gte(10000), "enough is converted").toBe(true);
    expect(new Big(converted - 1).times(q.rate).lt(10000), "and not one penny more").toBe(true);
  });

  test("in the recipient's own currency: no rate and no markup; what arrives is the amount less the fee", async () => {
    const res = await quotePayment(account.owner.client, {
      recipient_id: gbpRecipient,
      amount: "100.00",
      sell_currency: "GBP",
    });
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({
      sell_amount: "100.00",
      buy_amount: "99.00",
      fee: "1.00",
      mid_rate: null,
      rate: null,
      markup: null,
      rail: "faster_payments",
      reference_max: 18,
      expected_arrival: new Date(t.clock.now()).toISOString(),
    });
    const received = await quotePayment(account.owner.client, {
      recipient_id: gbpRecipient,
      amount: "100.00",
      fixed: "receive",
      sell_currency: "GBP",
    });
    expect(received.json.body).toMatchObject({ sell_amount: "101.00", buy_amount: "100.00" });
  });

  test("bad input is refused naming the field, and nothing is held", async () => {
    const before = await t.db.select().from(paymentQuotes);
    const tooSmall = await quotePayment(account.owner.client, {
      recipient_id: gbpRecipient,
      amount: "1.00",
      sell_currency: "GBP",
    });
    expectStatus(tooSmall, 422);
    expect(tooSmall.json).toMatchObject({
      error: "The amount must be more than the fee of 1.00 GBP.",
      fields: { amount: "The amount must be more than the fee of 1.00 GBP." },
    });
    const noCurrency = await quotePayment(account.owner.client, {
      recipient_id: eurRecipient,
      amount: "10.00",
      sell_currency: "XYZ",
    });
    expectStatus(noCurrency, 422);
    expect(noCurrency.json.fields).toHaveProperty("sell_currency");
    const noFixed = await account.owner.client.post("account/payments/quote", {
      recipient_id: eurRecipient,
      amount: "10.00",
      sell_currency: "GBP",
      fixed: "sell",
    });
    expectStatus(noFixed, 422);
    expect(noFixed.json.fields).toEqual({ fixed: "fixed is send or receive." });
    const noRecipient = await quotePayment(account.owner.client, {
      recipient_id: 999_999,
      amount: "10.00",
      sell_currency: "GBP",
    });
    expectStatus(noRecipient, 404);
    expect(await t.db.select().from(paymentQuotes)).toHaveLength(before.length);
  });
});

describe("confirming", () => {
  test("the payment is made and its money held at once: available goes down, held goes up", async () => {
    const before = await balanceOf(account.owner.client, "GBP");
    const res = await pay(account.owner.client, { recipient_id: eurRecipient, amount: "100.00", sell_currency: "GBP" });
    expectStatus(res, 201);
    const p = res.json.body;
    expect(p).toMatchObject({
      status: "approved",
      recipient_id: eurRecipient,
      recipient: { name: "Jean Dupont", currency: "EUR", country: "FR", details: { iban: "DE89370400440532013000" } },
      sell_currency: "GBP",
      sell_amount: "100.00",
      buy_currency: "EUR",
      rail: "sepa",
      reference: "Invoice 17",
      created_by: { id: account.owner.id, name: "Ada Lovelace", email: account.owner.email },
      approved_by: null,
      actions: { approve: false, reject: false, cancel: true, note: null },
    });
    const after = await balanceOf(account.owner.client, "GBP");
    expect(minor(after.available)).toBe(minor(before.available) - 10000);
    expect(minor(after.held)).toBe(minor(before.held) + 10000);
    const events = await t.db.select().from(paymentEvents).where(eq(paymentEvents.paymentId, p.id));
    expect(events.map((e) => e.event)).toEqual(["created"]);
    await expectLedgerSound(t.db);
  });

  test("the recipient is kept as paid, whatever it becomes later", async () => {
    const recipient = await addRecipient(t, account, { name: "Old Name", currency: "EUR", country: "DE" });
    const res = await pay(account.owner.client, { recipient_id: recipient, amount: "20.00", sell_currency: "EUR" });
    expectStatus(res, 201);
    await t.db.$client.execute({ sql: "UPDATE recipients SET name = 'New Name' WHERE id = ?", args: [recipient] });
    const detail = await account.owner.client.get(`account/payments/${res.json.body.id}`);
    expectStatus(detail, 200);
    expect(detail.json.body.recipient.name).toBe("Old Name");
  });

  test("a reference the rail cannot carry is refused naming reference, and the quote stays usable", async () => {
    const quote = await quotePayment(account.owner.client, {
      recipient_id: gbpRecipient,
      amount: "10.00",
      sell_currency: "GBP",
    });
    const long = await account.owner.client.post("account/payments", {
      quote_id: quote.json.body.id,
      reference: "Invoice 2026-03-0001",
    });
    expectStatus(long, 422);
    expect(long.json.fields).toEqual({
      reference: "A UK bank transfer (Faster Payments) carries a reference of at most 18 characters; this one has 20.",
    });
    const odd = await account.owner.client.post("account/payments", {
      quote_id: quote.json.body.id,
      reference: "Rent: March",
    });
    expectStatus(odd, 422);
    expect(odd.json.fields.reference).toMatch(/not “:”/);
    const fine = await account.owner.client.post("account/payments", {
      quote_id: quote.json.body.id,
      reference: "Rent March",
    });
    expectStatus(fine, 201);
  });

  test("a quote pays once, and only while it holds", async () => {
    const quote = await quotePayment(account.owner.client, {
      recipient_id: eurRecipient,
      amount: "10.00",
      sell_currency: "GBP",
    });
    const first = await account.owner.client.post("account/payments", { quote_id: quote.json.body.id, reference: "A" });
    expectStatus(first, 201);
    const again = await account.owner.client.post("account/payments", { quote_id: quote.json.body.id, reference: "A" });
    expectStatus(again, 409);
    expect(again.json.error).toBe("This quote was already used. Get a new quote.");
    expect(again.json.code).toBe("quote_used");

    const late = await quotePayment(account.owner.client, {
      recipient_id: eurRecipient,
      amount: "10.00",
      sell_currency: "GBP",
    });
    t.clock.advance(MINUTE);
    const expired = await account.owner.client.post("account/payments", {
      quote_id: late.json.body.id,
      reference: "A",
    });
    expectStatus(expired, 409);
    expect(expired.json.error).toBe("This quote has expired. Get a new quote.");
    // What a screen decides on: a name that stays when the words change (docs/API.md).
    expect(expired.json.code).toBe("quote_expired");
  });

  test("when the balance is short: 422 naming the shortfall, and nothing changes", async () => {
    const before = await balanceOf(account.owner.client, "EUR");
    const count = (await t.db.select().from(payments)).length;
    const res = await pay(account.owner.client, { recipient_id: eurRecipient, amount: "500.00", sell_currency: "EUR" });
    expectStatus(res, 422);
    expect(res.json.error).toBe(
      `Not enough EUR: your available balance is ${before.available} EUR and this payment needs 500.00 EUR, ${
        (500 - Number(before.available)).toFixed(2)
      } EUR more.`,
    );
    expect(await balanceOf(account.owner.client, "EUR")).toEqual(before);
    expect(await t.db.select().from(payments)).toHaveLength(count);
    await expectLedgerSound(t.db);
  });

  test("a deleted recipient cannot be paid on an older quote", async () => {
    const recipient = await addRecipient(t, account, { currency: "EUR", country: "FR" });
    const quote = await quotePayment(account.owner.client, {
      recipient_id: recipient,
      amount: "10.00",
      sell_currency: "GBP",
    });
    await t.db.$client.execute({ sql: "UPDATE recipients SET deleted_at = 1 WHERE id = ?", args: [recipient] });
    const res = await account.owner.client.post("account/payments", { quote_id: quote.json.body.id, reference: "A" });
    expectStatus(res, 409);
    expect(res.json.error).toBe("This recipient was deleted. Choose another recipient.");
    expect(res.json.code).toBe("recipient_deleted");
  });

  test("a cost shown for the recipient's old bank details does not pay the new ones: 409, nothing held, the full cost again pays them", async () => {
    const recipient = await addRecipient(t, account, { name: "Tom Atkins", currency: "GBP", country: "GB" });
    const shown = await quotePayment(account.owner.client, {
      recipient_id: recipient,
      amount: "25.00",
      sell_currency: "GBP",
    });
    expectStatus(shown, 200);
    const newDetails = { sort_code: "089999", account_number: "66374958" };
    const changed = await account.owner.client.put(`account/recipients/${recipient}`, {
      name: "Tom Atkins",
      type: "person",
      currency: "GBP",
      country: "GB",
      details: newDetails,
    });
    expectStatus(changed, 200);
    const before = await balanceOf(account.owner.client, "GBP");

    const res = await account.owner.client.post("account/payments", { quote_id: shown.json.body.id, reference: "A" });
    expectStatus(res, 409);
    expect(res.json.error).toBe(
      "This recipient's bank details changed since this cost was shown. Get the full cost again to pay.",
    );
    expect(res.json.code).toBe("details_changed");
    expect(await balanceOf(account.owner.client, "GBP")).toEqual(before);
    expect(await t.db.select().from(payments).where(eq(payments.recipientId, recipient))).toEqual([]);

    const again = await pay(account.owner.client, { recipient_id: recipient, amount: "25.00", sell_currency: "GBP" });
    expectStatus(again, 201);
    expect(again.json.body.recipient.details).toEqual(newDetails);
  });

  test("a change of the recipient's name alone still pays on the cost shown", async () => {
    const recipient = await addRecipient(t, account, { name: "Tom Atkins", currency: "GBP", country: "GB" });
    const shown = await quotePayment(account.owner.client, {
      recipient_id: recipient,
      amount: "5.00",
      sell_currency: "GBP",
    });
    const renamed = await account.owner.client.put(`account/recipients/${recipient}`, {
      name: "Thomas Atkins",
      type: "person",
      currency: "GBP",
      country: "GB",
      details: { sort_code: "200000", account_number: "55779911" },
    });
    expectStatus(renamed, 200);
    const res = await account.owner.client.post("account/payments", { quote_id: shown.json.body.id, reference: "B" });
    expectStatus(res, 201);
    expect(res.json.body.recipient.name).toBe("Thomas Atkins");
  });

  test("the list shows the account's payments, newest first, by status when asked", async () => {
    const all = await account.owner.client.get("account/payments?per_page=2");
    expectStatus(all, 200);
    expect(all.json.body.items).toHaveLength(2);
    expect(all.json.body.total).toBeGreaterThanOrEqual(4);
    expect(all.json.body.items[0].id).toBeGreaterThan(all.json.body.items[1].id);
    const approved = await account.owner.client.get("account/payments?status=approved");
    expect(approved.json.body.items.every((p: { status: string }) => p.status === "approved")).toBe(true);
    const bad = await account.owner.client.get("account/payments?status=lost");
    expectStatus(bad, 422);
  });
});
