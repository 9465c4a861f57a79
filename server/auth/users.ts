import { and, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { columnList, fromColumns, preparedQuery, rowOf, type Tx } from "../../db/sql.ts";
import { profiles, users } from "../../db/schema.ts";
import { BAD_CREDENTIALS } from "../../lib/contracts/auth.ts";
import { Unauthenticated } from "../errors.ts";
import type { SessionUser } from "./session-user.ts";
import {
  customerName,
  migrationLineOf,
  type MigrationNames,
  migrationNames,
  type ProfileNames,
} from "../accounts/customer-name.ts";

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

/**
 * The one query of every signed-in request: the user's row with what their summary needs (the
 * profile, the identity check, the first account: a correlated subquery, so a user in several
 * accounts still gives one row; and, only for someone with no profile yet, their migration line,
 * whose names name a migrated customer until they save one), as fixed single-row SQL (db/sql.ts).
 */
const USER_AND_SUMMARY = `SELECT ${columnList(users, "u")},
    p.data AS summary_profile, i.status AS summary_identity,
    CASE WHEN p.data IS NULL THEN ${migrationLineOf("u.id")} END AS summary_migrated,
    (SELECT a.account_ref FROM account_members m JOIN accounts a ON a.id = m.account_id
      WHERE m.user_id = u.id ORDER BY a.id LIMIT 1) AS summary_account_ref
  FROM users u LEFT JOIN profiles p ON p.user_id = u.id LEFT JOIN identity_checks i ON i.user_id = u.id
  WHERE u.id = ?`;

interface SummaryParts {
  profile: unknown;
  migrated: MigrationNames;
  identity: string | null;
  accountRef: string | null;
}

function summaryPartsOf(row: Record<string, unknown>): SummaryParts {
  return {
    profile: typeof row.summary_profile === "string" ? profiles.data.mapFromDriverValue(row.summary_profile) : null,
    migrated: migrationNames(row.summary_migrated),
    identity: row.summary_identity as string | null,
    accountRef: row.summary_account_ref as string | null,
  };
}

/** A user and their session summary in one query (the session layer's); undefined if no such user. */
export async function userWithSummary(
  db: Database | Tx,
  id: number,
  secondFactor: boolean,
): Promise<{ user: UserRow; summary: SessionUser } | undefined> {
  const row = await rowOf<Record<string, unknown>>(db, USER_AND_SUMMARY, [id]);
  if (!row) return undefined;
  const user = fromColumns(users, row);
  return { user, summary: summaryFrom(user, summaryPartsOf(row), secondFactor) };
}

/** A user's session summary; a user who no longer exists is 'Bad credentials'. */
export async function sessionSummary(db: Database, id: number, secondFactor: boolean): Promise<SessionUser> {
  const found = await userWithSummary(db, id, secondFactor);
  if (!found) throw new Unauthenticated(BAD_CREDENTIALS);
  return found.summary;
}

export async function summaryOf(db: Database, user: UserRow, secondFactor: boolean): Promise<SessionUser> {
  const row = await rowOf<Record<string, unknown>>(db, USER_AND_SUMMARY, [user.id]);
  return summaryFrom(user, row ? summaryPartsOf(row) : undefined, secondFactor);
}

function summaryFrom(
  user: UserRow,
  row: SummaryParts | undefined,
  secondFactor: boolean,
): SessionUser {
  const profile = row?.profile ? { data: row.profile } : undefined;
  const identity = row?.identity ? { status: row.identity } : undefined;
  const account = row?.accountRef ? { accountRef: row.accountRef } : undefined;
  const isAdmin = user.level === "Admin";
  return {
    id: user.id,
    username: user.username,
    // Named as every other screen names the customer (decision 065): a migrated customer who has
    // saved no profile yet by their migration line, not by their address.
    name: customerName(user.type, (profile?.data ?? null) as ProfileNames, row?.migrated ?? null, user.username),
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

/** The user has opened the link or typed the token emailed to them. */
export async function markValidated(db: Database, userId: number): Promise<void> {
  await db.update(users).set({ validated: true }).where(eq(users.id, userId));
}

export async function setPasswordHash(db: Database, userId: number, passwordHash: string): Promise<void> {
  await db.update(users).set({ passwordHash }).where(eq(users.id, userId));
}

/**
 * Records the authenticator step a code matched, only if the stored one is still `previous`: of
 * two requests with the same code at once, one moves it and the other finds it moved. Answers
 * whether this one moved it.
 */
export async function advanceTotpStep(
  db: Database,
  userId: number,
  previous: number | null,
  step: number,
): Promise<boolean> {
  const moved = await db.update(users).set({ totpLastStep: step }).where(
    and(eq(users.id, userId), previous === null ? isNull(users.totpLastStep) : eq(users.totpLastStep, previous)),
  ).returning({ id: users.id });
  return moved.length === 1;
}

/** Stores a user's sealed authenticator key with the step of the code that proved it, or removes it (null). */
export async function setAuthenticatorKey(
  db: Database,
  userId: number,
  key: { sealed: string; step: number } | null,
): Promise<void> {
  await db.update(users).set({ totpSecret: key?.sealed ?? null, totpLastStep: key?.step ?? null }).where(
    eq(users.id, userId),
  );
}

/** Whether the user signs in with an authenticator app (else with emailed codes). */
export async function hasAuthenticator(db: Database, userId: number): Promise<boolean> {
  const [row] = await db.select({ totp: users.totpSecret }).from(users).where(eq(users.id, userId));
  return !!row?.totp;
}
