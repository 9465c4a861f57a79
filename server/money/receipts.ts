import { and, desc, eq } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { accounts } from "../../db/schema.ts";
import { receipts } from "../../db/schema-money.ts";
import type { ReceiptInput } from "../../lib/contracts/console-money.ts";
import { isValidAccountRef } from "../accounts/account-ref.ts";
import { accountByRef } from "../accounts/find.ts";
import { Conflict, InvalidInput, NotFound } from "../errors.ts";
import { allocateReceipt, creditReceipt } from "../ledger/movements.ts";
import type { Mailer } from "../mail/index.ts";
import { formatAmount, parseAmount } from "./amounts.ts";
import { MoneyError, withinLedgerRange } from "./errors.ts";
import { tellMembers } from "./funds-received.ts";

/**
 * Receipts: money that arrived in the company's bank accounts, recorded by an administrator. The
 * customer quotes their account_ref as the transfer's reference; a reference that carries a valid
 * account_ref of an open account credits that account at once. Anything else waits, unmatched, on
 * the house's unallocated funds until an administrator allocates it. Whenever money reaches an
 * account, everyone on it is emailed, after the credit is committed.
 */

type Row = typeof receipts.$inferSelect;
export type ReceiptStatus = Row["status"];

function receiptAnswer(row: Row, accountRef: string | null) {
  return {
    id: row.id,
    amount: formatAmount(row.currency, row.amountMinor),
    currency: row.currency,
    payer_name: row.payerName,
    reference: row.reference,
    received_at: row.receivedAt,
    status: row.status,
    account_ref: accountRef,
  };
}

/** The open account whose account_ref appears in a transfer reference, if any. */
async function accountInReference(
  db: Database,
  reference: string,
): Promise<{ id: number; accountRef: string } | null> {
  for (const [candidate] of reference.toUpperCase().matchAll(/\b[PB]\d{8}\b/g)) {
    if (!isValidAccountRef(candidate)) continue;
    const account = await accountByRef(db, candidate);
    if (account) return account;
  }
  return null;
}

/**
 * Records a receipt and, when its reference names an account, credits that account (one
 * transaction) and tells the account's members.
 */
export async function recordReceipt(db: Database, mailer: Mailer, input: ReceiptInput, by: number, now: Date) {
  const amountMinor = parseAmount(input.currency, input.amount);
  if (amountMinor <= 0) throw new MoneyError("The amount received must be more than zero.", "amount");
  // "Today" somewhere: the latest date on Earth is UTC+14, so an administrator's local today is never refused.
  if (input.received_at > new Date(now.getTime() + 14 * 60 * 60 * 1000).toISOString().slice(0, 10)) {
    throw new MoneyError("The date the money arrived cannot be in the future.", "received_at");
  }
  const account = await accountInReference(db, input.reference);
  // Past the most a balance holds (the customer's, or the house's bank account): 422, nothing written.
  const row = await withinLedgerRange("amount", () =>
    db.transaction(async (tx) => {
      const { transferId } = await creditReceipt(tx, {
        accountId: account?.id ?? null,
        currency: input.currency,
        amount: amountMinor,
        reference: `receipt:${crypto.randomUUID()}`,
        createdBy: by,
        description: `Received from ${input.payer_name}: ${input.reference}`.slice(0, 300),
      });
      const [inserted] = await tx.insert(receipts).values({
        amountMinor,
        currency: input.currency,
        payerName: input.payer_name,
        reference: input.reference,
        receivedAt: input.received_at,
        status: account ? "matched" : "unmatched",
        accountId: account?.id ?? null,
        transferId,
        recordedBy: by,
        createdAt: now,
      }).returning();
      return inserted;
    }));
  const receipt = receiptAnswer(row, account?.accountRef ?? null);
  if (account) await tellMembers(db, mailer, account.id, receipt);
  return receipt;
}

const ALREADY_CREDITED = "This receipt has already been credited to an account.";

/** Allocates an unmatched receipt to an account (one transaction, once) and tells its members. */
export async function allocate(db: Database, mailer: Mailer, receiptId: number, accountRef: string, by: number) {
  const account = await accountByRef(db, accountRef);
  if (!account) throw new InvalidInput(`There is no account ${accountRef}.`, "account_ref");
  // The receipt would take this account's balance past the most it holds: refused on the account chosen.
  const row = await withinLedgerRange("account_ref", () =>
    db.transaction(async (tx) => {
      const [receipt] = await tx.select().from(receipts).where(eq(receipts.id, receiptId));
      if (!receipt) throw new NotFound("There is no such receipt.");
      if (receipt.status !== "unmatched") throw new Conflict(ALREADY_CREDITED);
      const { transferId } = await allocateReceipt(tx, {
        currency: receipt.currency,
        amount: receipt.amountMinor,
        toAccountId: account.id,
        reference: `allocation:receipt:${receipt.id}`,
        createdBy: by,
      });
      const [updated] = await tx.update(receipts).set({
        status: "allocated",
        accountId: account.id,
        allocationTransferId: transferId,
      })
        .where(and(eq(receipts.id, receipt.id), eq(receipts.status, "unmatched"))).returning();
      if (!updated) throw new Conflict(ALREADY_CREDITED);
      return updated;
    }));
  const receipt = receiptAnswer(row, account.accountRef);
  await tellMembers(db, mailer, account.id, receipt);
  return receipt;
}

/** The latest 500 receipts, newest first, optionally of one status. */
export async function listReceipts(db: Database, status?: ReceiptStatus) {
  const rows = await db.select({ receipt: receipts, accountRef: accounts.accountRef }).from(receipts)
    .leftJoin(accounts, eq(accounts.id, receipts.accountId))
    .where(status ? eq(receipts.status, status) : undefined)
    .orderBy(desc(receipts.id)).limit(500);
  return rows.map((r) => receiptAnswer(r.receipt, r.accountRef));
}
