import { eq, getTableColumns, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { preparedQuery, rowOf } from "../../db/sql.ts";
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

const userById = preparedQuery((db) => db.select().from(users).where(eq(users.id, sql.placeholder("id"))).prepare());

export async function findUser(db: Database, id: number): Promise<UserRow | undefined> {
  return await userById(db).get({ id });
}

// What the summary needs beside the user: the profile, the identity check and the first account
// (a correlated subquery, so a user in several accounts still gives one row). With the user's own
// columns it is the one query of every signed-in request (built once: db/sql.ts, preparedQuery).
const summaryColumns = {
  profile: profiles.data,
  identity: identityChecks.status,
  accountRef: sql<string | null>`(SELECT ${accounts.accountRef} FROM ${accountMembers}
    JOIN ${accounts} ON ${accounts.id} = ${accountMembers.accountId}
    WHERE ${accountMembers.userId} = ${users.id} ORDER BY ${accounts.id} LIMIT 1)`,
};

const summaryRow = preparedQuery((db) =>
  db.select(summaryColumns).from(users)
    .leftJoin(profiles, eq(profiles.userId, users.id))
    .leftJoin(identityChecks, eq(identityChecks.userId, users.id))
    .where(eq(users.id, sql.placeholder("id")))
    .prepare()
);

/**
 * The one query of every signed-in request: the user's row with what their summary needs, as
 * fixed single-row SQL (db/sql.ts); the user's columns are read back through the schema's own
 * column mappings (booleans, dates), so the row is the same UserRow Drizzle would give.
 */
const USER_COLUMNS = Object.entries(getTableColumns(users));
const USER_AND_SUMMARY = `SELECT ${USER_COLUMNS.map(([, column]) => `u."${column.name}"`).join(", ")},
    p.data AS summary_profile, i.status AS summary_identity,
    (SELECT a.account_ref FROM account_members m JOIN accounts a ON a.id = m.account_id
      WHERE m.user_id = u.id ORDER BY a.id LIMIT 1) AS summary_account_ref
  FROM users u LEFT JOIN profiles p ON p.user_id = u.id LEFT JOIN identity_checks i ON i.user_id = u.id
  WHERE u.id = ?`;

function userFromRow(row: Record<string, unknown>): UserRow {
  const user: Record<string, unknown> = {};
  for (const [key, column] of USER_COLUMNS) {
    const value = row[column.name];
    user[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return user as UserRow;
}

/** A user and their session summary in one query (the session layer's); undefined if no such user. */
export async function userWithSummary(db: Database, id: number, secondFactor: boolean): Promise<{ user: UserRow; summary: SessionUser } | undefined> {
  const row = await rowOf<Record<string, unknown>>(db, USER_AND_SUMMARY, [id]);
  if (!row) return undefined;
  const user = userFromRow(row);
  const profile = typeof row.summary_profile === "string" ? profiles.data.mapFromDriverValue(row.summary_profile) : null;
  return {
    user,
    summary: summaryFrom(user, {
      profile,
      identity: row.summary_identity as string | null,
      accountRef: row.summary_account_ref as string | null,
    }, secondFactor),
  };
}

export async function summaryOf(db: Database, user: UserRow, secondFactor: boolean): Promise<SessionUser> {
  return summaryFrom(user, await summaryRow(db).get({ id: user.id }), secondFactor);
}

function summaryFrom(
  user: UserRow,
  row: { profile: unknown; identity: string | null; accountRef: string | null } | undefined,
  secondFactor: boolean,
): SessionUser {
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
