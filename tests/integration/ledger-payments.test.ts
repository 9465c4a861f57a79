import { eq, sql } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { accounts, users } from "../../db/schema.ts";
import { ledgerAccounts } from "../../db/schema-money.ts";
import { paymentQuotes, payments, type PaymentStatus, recipients } from "../../db/schema-payments.ts";
import { checkLedger } from "../../server/ledger/check.ts";
import { InsufficientFunds } from "../../server/ledger/ledger.ts";
import {
  balancesOf,
  creditReceipt,
  holdPayment,
  type PaymentMoney,
  payoutPayment,
  refundPayment,
  releasePayment,
  settlePayment,
} from "../../server/ledger/movements.ts";
import { testDatabase } from "../helpers/db.ts";

/**
 * A payment's money in the ledger (docs/decisions/027): held when made, then released, or paid out
 * and then settled or refunded. The ledger check proves held balances equal what open payments
 * reserve, and that each payment's transfers match its status.
 */

const db = await testDatabase();
const [user] = await db.insert(users).values({ username: "payer@example.com", validated: true }).returning();
let refs = 0;

async function fundedAccount(currency: string, amount: number): Promise<number> {
  const [row] = await db.insert(accounts)
    .values({ accountRef: `LP${++refs}`, type: "Business", name: `Business ${refs}`, openedAt: new Date() })
    .returning({ id: accounts.id });
  await creditReceipt(db, { accountId: row.id, currency, amount, reference: `fund-${refs}` });
  return row.id;
}

/** A payment row as the payments service writes it, for the ledger check to compare with. */
async function paymentRow(accountId: number, money: Omit<PaymentMoney, "paymentId" | "accountId">) {
  const now = new Date();
  const [recipient] = await db.insert(recipients).values({
    accountId,
    name: "Jean Dupont",
    type: "person",
    currency: money.buyCurrency,
    country: "FR",
    details: { iban: "FR1420041010050500013M02606" },
    detailsChangedAt: now,
    createdBy: user.id,
    createdAt: now,
    updatedAt: now,
  }).returning();
  const quoteId = crypto.randomUUID();
  const common = {
    accountId,
    sellCurrency: money.sellCurrency,
    sellMinor: money.sellAmount,
    buyCurrency: money.buyCurrency,
    buyMinor: money.buyAmount,
    feeMinor: money.feeAmount,
    midRate: "1.17",
    rate: "1.16",
    bps: 50,
    priority: false,
    rail: "sepa" as const,
    expectedArrival: now,
  };
  await db.insert(paymentQuotes).values({
    ...common,
    id: quoteId,
    userId: user.id,
    recipientId: recipient.id,
    expiresAt: now,
    createdAt: now,
  });
  const [payment] = await db.insert(payments).values({
    ...common,
    recipientId: recipient.id,
    recipient: { name: recipient.name, type: "person", currency: "EUR", country: "FR", email: null, details: {} },
    quoteId,
    reference: "Invoice 42",
    status: "pending_approval",
    createdBy: user.id,
    createdAt: now,
    updatedAt: now,
    holdTransferId: 0,
  }).returning();
  return { ...money, paymentId: payment.id, accountId };
}

const setStatus = (id: number, status: PaymentStatus) => db.update(payments).set({ status }).where(eq(payments.id, id));

async function house(purpose: string, currency: string): Promise<number> {
  const [row] = await db.select({ balance: ledgerAccounts.balance }).from(ledgerAccounts).where(
    sql`kind = 'house' AND purpose = ${purpose} AND currency = ${currency}`,
  );
  return row?.balance ?? 0;
}

const GBP_TO_EUR = { sellCurrency: "GBP", sellAmount: 100_250, buyCurrency: "EUR", buyAmount: 116_000, feeAmount: 250 };

