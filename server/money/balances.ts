import { desc, eq, inArray } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { ledgerAccounts, ledgerEntries, ledgerTransfers } from "../../db/schema-money.ts";
import type { z } from "zod";
import type { balance, movement } from "../../lib/contracts/money.ts";
import { balancesOf } from "../ledger/movements.ts";
import { formatAmount } from "./amounts.ts";

/** What an account holds, per currency, as the API and the pages show it. */
export async function balancesAnswer(db: Database, accountId: number): Promise<z.infer<typeof balance>[]> {
  return (await balancesOf(db, accountId)).map((b) => ({
    currency: b.currency,
    available: formatAmount(b.currency, b.available),
    held: formatAmount(b.currency, b.held),
  }));
}

/** The latest movements of an account's balances, newest first. */
export async function latestMovements(
  db: Database,
  accountId: number,
  limit: number,
): Promise<z.infer<typeof movement>[]> {
  const mine = await db.select({ id: ledgerAccounts.id }).from(ledgerAccounts).where(
    eq(ledgerAccounts.accountId, accountId),
  );
  if (!mine.length) return [];
  const rows = await db.select({
    id: ledgerEntries.id,
    kind: ledgerTransfers.kind,
    description: ledgerTransfers.description,
    currency: ledgerEntries.currency,
    amount: ledgerEntries.amount,
    createdAt: ledgerEntries.createdAt,
  }).from(ledgerEntries).innerJoin(ledgerTransfers, eq(ledgerTransfers.id, ledgerEntries.transferId))
    .where(inArray(ledgerEntries.ledgerAccountId, mine.map((m) => m.id)))
    .orderBy(desc(ledgerEntries.id)).limit(limit);
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    description: r.description,
    currency: r.currency,
    amount: formatAmount(r.currency, r.amount),
    created_at: r.createdAt.toISOString(),
  }));
}
