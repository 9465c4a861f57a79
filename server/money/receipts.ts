import { and, desc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "../../db/client.ts";
import { accounts } from "../../db/schema.ts";
import { receipts } from "../../db/schema-money.ts";
import { isValidAccountRef } from "../accounts/account-ref.ts";
import { allocateReceipt, creditReceipt } from "../ledger/movements.ts";
import { formatAmount, parseAmount } from "./amounts.ts";
import { isCurrency } from "./currencies.ts";
import { isIsoDate } from "./rates.ts";
import { MoneyError } from "./errors.ts";

/**
 * Receipts: money that arrived in the company's bank accounts, recorded by an administrator. The
 * customer quotes their account_ref as the transfer's reference; a reference that carries a valid
 * account_ref of an open account credits that account at once. Anything else waits, unmatched, on
 * the house's unallocated funds until an administrator allocates it.
 */

export const receiptInput = z.object({
  amount: z.string({ error: "Enter the amount received." }).trim().min(1, { error: "Enter the amount received." }),
  currency: z.string({ error: "Choose the currency." }).trim().toUpperCase().refine(isCurrency, {
    error: "Choose a currency we support.",
  }),
  payer_name: z.string({ error: "Enter who sent the money." }).trim().min(1, { error: "Enter who sent the money." })
    .max(200),
  reference: z.string({ error: "Enter the transfer's reference (it may be empty text)." }).trim().max(200),
  received_at: z.string({ error: "Enter the date the money arrived." }).refine(isIsoDate, {
    error: "The date the money arrived is a date like 2026-11-22.",
  }),
});
export type ReceiptInput = z.infer<typeof receiptInput>;

type Row = typeof receipts.$inferSelect;

export function receiptAnswer(row: Row, accountRef: string | null) {
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
export async function accountInReference(
  db: Database,
  reference: string,
): Promise<{ id: number; accountRef: string } | null> {
  for (const [candidate] of reference.toUpperCase().matchAll(/\b[PB]\d{8}\b/g)) {
    if (!isValidAccountRef(candidate)) continue;
    const [account] = await db.select({ id: accounts.id, accountRef: accounts.accountRef }).from(accounts)
      .where(eq(accounts.accountRef, candidate));
    if (account) return account;
  }
  return null;
}

/** Records a receipt and, when it names an account, credits it; one transaction. */
export async function recordReceipt(db: Database, input: ReceiptInput, by: number, now: Date) {
  const amountMinor = parseAmount(input.currency, input.amount);
  if (amountMinor <= 0) throw new MoneyError("The amount received must be more than zero.", "amount");
  // "Today" somewhere: the latest date on Earth is UTC+14, so an administrator's local today is never refused.
  if (input.received_at > new Date(now.getTime() + 14 * 60 * 60 * 1000).toISOString().slice(0, 10)) {
    throw new MoneyError("The date the money arrived cannot be in the future.", "received_at");
  }
  const account = await accountInReference(db, input.reference);
  const row = await db.transaction(async (tx) => {
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
  });
  return { receipt: receiptAnswer(row, account?.accountRef ?? null), accountId: account?.id ?? null };
}

export class ReceiptRefused extends Error {
  constructor(readonly status: 404 | 409 | 422, message: string) {
    super(message);
  }
}

/** Allocates an unmatched receipt to an account: one transaction, once. */
export async function allocate(db: Database, receiptId: number, accountRef: string, by: number) {
  const ref = accountRef.trim().toUpperCase();
  const [account] = await db.select({ id: accounts.id, accountRef: accounts.accountRef }).from(accounts).where(
    eq(accounts.accountRef, ref),
  );
  if (!account) throw new ReceiptRefused(422, `There is no account ${ref || "with an empty reference"}.`);
  const row = await db.transaction(async (tx) => {
    const [receipt] = await tx.select().from(receipts).where(eq(receipts.id, receiptId));
    if (!receipt) throw new ReceiptRefused(404, "There is no such receipt.");
    if (receipt.status !== "unmatched") {
      throw new ReceiptRefused(409, "This receipt has already been credited to an account.");
    }
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
    if (!updated) throw new ReceiptRefused(409, "This receipt has already been credited to an account.");
    return updated;
  });
  return { receipt: receiptAnswer(row, account.accountRef), accountId: account.id };
}

export async function listReceipts(db: Database, status?: "matched" | "unmatched" | "allocated") {
  const rows = await db.select({ receipt: receipts, accountRef: accounts.accountRef }).from(receipts)
    .leftJoin(accounts, eq(accounts.id, receipts.accountId))
    .where(status ? eq(receipts.status, status) : undefined)
    .orderBy(desc(receipts.id)).limit(500);
  return rows.map((r) => receiptAnswer(r.receipt, r.accountRef));
}
