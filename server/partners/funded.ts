import type { Database } from "../../db/client.ts";
import { rowsOf, run, type Tx } from "../../db/sql.ts";

/**
 * "Funded" as a column (decision 055): `users.funded_at`, when an account the customer is a member
 * of was first credited by a receipt, matched at once (`receipt`) or allocated later
 * (`allocation`), whatever happened to the money afterwards (decision 051's meaning, unchanged).
 *
 * - The receipt's and the allocation's own transaction sets it on the account's members
 *   (server/ledger/movements.ts, `markFunded`).
 * - A customer who joins an account already funded is funded from the account's first receipt
 *   (`markFundedOnJoining`, in the joining transaction).
 * - `attributions.funded_at` is its copy for the attributions report, written by the same steps.
 * - A database from before the column is filled once, after the migrations (`backfillFunded`, run
 *   by server/migrate.ts `migratePortal`: at start and by `deno task db:migrate`), and records that
 *   it did (`backfills`).
 */

/** The time of the first receipt or allocation crediting the customer account(s) of `account` (SQL). */
const firstCreditOf = (account: string) =>
  `(SELECT min(ft.created_at) FROM ledger_accounts fa
      JOIN ledger_entries fe ON fe.ledger_account_id = fa.id AND fe.amount > 0
      JOIN ledger_transfers ft ON ft.id = fe.transfer_id AND ft.kind IN ('receipt', 'allocation')
     WHERE fa.kind = 'customer' AND fa.account_id = ${account})`;

/**
 * The copy on `attributions` of the customers given (SQL of a list of user ids): the attributions
 * report counts funded sign-ups per campaign from its own index, without a lookup per sign-up.
 */
const copyToAttributions = (usersSql: string) =>
  `UPDATE attributions SET funded_at = (SELECT u.funded_at FROM users u WHERE u.id = attributions.user_id)
    WHERE funded_at IS NULL AND user_id IN (${usersSql})`;

/**
 * The members of an account credited by a receipt or an allocation (the ledger transfer given)
 * are funded from the transfer's time, if they were not already: in the transfer's transaction.
 */
export async function markFunded(tx: Tx, accountId: number, transferId: number): Promise<void> {
  const members = "SELECT user_id FROM account_members WHERE account_id = ?";
  const marked = await run(
    tx,
    `UPDATE users SET funded_at = (SELECT created_at FROM ledger_transfers WHERE id = ?)
      WHERE funded_at IS NULL AND id IN (${members})`,
    [transferId, accountId],
  );
  if (marked) await run(tx, copyToAttributions(members), [accountId]);
}

/** A new member of an account that was already credited by a receipt is funded from then. */
export async function markFundedOnJoining(tx: Tx, userId: number, accountId: number): Promise<void> {
  const marked = await run(
    tx,
    `UPDATE users SET funded_at = ${firstCreditOf("?")} WHERE id = ? AND funded_at IS NULL`,
    [accountId, userId],
  );
  if (marked) await run(tx, copyToAttributions("?"), [userId]);
}

export const FUNDED_BACKFILL = "users.funded_at";

/**
 * Fills `users.funded_at` from the ledger for a database whose receipts came before the column,
 * once: in one write transaction that records itself in `backfills`, so a second start (or two
 * instances starting together) finds the row and does nothing. Returns how many customers it
 * marked (0 when already done).
 */
export async function backfillFunded(db: Database): Promise<number> {
  return await db.transaction(async (tx) => {
    const done = await rowsOf<{ name: string }>(tx, "SELECT name FROM backfills WHERE name = ?", [FUNDED_BACKFILL]);
    if (done.length) return 0;
    const marked = await run(
      tx,
      `UPDATE users SET funded_at = (SELECT min(${firstCreditOf("m.account_id")}) FROM account_members m
                                      WHERE m.user_id = users.id)
        WHERE funded_at IS NULL AND EXISTS (SELECT 1 FROM account_members m WHERE m.user_id = users.id
                                              AND ${firstCreditOf("m.account_id")} IS NOT NULL)`,
    );
    await run(tx, copyToAttributions("SELECT id FROM users WHERE funded_at IS NOT NULL"));
    await run(tx, "INSERT INTO backfills (name, done_at, rows) VALUES (?, ?, ?)", [
      FUNDED_BACKFILL,
      Date.now(),
      marked,
    ]);
    return marked;
  }, { behavior: "immediate" });
}
