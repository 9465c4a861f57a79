import { eq } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { accountMembers, accounts } from "../../db/schema.ts";
import { rowOf, type Tx } from "../../db/sql.ts";

/** The account with this account_ref (as stored: upper case), if there is one. */
export async function accountByRef(
  db: Database,
  accountRef: string,
): Promise<{ id: number; accountRef: string } | null> {
  const [account] = await db.select({ id: accounts.id, accountRef: accounts.accountRef }).from(accounts)
    .where(eq(accounts.accountRef, accountRef));
  return account ?? null;
}

/** Everyone who belongs to an account, whatever their role, with the account's reference. */
export async function membersOf(db: Database, accountId: number): Promise<{ userId: number; accountRef: string }[]> {
  return await db.select({ userId: accountMembers.userId, accountRef: accounts.accountRef }).from(accountMembers)
    .innerJoin(accounts, eq(accounts.id, accountMembers.accountId)).where(eq(accountMembers.accountId, accountId));
}

/**
 * The customer who holds an account: its first owner (decision 064's holder, decision 051's first
 * owner), whom the console names as the account's customer; null for an account with no owner.
 * The subject of an audit entry about the account that no customer asked for (a receipt credited).
 */
export async function accountHolderId(db: Database | Tx, accountId: number): Promise<number | null> {
  const holder = await rowOf<{ id: number }>(
    db,
    `SELECT m.user_id AS id FROM account_members m
      WHERE m.account_id = ? AND m.role = 'owner' ORDER BY m.created_at, m.user_id LIMIT 1`,
    [accountId],
  );
  return holder ? Number(holder.id) : null;
}
