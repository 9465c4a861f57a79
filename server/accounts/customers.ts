import { and, count, desc, eq, gte, inArray, lt, sql } from "drizzle-orm";
import { likeContaining } from "../../db/sql.ts";
import type { z } from "zod";
import type { Database } from "../../db/client.ts";
import { accountMembers, accounts, identityChecks, profiles, users } from "../../db/schema.ts";
import type { customerRow } from "../../lib/contracts/admin.ts";
import { customerName, migrationLineOf, migrationNames } from "./customer-name.ts";

/** One customer as the console's list shows them: who, and how far their onboarding is. */
export type CustomerRow = z.output<typeof customerRow>;

/** Whether an id is a customer's (an administrator is not one). */
export async function isCustomer(db: Database, id: number): Promise<boolean> {
  const [row] = await db.select({ level: users.level }).from(users).where(eq(users.id, id));
  return row?.level === "User";
}

/** What the console's list asks for: a search text, filters and a page. */
export interface CustomerSearch {
  q?: string;
  type?: "Personal" | "Business";
  step?: CustomerRow["step"];
  restricted?: boolean;
  has_balance?: boolean;
  /** Signed up on or after this day (UTC), YYYY-MM-DD. */
  from?: string;
  /** Signed up on or before this day (UTC), YYYY-MM-DD. */
  to?: string;
  page?: number;
  per_page?: number;
}

/** The customer's own account's reference (their first account), if any. */
const ownAccountRef = sql<string | null>`(SELECT ${accounts.accountRef} FROM ${accountMembers}
  INNER JOIN ${accounts} ON ${accounts.id} = ${accountMembers.accountId}
  WHERE ${accountMembers.userId} = ${users.id} ORDER BY ${accounts.id} LIMIT 1)`;

/**
 * The customers whose email, name (a business's name, or a person's first and last name, each
 * read from its own field of the profile, never the whole stored text) or the reference of an
 * account they belong to contains every word of `q` (lower case, single spaces), any case and in
 * any order: a bank's statement names "HOPPER GRACE" the customer Grace Hopper. On customer_search
 * (db/derived.ts, decision 052): the words of 3 characters or more are phrases of trigrams, found
 * together on the index; a shorter one has no trigram and is a LIKE over customer_search_text, the
 * index's content.
 */
function searching(q: string) {
  const words = q.split(" ");
  const long = words.filter((word) => [...word].length >= 3);
  const phrases = long.map((word) => `"${word.replaceAll('"', '""')}"`).join(" ");
  return and(
    long.length
      ? sql`${users.id} IN (SELECT rowid FROM customer_search WHERE customer_search MATCH ${phrases})`
      : undefined,
    ...words.filter((word) => [...word].length < 3).map((word) => {
      const pattern = likeContaining(word);
      return sql`${users.id} IN (SELECT id FROM customer_search_text WHERE email LIKE ${pattern} ESCAPE '\\'
        OR name LIKE ${pattern} ESCAPE '\\' OR refs LIKE ${pattern} ESCAPE '\\')`;
    }),
  );
}

const startOfDay = (day: string) => new Date(`${day}T00:00:00Z`);
const DAY = 24 * 60 * 60 * 1000;

/**
 * A page of customers (never administrators), newest first: all of them, or those whose name,
 * email or the reference of an account they belong to contains the search text (any case). Answers
 * the page with the total that match, so the console can say how many there are.
 */
export async function listCustomers(db: Database, search: CustomerSearch = {}) {
  const page = search.page ?? 1;
  const perPage = search.per_page ?? 20;
  const q = (search.q ?? "").trim().toLowerCase().replace(/\s+/g, " ");
  const matching = q ? searching(q) : undefined;
  const where = and(
    eq(users.level, "User"),
    matching,
    search.type ? eq(users.type, search.type) : undefined,
    search.restricted === undefined ? undefined : eq(users.restricted, search.restricted),
    search.from ? gte(users.createdAt, startOfDay(search.from)) : undefined,
    search.to ? lt(users.createdAt, new Date(startOfDay(search.to).getTime() + DAY)) : undefined,
    search.step ? eq(users.step, search.step) : undefined,
    search.has_balance === undefined ? undefined : eq(users.hasBalance, search.has_balance),
  );
  // Every filter reads users alone (the step, the balance flag and the search are kept for it):
  // the count joins nothing (docs/PERFORMANCE.md, "Customers list").
  const [{ total }] = await db.select({ total: count() }).from(users).where(where);
  // The page's ids first, on the indexes alone; then only those rows' profile, identity check and
  // account: a page far down skips its offset without reading what it skips.
  // Past the last match there is nothing to read (a search that matches nobody scans once, not twice).
  const pageIds = total > (page - 1) * perPage
    ? (await db.select({ id: users.id }).from(users).where(where)
      .orderBy(desc(users.id)).limit(perPage).offset((page - 1) * perPage)).map((r) => r.id)
    : [];
  const rows = pageIds.length
    ? await db.select({
      id: users.id,
      username: users.username,
      type: users.type,
      validated: users.validated,
      restricted: users.restricted,
      step: users.step,
      createdAt: users.createdAt,
      profile: profiles.data,
      identity: identityChecks.status,
      rejectedAt: profiles.rejectedAt,
      rejectionReason: profiles.rejectionReason,
      accountRef: ownAccountRef,
      migrated: sql<unknown>`${sql.raw(migrationLineOf(`"users"."id"`))}`,
    }).from(users)
      .leftJoin(profiles, eq(profiles.userId, users.id))
      .leftJoin(identityChecks, eq(identityChecks.userId, users.id))
      .where(inArray(users.id, pageIds))
      .orderBy(desc(users.id))
    : [];
  const items: CustomerRow[] = rows.map((r) => ({
    id: r.id,
    username: r.username,
    // As the search finds them: the profile's name, else the migration line's (decision 065).
    name: customerName(
      r.type,
      r.profile as { name?: string; first?: string; last?: string } | null,
      migrationNames(r.migrated),
      r.username,
    ),
    type: r.type,
    validated: r.validated,
    profile: !!r.profile,
    identity: r.identity === "approved",
    account: !!r.accountRef,
    account_ref: r.accountRef,
    restricted: r.restricted,
    step: r.step,
    // As the customer's page: a rejection stands until the account opens (the override clears it).
    rejection: r.rejectedAt && r.rejectionReason && !r.accountRef
      ? { at: r.rejectedAt.toISOString(), reason: r.rejectionReason }
      : null,
    created_at: r.createdAt.toISOString(),
  }));
  return { items, page, per_page: perPage, total };
}
