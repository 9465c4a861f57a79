import { and, desc, eq, inArray } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import type { Tx } from "../../db/sql.ts";
import { auditLog, users } from "../../db/schema.ts";
import type { restriction } from "../../lib/contracts/admin.ts";
import type { z } from "zod";
import { audit } from "../audit.ts";
import { Conflict, NotFound } from "../errors.ts";

/**
 * Restricting a customer (decision 048): they can still sign in and see everything, but no call
 * that moves money runs for them (lib/contracts/define.ts `movesMoney`; server/http/route.ts
 * refuses it with 403). The flag is the users row's `restricted` (the session summary's); the
 * reason, who and when are the audit entry that set it, so the console reads them from the log.
 */
export type Restriction = z.output<typeof restriction>;

export { RESTRICTED_MESSAGE } from "../../lib/restriction.ts";

async function customerRow(db: Database | Tx, id: number) {
  const [row] = await db.select({ level: users.level, restricted: users.restricted }).from(users)
    .where(eq(users.id, id));
  if (!row || row.level === "Admin") throw new NotFound("There is no customer with this id.");
  return row;
}

/** Where a customer's restriction stands: the latest restrict or lift entry says why, who and when. */
export async function restrictionOf(db: Database, id: number): Promise<Restriction> {
  const { restricted } = await customerRow(db, id);
  const [latest] = await db.select({
    at: auditLog.at,
    action: auditLog.action,
    after: auditLog.after,
    email: users.username,
  })
    .from(auditLog).innerJoin(users, eq(users.id, auditLog.actorId))
    .where(and(eq(auditLog.subjectId, id), inArray(auditLog.action, ["customer.restrict", "customer.lift"])))
    .orderBy(desc(auditLog.id)).limit(1);
  const set = restricted && latest?.action === "customer.restrict";
  return {
    restricted,
    reason: set ? String((latest.after as { reason?: string } | null)?.reason ?? "") : null,
    at: latest ? latest.at.toISOString() : null,
    by: latest ? latest.email : null,
  };
}

/**
 * Restricts (`restricted: true`) or lifts (`false`) a customer's restriction with a reason for the
 * file; 409 when they stand that way already. One function for both so the two stay the same
 * write: one transaction, the flag and its audit entry (customer.restrict / customer.lift).
 */
export async function setRestriction(
  db: Database,
  id: number,
  { restricted, reason }: { restricted: boolean; reason: string },
  by: number,
  now: Date,
): Promise<Restriction> {
  await db.transaction(async (tx) => {
    const row = await customerRow(tx, id);
    if (row.restricted === restricted) {
      throw new Conflict(
        restricted
          ? "This customer is restricted already: lift it first to restrict again."
          : "This customer is not restricted.",
      );
    }
    await tx.update(users).set({ restricted }).where(eq(users.id, id));
    await audit(tx, {
      actor: by,
      subject: id,
      action: restricted ? "customer.restrict" : "customer.lift",
      before: { restricted: !restricted },
      after: { restricted, reason },
    }, now);
  });
  return await restrictionOf(db, id);
}