describe("a payment's money", () => {
  test("is held when the payment is made: available goes down, held goes up, and the check agrees", async () => {
    const account = await fundedAccount("GBP", 500_000);
    const p = await paymentRow(account, GBP_TO_EUR);
    await holdPayment(db, p);
    expect(await balancesOf(db, account)).toEqual([{ currency: "GBP", available: 399_750, held: 100_250 }]);
    expect((await checkLedger(db)).violations).toEqual([]);
  });

  test("cannot be held beyond the balance: nothing is written", async () => {
    const account = await fundedAccount("GBP", 100_000);
    const p = await paymentRow(account, GBP_TO_EUR);
    await expect(holdPayment(db, p)).rejects.toBeInstanceOf(InsufficientFunds);
    expect(await balancesOf(db, account)).toEqual([{ currency: "GBP", available: 100_000, held: 0 }]);
    // The payments service writes the row and its hold in one transaction: no row survives this.
    await db.delete(payments).where(eq(payments.id, p.paymentId));
  });

  test("comes back whole when the payment is rejected, and a second release books nothing more", async () => {
    const account = await fundedAccount("GBP", 200_000);
    const p = await paymentRow(account, GBP_TO_EUR);
    await holdPayment(db, p);
    await releasePayment(db, p);
    expect((await releasePayment(db, p)).replayed).toBe(true);
    await setStatus(p.paymentId, "rejected");
    expect(await balancesOf(db, account)).toEqual([{ currency: "GBP", available: 200_000, held: 0 }]);
    expect((await checkLedger(db)).violations).toEqual([]);
  });

  test("is paid out at the quoted rate: fee earned, positions moved, the recipient owed; then settled", async () => {
    const account = await fundedAccount("GBP", 200_000);
    const p = await paymentRow(account, GBP_TO_EUR);
    const before = {
      fee: await house("fee_income", "GBP"),
      sell: await house("fx_position", "GBP"),
      buy: await house("fx_position", "EUR"),
      bank: await house("incoming_funds", "EUR"),
    };
    await holdPayment(db, p);
    await setStatus(p.paymentId, "approved");
    await payoutPayment(db, p);
    await setStatus(p.paymentId, "submitted");
    expect(await balancesOf(db, account)).toEqual([{ currency: "GBP", available: 99_750, held: 0 }]);
    expect(await house("fee_income", "GBP")).toBe(before.fee + 250);
    expect(await house("fx_position", "GBP")).toBe(before.sell + 100_000);
    expect(await house("fx_position", "EUR")).toBe(before.buy - 116_000);
    expect(await house("payouts", "EUR")).toBe(116_000);
    expect((await checkLedger(db)).violations).toEqual([]);

    await settlePayment(db, p);
    await setStatus(p.paymentId, "completed");
    expect(await house("payouts", "EUR")).toBe(0);
    expect(await house("incoming_funds", "EUR")).toBe(before.bank + 116_000);
    expect((await checkLedger(db)).violations).toEqual([]);
  });

  test("in the recipient's own currency pays out what was debited less the fee", async () => {
    const account = await fundedAccount("EUR", 50_000);
    const p = await paymentRow(account, {
      sellCurrency: "EUR",
      sellAmount: 10_050,
      buyCurrency: "EUR",
      buyAmount: 10_000,
      feeAmount: 50,
    });
    await holdPayment(db, p);
    await payoutPayment(db, p);
    await setStatus(p.paymentId, "submitted");
    expect(await balancesOf(db, account)).toEqual([{ currency: "EUR", available: 39_950, held: 0 }]);
    expect((await checkLedger(db)).violations).toEqual([]);
  });

  test("returns in full, fee included, when a sent payout fails", async () => {
    const account = await fundedAccount("GBP", 150_000);
    const p = await paymentRow(account, GBP_TO_EUR);
    const fees = await house("fee_income", "GBP");
    await holdPayment(db, p);
    await payoutPayment(db, p);
    await refundPayment(db, p);
    await setStatus(p.paymentId, "failed");
    expect(await balancesOf(db, account)).toEqual([{ currency: "GBP", available: 150_000, held: 0 }]);
    expect(await house("fee_income", "GBP")).toBe(fees);
    expect((await checkLedger(db)).violations).toEqual([]);
  });
});

describe("the ledger check", () => {
  test("finds held money that no open payment reserves, and a payment whose transfers do not match its status", async () => {
    const account = await fundedAccount("GBP", 300_000);
    const p = await paymentRow(account, GBP_TO_EUR);
    await holdPayment(db, p);
    // Marked rejected without its release: the money is still held and the status says otherwise.
    await setStatus(p.paymentId, "rejected");
    const report = await checkLedger(db);
    expect(report.violations).toContain(
      `account ${account}: its GBP held balance is 100250 but its open payments reserve 0`,
    );
    expect(report.violations).toContain(
      `payment ${p.paymentId} is rejected but its ledger transfers are [payment_hold]`,
    );
    await releasePayment(db, p);
    expect((await checkLedger(db)).violations).toEqual([]);
  });
});
