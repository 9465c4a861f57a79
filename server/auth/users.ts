import { eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { preparedQuery } from "../../db/sql.ts";
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

// Every signed-in request reads its user and summary: built once (db/sql.ts, preparedQuery).
const userById = preparedQuery((db) => db.select().from(users).where(eq(users.id, sql.placeholder("id"))).prepare());

export async function findUser(db: Database, id: number): Promise<UserRow | undefined> {
  return await userById(db).get({ id });
}

// One query for what every signed-in request needs: the profile, the identity check and the
// first account (correlated subqueries, so a user in several accounts still gives one row).
const summaryRow = preparedQuery((db) =>
  db.select({
    profile: profiles.data,
    identity: identityChecks.status,
    accountRef: sql<string | null>`(SELECT ${accounts.accountRef} FROM ${accountMembers}
      JOIN ${accounts} ON ${accounts.id} = ${accountMembers.accountId}
      WHERE ${accountMembers.userId} = ${sql.placeholder("id")} ORDER BY ${accounts.id} LIMIT 1)`,
  }).from(users)
    .leftJoin(profiles, eq(profiles.userId, users.id))
    .leftJoin(identityChecks, eq(identityChecks.userId, users.id))
    .where(eq(users.id, sql.placeholder("id")))
    .prepare()
);

/**
 * The session user summary of SPEC.md section 3, field for field. `secondFactor` belongs to the
 * session, not the user. An administrator is always validated and never restricted.
 */
export async function summaryOf(db: Database, user: UserRow, secondFactor: boolean): Promise<SessionUser> {
  const row = await summaryRow(db).get({ id: user.id });
  const profile = row?.profile ? { data: row.profile } : undefined;
  const identity = row?.identity ? { status: row.identity } : undefined;
  const account = row?.accountRef ? { accountRef: row.accountRef } : undefined;
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
