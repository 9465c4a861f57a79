import { and, desc, eq, like, or } from "drizzle-orm";
import type { z } from "zod";
import type { Database } from "../../db/client.ts";
import { accountMembers, accounts, identityChecks, profiles, users } from "../../db/schema.ts";
import type { customerRow } from "../../lib/contracts/admin.ts";
import { displayName } from "../auth/session-user.ts";

/** One customer as the console's list shows them: who, and how far their onboarding is. */
export type CustomerRow = z.output<typeof customerRow>;

/** Whether an id is a customer's (an administrator is not one). */
export async function isCustomer(db: Database, id: number): Promise<boolean> {
  const [row] = await db.select({ level: users.level }).from(users).where(eq(users.id, id));
  return row?.level === "User";
}

/** Customers (never administrators), newest first, optionally matching a search in email or profile. */
export async function listCustomers(db: Database, query = "", limit = 200): Promise<CustomerRow[]> {
  const q = query.trim().toLowerCase().replace(/[%_\\]/g, "");
  const rows = await db.select({
    id: users.id,
    username: users.username,
    type: users.type,
    validated: users.validated,
    createdAt: users.createdAt,
    profile: profiles.data,
    identity: identityChecks.status,
    accountRef: accounts.accountRef,
  }).from(users)
    .leftJoin(profiles, eq(profiles.userId, users.id))
    .leftJoin(identityChecks, eq(identityChecks.userId, users.id))
    .leftJoin(accountMembers, eq(accountMembers.userId, users.id))
    .leftJoin(accounts, eq(accounts.id, accountMembers.accountId))
    .where(
      and(eq(users.level, "User"), q ? or(like(users.username, `%${q}%`), like(profiles.data, `%${q}%`)) : undefined),
    )
    .orderBy(desc(users.id)).limit(limit);
  return rows.map((r) => ({
    id: r.id,
    username: r.username,
    name: displayName(r.type, r.profile as { name?: string; first?: string; last?: string } | null, r.username),
    type: r.type,
    validated: r.validated,
    profile: !!r.profile,
    identity: r.identity === "approved",
    account: !!r.accountRef,
    account_ref: r.accountRef,
    created_at: r.createdAt.toISOString(),
  }));
}
