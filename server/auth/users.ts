import { asc, eq } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { accountMembers, accounts, identityChecks, profiles, users } from "../../db/schema.ts";
import { displayName, type SessionUser } from "./session-user.ts";

export type UserRow = typeof users.$inferSelect;

/** Usernames are email addresses, kept lower-cased and trimmed (SPEC.md section 3). */
export function normalizeUsername(email: string): string {
  return email.trim().toLowerCase();
}

export async function findUserByUsername(db: Database, username: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.username, normalizeUsername(username)));
  return row;
}

export async function findUser(db: Database, id: number): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id));
  return row;
}

/**
 * The session user summary of SPEC.md section 3, field for field. `secondFactor` belongs to the
 * session, not the user. An administrator is always validated and never restricted.
 */
export async function summaryOf(db: Database, user: UserRow, secondFactor: boolean): Promise<SessionUser> {
  const [profile] = await db.select().from(profiles).where(eq(profiles.userId, user.id));
  const [identity] = await db.select({ status: identityChecks.status }).from(identityChecks).where(
    eq(identityChecks.userId, user.id),
  );
  const [account] = await db.select({ accountRef: accounts.accountRef }).from(accountMembers)
    .innerJoin(accounts, eq(accounts.id, accountMembers.accountId))
    .where(eq(accountMembers.userId, user.id)).orderBy(asc(accounts.id)).limit(1);
  const isAdmin = user.level === "Admin";
  return {
    id: user.id,
    username: user.username,
    name: displayName(user.type, (profile?.data ?? null) as { name?: string; first?: string; last?: string } | null, user.username),
    level: user.level,
    type: user.type,
    profile: !!profile,
    validated: isAdmin || user.validated,
    secondFactor,
    identity: identity?.status === "approved",
    account: !!account,
    restricted: isAdmin ? false : user.restricted,
    account_ref: account?.accountRef ?? null,
    override_transfer_fee: user.overrideTransferFee,
    override_priority_transfer_fee: user.overridePriorityTransferFee,
    override_regular_transfer_fee: user.overrideRegularTransferFee,
    affiliate: user.affiliate,
  };
}
