import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { emails } from "../../db/schema.ts";
import { ledgerAccounts, ledgerTransfers } from "../../db/schema-money.ts";
import { type Admin, anotherAdmin, expectStatus } from "../helpers/client.ts";
import {
  balances,
  expectLedgerSound,
  fund,
  type MoneyApp,
  moneyApp,
  type OpenCustomer,
  openCustomer,
  postReceipt,
} from "../helpers/money.ts";

/**
 * Money safety of the console's receipts (issue 14, finding 8): a receipt above the approval amount
 * waits for a second administrator; a repeat of the same reference, amount, currency and date is
 * held as a likely duplicate; a receipt can be reversed with reversing entries unless the money
 * has moved on; a reference naming two account_refs credits nobody until a person allocates it.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let t: MoneyApp;
let recorder: Admin;
let checker: Admin;
let ada: OpenCustomer;
let bob: OpenCustomer;
beforeAll(async () => {
  ({ t, admin: recorder } = await moneyApp());
  checker = await anotherAdmin(t);
  ada = await openCustomer(t);
  bob = await openCustomer(t);
});
afterAll(() => expectLedgerSound(t.db));

async function mailsTo(address: string) {
  return (await t.db.select({ id: emails.id }).from(emails).where(eq(emails.to, address))).length;
}

/** The house's mirror of the bank in a currency, in minor units (0 when never used). */
async function incoming(currency: string): Promise<number> {
  const rows = await t.db.select().from(ledgerAccounts).where(eq(ledgerAccounts.purpose, "incoming_funds"));
  return rows.find((r) => r.currency === currency)?.balance ?? 0;
}

