import type { Database } from "../../db/client.ts";
import { partnerAssignments } from "../../db/schema-partners.ts";
import { rowsOf, run, type Tx } from "../../db/sql.ts";

/**
 * Whose customer a customer was, and when (decision 062). `users.partner_id` is the partner now;
 * `partner_assignments` is every change of it with the time it starts, so that a commission and the
 * profit report by partner give each ledger movement to the partner the customer was with at the
 * movement's time: an assignment, a move or an unassignment changes no figure of the time before it.
 *
 * Every writer of `users.partner_id` calls `recordAssignment` in its own transaction: registration
 * with a partner's code (server/auth/registration.ts) and the console's assignment
 * (server/partners/partners.ts `setCustomerPartner`). Customer migrations set no partner.
 */

/** Records that `userId` is `partnerId`'s (null: nobody's) from `startsAt`, in the caller's transaction. */
export async function recordAssignment(
  tx: Tx,
  a: { userId: number; partnerId: number | null; startsAt: Date; createdBy: number | null },
): Promise<void> {
  await tx.insert(partnerAssignments).values(a);
}

/**
 * Before a change: a customer with a partner but no history yet (their partner set before the
 * backfill ran, by an instance of the previous release during a deploy) gets that partner recorded
 * from their sign-up first, as the backfill would have, so the change does not take it away.
 */
export async function recordEarlierPartner(tx: Tx, userId: number, partnerId: number | null): Promise<void> {
  if (partnerId === null) return;
  await run(
    tx,
    `INSERT INTO partner_assignments (user_id, partner_id, starts_at, created_by)
     SELECT u.id, ?, u.created_at, NULL FROM users u
      WHERE u.id = ? AND NOT EXISTS (SELECT 1 FROM partner_assignments pa WHERE pa.user_id = u.id)`,
    [partnerId, userId],
  );
}

/** One entry of a customer's history as the console shows it. */
export interface Assignment {
  partner_id: number | null;
  partner: string | null;
  starts_at: string;
  /**
   * Who made it: an administrator, or the customer (registered with the code); null for the row
   * recorded from sign-up when the history began.
   */
  by_id: number | null;
  /** Their address. */
  by: string | null;
}

/** A customer's assignments, newest first. */
export async function assignmentsOf(db: Database | Tx, userId: number): Promise<Assignment[]> {
  const rows = await rowsOf<
    { partner_id: number | null; partner: string | null; starts_at: number; by_id: number | null; by: string | null }
  >(
    db,
    `SELECT pa.partner_id, p.name AS partner, pa.starts_at, pa.created_by AS by_id, b.username AS by
       FROM partner_assignments pa LEFT JOIN partners p ON p.id = pa.partner_id LEFT JOIN users b ON b.id = pa.created_by
      WHERE pa.user_id = ? ORDER BY pa.starts_at DESC, pa.id DESC`,
    [userId],
  );
  return rows.map((r) => ({
    partner_id: r.partner_id,
    partner: r.partner,
    starts_at: new Date(Number(r.starts_at)).toISOString(),
    by_id: r.by_id,
    by: r.by,
  }));
}

/**
 * The partner history of the first owner of each account given: `at(accountId, time)` is the
 * partner id then, or null (server/partners/income.ts reads the movements of the days it cannot
 * sum with it). One query for the accounts with income in the period only (a JSON array of
 * their ids, so any number in one statement): each account's first owner on the members' key, then
 * their history on partner_assignments_user (user_id, starts_at); a period's income costs what its
 * accounts do, not what every customer does.
 */
export async function partnerHistories(db: Database, accountIds: (number | null)[]) {
  const ids = [...new Set(accountIds.filter((id): id is number => id !== null))];
  // Only the first owner's history (decision 051: the first owner's partner), oldest change first;
  // an account whose owner has none gives no row.
  const rows = ids.length
    ? await rowsOf<{ account_id: number; partner_id: number | null; starts_at: number }>(
      db,
      `SELECT j.value AS account_id, pa.partner_id, pa.starts_at
         FROM json_each(?) j
         JOIN partner_assignments pa INDEXED BY partner_assignments_user
           ON pa.user_id = (SELECT m.user_id FROM account_members m WHERE m.account_id = j.value AND m.role = 'owner'
                             ORDER BY m.created_at, m.user_id LIMIT 1)
        ORDER BY j.value, pa.starts_at, pa.id`,
      [JSON.stringify(ids)],
    )
    : [];
  const history = new Map<number, { partner_id: number | null; starts_at: number }[]>();
  for (const r of rows) {
    const list = history.get(r.account_id) ?? [];
    list.push({ partner_id: r.partner_id, starts_at: Number(r.starts_at) });
    history.set(r.account_id, list);
  }
  const of = (accountId: number | null) => (accountId === null ? undefined : history.get(accountId)) ?? [];
  return {
    at(accountId: number | null, at: number): number | null {
      const list = of(accountId);
      // The last change that started by then; a movement before the first is nobody's.
      let lo = 0;
      let hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (list[mid].starts_at <= at) lo = mid + 1;
        else hi = mid;
      }
      return lo === 0 ? null : list[lo - 1].partner_id;
    },
  };
}

export const ASSIGNMENTS_BACKFILL = "partner_assignments";

/**
 * A database from before the history: each customer with a partner gets one row, that partner
 * from their sign-up (what the figures meant until now, so no period already reported changes for
 * a customer never moved), once, in one write transaction that records itself in `backfills`
 * (decision 055's way). Returns how many rows it wrote (0 when already done).
 */
export async function backfillAssignments(db: Database): Promise<number> {
  return await db.transaction(async (tx) => {
    const done = await rowsOf<{ name: string }>(tx, "SELECT name FROM backfills WHERE name = ?", [
      ASSIGNMENTS_BACKFILL,
    ]);
    if (done.length) return 0;
    const written = await run(
      tx,
      `INSERT INTO partner_assignments (user_id, partner_id, starts_at, created_by)
       SELECT u.id, u.partner_id, u.created_at, NULL FROM users u
        WHERE u.partner_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM partner_assignments pa WHERE pa.user_id = u.id)`,
    );
    await run(tx, "INSERT INTO backfills (name, done_at, rows) VALUES (?, ?, ?)", [
      ASSIGNMENTS_BACKFILL,
      Date.now(),
      written,
    ]);
    return written;
  }, { behavior: "immediate" });
}
