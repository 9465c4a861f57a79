import { eq } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { accountMembers, accounts } from "../../db/schema.ts";

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