describe("a receipt above the approval amount waits for a second administrator", () => {
  let huge: number;

  test("GBP 999,999,999,999.00 quoting an account_ref is recorded as awaiting approval: nobody is credited or emailed", async () => {
    const mails = await mailsTo(ada.email);
    const bank = await incoming("GBP");
    const res = await postReceipt(t, recorder, {
      amount: "999999999999.00",
      currency: "GBP",
      reference: ada.accountRef,
    });
    expectStatus(res, 201);
    expect(res.json.body).toMatchObject({
      status: "awaiting_approval",
      account_ref: ada.accountRef,
      recorded_by: { id: recorder.id, email: recorder.email },
      approved_by: null,
    });
    huge = res.json.body.id;
    expect(await balances(ada.client)).toEqual({});
    expect(await mailsTo(ada.email)).toBe(mails);
    expect(await incoming("GBP")).toBe(bank);
    const waiting = await checker.client.get("console/receipts?status=awaiting_approval");
    expectStatus(waiting, 200);
    expect(waiting.json.body.map((r: { id: number }) => r.id)).toContain(huge);
  });

  test("the amount is measured in pounds at the current rates: 50,000.00 GBP and 55,000 EUR credit at once, 60,000 EUR waits", async () => {
    // Each to an account of its own: to one account, their day's total would count (receipts-limits.test.ts).
    const [one, two, three] = [await openCustomer(t), await openCustomer(t), await openCustomer(t)];
    const limit = await postReceipt(t, recorder, { amount: "50000.00", currency: "GBP", reference: one.accountRef });
    expect(limit.json.body.status).toBe("matched");
    // At the indicative rates 1 EUR is 0.879 GBP: 55,000 EUR is 48,345 GBP, 60,000 EUR 52,740 GBP.
    const under = await postReceipt(t, recorder, { amount: "55000.00", currency: "EUR", reference: two.accountRef });
    expect(under.json.body.status).toBe("matched");
    const over = await postReceipt(t, recorder, { amount: "60000.00", currency: "EUR", reference: three.accountRef });
    expect(over.json.body.status).toBe("awaiting_approval");
    expect(await balances(one.client)).toEqual({ GBP: "50000.00" });
    expect(await balances(two.client)).toEqual({ EUR: "55000.00" });
    expect(await balances(three.client)).toEqual({});
  });

  test("the administrator who recorded it cannot approve it: 403, still waiting", async () => {
    const res = await recorder.client.post(`console/receipts/${huge}/approve`);
    expectStatus(res, 403);
    expect(res.json.error).toBe("You recorded this receipt: another administrator must approve it.");
    const list = await recorder.client.get("console/receipts?status=awaiting_approval");
    expect(list.json.body.map((r: { id: number }) => r.id)).toContain(huge);
    expect(await balances(ada.client)).toEqual({});
  });

  test("a second administrator approves it: credited, the customer emailed, approved once", async () => {
    const res = await checker.client.post(`console/receipts/${huge}/approve`);
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({
      id: huge,
      status: "matched",
      account_ref: ada.accountRef,
      approved_by: { id: checker.id, email: checker.email },
    });
    expect(await balances(ada.client)).toEqual({ GBP: "999999999999.00" });
    const mail = await t.db.select().from(emails).where(eq(emails.to, ada.email));
    expect(mail.at(-1)?.subject).toBe("We received 999999999999.00 GBP");
    expectStatus(await checker.client.post(`console/receipts/${huge}/approve`), 409);
    expect(await balances(ada.client)).toEqual({ GBP: "999999999999.00" });
  });

  test("declined with a reason (its recorder may decline it): nothing credited, and it cannot be approved afterwards", async () => {
    const res = await postReceipt(t, recorder, { amount: "75000.00", currency: "GBP", reference: bob.accountRef });
    expect(res.json.body.status).toBe("awaiting_approval");
    const id = res.json.body.id;
    const noReason = await recorder.client.post(`console/receipts/${id}/decline`, { reason: " " });
    expectStatus(noReason, 422);
    expect(noReason.json.fields).toHaveProperty("reason");
    const declined = await recorder.client.post(`console/receipts/${id}/decline`, {
      reason: "Typed 75000 for 750.00",
    });
    expectStatus(declined, 200);
    expect(declined.json.body).toMatchObject({ id, status: "declined", reason: "Typed 75000 for 750.00" });
    expectStatus(await checker.client.post(`console/receipts/${id}/approve`), 409);
    expect(await balances(bob.client)).toEqual({});
  });

  test("two approvals at the same moment credit it once", async () => {
    const res = await postReceipt(t, recorder, { amount: "80000.00", currency: "GBP", reference: bob.accountRef });
    const id = res.json.body.id;
    const third = await anotherAdmin(t);
    const answers = await Promise.all([
      checker.client.post(`console/receipts/${id}/approve`),
      third.client.post(`console/receipts/${id}/approve`),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect((await balances(bob.client)).GBP).toBe("80000.00");
  });
});

describe("a repeat of the same receipt is held as a likely duplicate", () => {
  let first: number;
  let repeat: number;

  test("the same reference, amount, currency and date again is held: credited once", async () => {
    const before = await balances(ada.client);
    const one = await postReceipt(t, recorder, {
      amount: "120.00",
      currency: "USD",
      reference: `Invoice 7 ${ada.accountRef}`,
    });
    expect(one.json.body.status).toBe("matched");
    first = one.json.body.id;
    // The same bank line typed again, with other spacing and case.
    const two = await postReceipt(t, recorder, {
      amount: "120.00",
      currency: "USD",
      reference: `invoice 7  ${ada.accountRef.toLowerCase()}`,
    });
    expectStatus(two, 201);
    expect(two.json.body).toMatchObject({ status: "held_duplicate", duplicate_of: first, account_ref: ada.accountRef });
    repeat = two.json.body.id;
    expect(await balances(ada.client)).toEqual({ ...before, USD: "120.00" });
  });

  test("another date, amount or currency is not a duplicate", async () => {
    const reference = `Invoice 7 ${ada.accountRef}`;
    const otherDay = await postReceipt(t, recorder, {
      amount: "120.00",
      currency: "USD",
      reference,
      received_at: new Date(t.clock.now() - 86_400_000).toISOString().slice(0, 10),
    });
    expect(otherDay.json.body.status).toBe("matched");
    const otherAmount = await postReceipt(t, recorder, { amount: "121.00", currency: "USD", reference });
    expect(otherAmount.json.body.status).toBe("matched");
    const otherCurrency = await postReceipt(t, recorder, { amount: "120.00", currency: "CAD", reference });
    expect(otherCurrency.json.body.status).toBe("matched");
  });

  test("its recorder cannot release it; a second administrator can, and then it is credited", async () => {
    const own = await recorder.client.post(`console/receipts/${repeat}/release`);
    expectStatus(own, 403);
    expect(own.json.error).toBe("You recorded this receipt: another administrator must release it.");
    const usd = (await balances(ada.client)).USD;
    const released = await checker.client.post(`console/receipts/${repeat}/release`);
    expectStatus(released, 200);
    expect(released.json.body).toMatchObject({ id: repeat, status: "matched", account_ref: ada.accountRef });
    expect(Number((await balances(ada.client)).USD)).toBe(Number(usd) + 120);
    expectStatus(await checker.client.post(`console/receipts/${repeat}/release`), 409);
  });

  test("a duplicate discarded with a reason credits nothing", async () => {
    const again = await postReceipt(t, recorder, {
      amount: "120.00",
      currency: "USD",
      reference: `Invoice 7 ${ada.accountRef}`,
    });
    expect(again.json.body.status).toBe("held_duplicate");
    const before = await balances(ada.client);
    const discarded = await recorder.client.post(`console/receipts/${again.json.body.id}/discard`, {
      reason: "The same statement line, recorded twice",
    });
    expectStatus(discarded, 200);
    expect(discarded.json.body).toMatchObject({
      status: "discarded",
      reason: "The same statement line, recorded twice",
    });
    expect(await balances(ada.client)).toEqual(before);
    expectStatus(await checker.client.post(`console/receipts/${again.json.body.id}/release`), 409);
  });

  test("the same receipt sent twice at once is credited once", async () => {
    const before = await balances(bob.client);
    const body = { amount: "33.00", currency: "CHF", reference: `Twice at once ${bob.accountRef}` };
    const answers = await Promise.all([postReceipt(t, recorder, body), postReceipt(t, recorder, body)]);
    expect(answers.map((a) => a.json.body.status).sort()).toEqual(["held_duplicate", "matched"]);
    expect(await balances(bob.client)).toEqual({ ...before, CHF: "33.00" });
  });
});

describe("a receipt can be reversed", () => {
  test("a credited receipt is reversed with reversing entries and a reason: the balance goes back", async () => {
    const receipt = await fund(t, recorder, bob, "SEK", "900.00");
    const noReason = await recorder.client.post(`console/receipts/${receipt.id}/reverse`, {});
    expectStatus(noReason, 422);
    expect(noReason.json.fields).toHaveProperty("reason");
    const res = await recorder.client.post(`console/receipts/${receipt.id}/reverse`, {
      reason: "Recorded against the wrong customer",
    });
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({
      id: receipt.id,
      status: "reversed",
      reason: "Recorded against the wrong customer",
    });
    expect((await balances(bob.client)).SEK).toBe("0.00");
    const reversals = await t.db.select().from(ledgerTransfers).where(eq(ledgerTransfers.kind, "receipt_reversal"));
    expect(reversals.map((r) => r.reference)).toContain(`receipt-reversal:${receipt.id}`);
    expectStatus(
      await recorder.client.post(`console/receipts/${receipt.id}/reverse`, { reason: "Again" }),
      409,
    );
    expectStatus(
      await recorder.client.post(`console/receipts/${receipt.id}/allocate`, { account_ref: ada.accountRef }),
      409,
    );
  });

  test("once the money has moved on (converted), the reversal is refused and nothing changes", async () => {
    const receipt = await fund(t, recorder, ada, "NOK", "1000.00");
    const quote = await ada.client.post("account/conversions/quote", {
      sell_currency: "NOK",
      buy_currency: "EUR",
      amount: "600.00",
      fixed: "sell",
    });
    expectStatus(quote, 200);
    expectStatus(await ada.client.post("account/conversions", { quote_id: quote.json.body.id }), 201);
    const before = await balances(ada.client);
    const res = await checker.client.post(`console/receipts/${receipt.id}/reverse`, { reason: "Bank recalled it" });
    expectStatus(res, 409);
    expect(res.json.error).toBe(
      `The money has moved on: ${ada.accountRef} has 400.00 NOK available, less than the 1000.00 NOK to reverse. Nothing was changed.`,
    );
    expect(await balances(ada.client)).toEqual(before);
    const list = await checker.client.get("console/receipts?status=matched");
    expect(list.json.body.map((r: { id: number }) => r.id)).toContain(receipt.id);
  });

  test("an unmatched receipt is reversed out of the unallocated funds", async () => {
    const res = await postReceipt(t, recorder, { amount: "64.00", currency: "PLN", reference: "Nobody we know" });
    expect(res.json.body.status).toBe("unmatched");
    const reversed = await checker.client.post(`console/receipts/${res.json.body.id}/reverse`, {
      reason: "Returned to the payer",
    });
    expectStatus(reversed, 200);
    expect(reversed.json.body.status).toBe("reversed");
    const [unallocated] = await t.db.select().from(ledgerAccounts).where(
      eq(ledgerAccounts.purpose, "unallocated_funds"),
    )
      .then((rows) => rows.filter((r) => r.currency === "PLN"));
    expect(unallocated.balance).toBe(0);
  });
});

describe("a reference naming two account_refs stays unmatched", () => {
  test("'P… P…' with two real accounts credits neither, and waits for a person to allocate it", async () => {
    const adaBefore = await balances(ada.client);
    const bobBefore = await balances(bob.client);
    const res = await postReceipt(t, recorder, {
      amount: "45.00",
      currency: "HKD",
      reference: `${ada.accountRef} ${bob.accountRef}`,
    });
    expectStatus(res, 201);
    expect(res.json.body).toMatchObject({ status: "unmatched", account_ref: null });
    expect(await balances(ada.client)).toEqual(adaBefore);
    expect(await balances(bob.client)).toEqual(bobBefore);
    const allocated = await checker.client.post(`console/receipts/${res.json.body.id}/allocate`, {
      account_ref: bob.accountRef,
    });
    expectStatus(allocated, 200);
    expect((await balances(bob.client)).HKD).toBe("45.00");
  });

  test("the same account_ref written twice is not ambiguous", async () => {
    const res = await postReceipt(t, recorder, {
      amount: "46.00",
      currency: "HKD",
      reference: `${ada.accountRef} / ${ada.accountRef}`,
    });
    expect(res.json.body).toMatchObject({ status: "matched", account_ref: ada.accountRef });
  });
});
