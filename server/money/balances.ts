import type { Database } from "../../db/client.ts";
import { rowsOf } from "../../db/sql.ts";
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

/**
 * Read on every dashboard: fixed SQL (db/sql.ts), the account's balances found through the ledger
 * accounts' index rather than a first query for their ids. Only the available money's entries: a
 * hold moves money from available to held, and its held entry listed too showed every hold and
 * release twice, as -X and +X under one text. /account/transactions shows a hold the same way, as
 * its amount leaving available (server/transactions/movements.ts).
 */
const LATEST_MOVEMENTS = `SELECT e.id, t.kind, t.description, e.currency, e.amount, e.created_at
  FROM ledger_entries e JOIN ledger_transfers t ON t.id = e.transfer_id
  WHERE e.ledger_account_id IN (
    SELECT id FROM ledger_accounts WHERE kind = 'customer' AND account_id = ? AND purpose = 'balance'
  )
  ORDER BY e.id DESC LIMIT ?`;

/** The latest movements of an account's available balances, newest first. */
export async function latestMovements(
  db: Database,
  accountId: number,
  limit: number,
): Promise<z.infer<typeof movement>[]> {
  const rows = await rowsOf<
    { id: number; kind: string; description: string; currency: string; amount: number; created_at: number }
  >(db, LATEST_MOVEMENTS, [accountId, limit]);
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    description: r.description,
    currency: r.currency,
    amount: formatAmount(r.currency, r.amount),
    created_at: new Date(r.created_at).toISOString(),
  }));
}
