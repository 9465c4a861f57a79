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
 * The user id of the holder of the account `account` (an SQL expression) names: its first owner, as
 * a subquery, null when it has none. One rule for every reader (fee overrides, audit subjects).
 */
export const holderOf = (account: string) =>
  `(SELECT m.user_id FROM account_members m
     WHERE m.account_id = ${account} AND m.role = 'owner' ORDER BY m.created_at, m.user_id LIMIT 1)`;

/**
 * The customer who holds an account: its first owner (decision 064's holder, decision 051's first
 * owner), whom the console names as the account's customer; null for an account with no owner.
 * The subject of an audit entry about the account that no customer asked for (a receipt credited).
 */
const HOLDER_ID = `SELECT ${holderOf("?")} AS id`;

export async function accountHolderId(db: Database | Tx, accountId: number): Promise<number | null> {
  const holder = await rowOf<{ id: number | null }>(db, HOLDER_ID, [accountId]);
  return holder?.id == null ? null : Number(holder.id);
}
