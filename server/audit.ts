import { and, count, desc, eq, gte, inArray, lt, or, sql } from "drizzle-orm";
import type { Context, MiddlewareHandler } from "hono";
import type { z } from "zod";
import type { Database } from "../db/client.ts";
import { accountMembers, accounts, auditLog, users } from "../db/schema.ts";
import { likeContaining, type Tx } from "../db/sql.ts";
import type { AuditAction } from "../lib/audit.ts";
import type { auditEntry } from "../lib/contracts/admin.ts";
import { confirmIdentity } from "../lib/contracts/onboarding.ts";
import type { AppEnv } from "./env.ts";

/**
 * The audit log (docs/decisions/026): who did what, for whom, with the values before and after.
 * Services call `audit()` with the transaction of the change they record, so that a change never
 * commits without its entry, nor an entry without its change; the log is never changed, only added
 * to (the database refuses updates and deletes).
 */
export interface AuditRecord {
  /** Who did it: the administrator, or the customer for their own account's users. */
  actor: number;
  /** The customer it was done to or for, when there is one. */
  subject?: number | null;
  /** The account it was about, when there is one (a receipt credited to it, a plan put on it). */
  account?: number | null;
  action: AuditAction;
  /** The values it changed, as they were and as they became (null where there was none). */
  before: unknown;
  after: unknown;
}

export async function audit(db: Database | Tx, entry: AuditRecord, now: Date): Promise<void> {
  await db.insert(auditLog).values({
    at: now,
    actorId: entry.actor,
    subjectId: entry.subject ?? null,
    accountId: entry.account ?? null,
    action: entry.action,
    before: entry.before ?? null,
    after: entry.after ?? null,
  });
}

export type AuditEntry = z.output<typeof auditEntry>;

/** The most entries one customer's trail (and GET console/audit) answers; the audit screen pages through all. */
export const AUDIT_LIMIT = 500;

/**
 * The latest 500 entries, newest first, with who did each; only a customer's when one is given:
 * those for them and those about the accounts they belong to.
 */
export async function auditEntries(db: Database, customerId?: number): Promise<AuditEntry[]> {
  let where;
  if (customerId !== undefined) {
    const theirs = db.select({ id: accountMembers.accountId }).from(accountMembers)
      .where(eq(accountMembers.userId, customerId));
    where = or(eq(auditLog.subjectId, customerId), inArray(auditLog.accountId, theirs));
  }
  const rows = await db.select({ entry: auditLog, email: users.username, accountRef: accounts.accountRef })
    .from(auditLog)
    .innerJoin(users, eq(users.id, auditLog.actorId))
    .leftJoin(accounts, eq(accounts.id, auditLog.accountId))
    .where(where)
    .orderBy(desc(auditLog.id)).limit(AUDIT_LIMIT);
  return rows.map(entryOf);
}

/** What the console's audit screen (/console/audit) narrows the log by; each one given narrows. */
export interface AuditFilter {
  /** Part of the email of whoever did it. */
  who?: string;
  action?: AuditAction;
  /** A customer: the entries for them and about the accounts they belong to. */
  customer?: number;
  /** UTC days, both included (YYYY-MM-DD). */
  from?: string;
  to?: string;
}

/** The screen's page size: enough to scan, small enough to render at once. */
export const AUDIT_PAGE_SIZE = 50;

/**
 * A page of the whole log, newest first, as narrowed by `filter`, with how many entries match:
 * every entry is reachable (no 500 cap), so staff can prove who did what across the console.
 */
export async function auditPage(db: Database, filter: AuditFilter, page: number) {
  const day = (d: string) => new Date(`${d}T00:00:00.000Z`);
  const nextDay = (d: string) => new Date(day(d).getTime() + 86_400_000);
  const where = and(
    filter.who ? sql`${users.username} LIKE ${likeContaining(filter.who)} ESCAPE '\\'` : undefined,
    filter.action ? eq(auditLog.action, filter.action) : undefined,
    filter.customer !== undefined
      ? or(
        eq(auditLog.subjectId, filter.customer),
        inArray(
          auditLog.accountId,
          db.select({ id: accountMembers.accountId }).from(accountMembers)
            .where(eq(accountMembers.userId, filter.customer)),
        ),
      )
      : undefined,
    filter.from ? gte(auditLog.at, day(filter.from)) : undefined,
    filter.to ? lt(auditLog.at, nextDay(filter.to)) : undefined,
  );
  const [[{ total }], rows] = await Promise.all([
    db.select({ total: count() }).from(auditLog).innerJoin(users, eq(users.id, auditLog.actorId)).where(where),
    db.select({ entry: auditLog, email: users.username, accountRef: accounts.accountRef })
      .from(auditLog)
      .innerJoin(users, eq(users.id, auditLog.actorId))
      .leftJoin(accounts, eq(accounts.id, auditLog.accountId))
      .where(where)
      .orderBy(desc(auditLog.id)).limit(AUDIT_PAGE_SIZE).offset((page - 1) * AUDIT_PAGE_SIZE),
  ]);
  return { items: rows.map(entryOf), page, per_page: AUDIT_PAGE_SIZE, total };
}

type EntryRow = { entry: typeof auditLog.$inferSelect; email: string; accountRef: string | null };

function entryOf({ entry, email, accountRef }: EntryRow): AuditEntry {
  return {
    id: entry.id,
    at: entry.at.toISOString(),
    actor: { id: entry.actorId, email },
    subject_id: entry.subjectId,
    account_ref: accountRef,
    action: entry.action as AuditAction,
    before: entry.before,
    after: entry.after,
  };
}

/**
 * The GET calls that change something: reading the identity check's result records it and can open
 * the customer's account (SPEC.md names it a GET). Made on a customer's behalf, they are recorded
 * as the other writes are (decision 073).
 */
const GETS_THAT_CHANGE = new Set([`/api${confirmIdentity.path}`]);

/**
 * Every call that changes something while an administrator acts on behalf of a customer is
 * recorded with both identities, the call and the answer's status, after it ran. (The calls that
 * start and end acting on behalf record themselves; the administrator's own sign-in and sign-out
 * are not done on behalf.)
 */
export function auditOnBehalf(): MiddlewareHandler<AppEnv> {
  return async function auditCalls(c: Context<AppEnv>, next) {
    await next();
    const admin = c.get("user");
    const customer = c.get("onBehalf");
    if (!admin || admin.level !== "Admin" || !customer) return;
    const reads = (c.req.method === "GET" && !GETS_THAT_CHANGE.has(c.req.path)) || c.req.method === "HEAD";
    if (reads || c.req.path.endsWith("/account/onbehalf")) return;
    // Signing in and out (under /api/auth/) are the administrator's own session, done for nobody.
    if (c.req.path.startsWith("/api/auth/")) return;
    await audit(c.get("db"), {
      actor: admin.id,
      subject: customer.id,
      action: "on-behalf.call",
      before: null,
      after: { method: c.req.method, path: c.req.path, status: c.res.status },
    }, new Date(c.get("services").now()));
  };
}
