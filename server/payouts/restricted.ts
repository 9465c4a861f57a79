import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import type { Tx } from "../../db/sql.ts";
import { accountMembers, users } from "../../db/schema.ts";

/**
 * Which payments belong to a restricted customer (decision 048, amended): the person who made the
 * payment is restricted, or an owner of the account it is paid from is. The restriction is the
 * person's; the payout desk holds back what either of them would send.
 */
export async function restrictedPayments(
  db: Database | Tx,
  rows: readonly { id: number; accountId: number; createdBy: number }[],
): Promise<Set<number>> {
  if (!rows.length) return new Set();
  const people = [...new Set(rows.map((r) => r.createdBy))];
  const accountIds = [...new Set(rows.map((r) => r.accountId))];
  const [makers, owned] = await Promise.all([
    db.select({ id: users.id }).from(users).where(and(inArray(users.id, people), eq(users.restricted, true))),
    db.select({ accountId: accountMembers.accountId }).from(accountMembers)
      .innerJoin(users, eq(users.id, accountMembers.userId))
      .where(and(
        inArray(accountMembers.accountId, accountIds),
        eq(accountMembers.role, "owner"),
        eq(users.restricted, true),
      )),
  ]);
  const restrictedMakers = new Set(makers.map((m) => m.id));
  const restrictedAccounts = new Set(owned.map((o) => o.accountId));
  return new Set(
    rows.filter((r) => restrictedMakers.has(r.createdBy) || restrictedAccounts.has(r.accountId)).map((r) => r.id),
  );
}
