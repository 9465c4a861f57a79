import { and, count, desc, eq, exists, gte, lt, or, sql } from "drizzle-orm";
import { likeContaining } from "../../db/sql.ts";
import type { z } from "zod";
import type { Database } from "../../db/client.ts";
import { accountMembers, accounts, identityChecks, profiles, users } from "../../db/schema.ts";
import { ledgerAccounts } from "../../db/schema-money.ts";
import type { customerRow } from "../../lib/contracts/admin.ts";
import { displayName } from "../auth/session-user.ts";

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

/**
 * A customer's name as the search reads it: a business's name, or a person's first and last name,
 * each read from its own field of the profile (never the profile's whole stored text, where
 * "true" or "London" would match everyone).
 */
const searchName = sql`lower(CASE ${profiles.type} WHEN 'Business'
  THEN coalesce(json_extract(${profiles.data}, '$.name'), '')
  ELSE trim(coalesce(json_extract(${profiles.data}, '$.first'), '') || ' ' || coalesce(json_extract(${profiles.data}, '$.last'), ''))
  END)`;

/** The customer's own account's reference (their first account), if any. */
const ownAccountRef = sql<string | null>`(SELECT ${accounts.accountRef} FROM ${accountMembers}
  INNER JOIN ${accounts} ON ${accounts.id} = ${accountMembers.accountId}
  WHERE ${accountMembers.userId} = ${users.id} ORDER BY ${accounts.id} LIMIT 1)`;

/**
 * The onboarding step a customer is at, the first not done in the order /auth checks them: their
 * email, their profile, their identity, the compliance review (no account yet), or open.
 */
const stepOf = sql<CustomerRow["step"]>`CASE
  WHEN ${users.validated} = 0 THEN 'verify'
  WHEN ${profiles.userId} IS NULL THEN 'profile'
  WHEN coalesce(${identityChecks.status}, '') <> 'approved' THEN 'identity'
  WHEN ${ownAccountRef} IS NULL THEN 'review'
  ELSE 'open' END`;

/** Money in any currency on an account the customer belongs to (spendable or held for a payment). */
const holdsMoney = sql`EXISTS (SELECT 1 FROM ${accountMembers}
  INNER JOIN ${ledgerAccounts} ON ${ledgerAccounts.accountId} = ${accountMembers.accountId}
  WHERE ${accountMembers.userId} = ${users.id} AND ${ledgerAccounts.kind} = 'customer' AND ${ledgerAccounts.balance} > 0)`;

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
  const pattern = likeContaining(q);
  const matching = q
    ? or(
      sql`lower(${users.username}) LIKE ${pattern} ESCAPE '\\'`,
      sql`${searchName} LIKE ${pattern} ESCAPE '\\'`,
      exists(
        db.select({ one: sql`1` }).from(accountMembers)
          .innerJoin(accounts, eq(accounts.id, accountMembers.accountId))
          .where(and(
            eq(accountMembers.userId, users.id),
            sql`lower(${accounts.accountRef}) LIKE ${pattern} ESCAPE '\\'`,
          )),
      ),
    )
    : undefined;
  const where = and(
    eq(users.level, "User"),
    matching,
    search.type ? eq(users.type, search.type) : undefined,
    search.restricted === undefined ? undefined : eq(users.restricted, search.restricted),
    search.from ? gte(users.createdAt, startOfDay(search.from)) : undefined,
    search.to ? lt(users.createdAt, new Date(startOfDay(search.to).getTime() + DAY)) : undefined,
    search.step ? sql`${stepOf} = ${search.step}` : undefined,
    search.has_balance === undefined ? undefined : search.has_balance ? holdsMoney : sql`NOT ${holdsMoney}`,
  );
  // The count joins the profile and the identity check only when a filter reads them: over every
  // customer, the joins are most of its time (docs/PERFORMANCE.md, "Customers list").
  const counting = db.select({ total: count() }).from(users).$dynamic();
  if (q || search.step) {
    counting.leftJoin(profiles, eq(profiles.userId, users.id))
      .leftJoin(identityChecks, eq(identityChecks.userId, users.id));
  }
  const [{ total }] = await counting.where(where);
  const rows = await db.select({
    id: users.id,
    username: users.username,
    type: users.type,
    validated: users.validated,
    restricted: users.restricted,
    step: stepOf,
    createdAt: users.createdAt,
    profile: profiles.data,
    identity: identityChecks.status,
    accountRef: ownAccountRef,
  }).from(users)
    .leftJoin(profiles, eq(profiles.userId, users.id))
    .leftJoin(identityChecks, eq(identityChecks.userId, users.id))
    .where(where)
    .orderBy(desc(users.id)).limit(perPage).offset((page - 1) * perPage);
  const items: CustomerRow[] = rows.map((r) => ({
    id: r.id,
    username: r.username,
    name: displayName(r.type, r.profile as { name?: string; first?: string; last?: string } | null, r.username),
    type: r.type,
    validated: r.validated,
    profile: !!r.profile,
    identity: r.identity === "approved",
    account: !!r.accountRef,
    account_ref: r.accountRef,
    restricted: r.restricted,
    step: r.step,
    created_at: r.createdAt.toISOString(),
  }));
  return { items, page, per_page: perPage, total };
}
