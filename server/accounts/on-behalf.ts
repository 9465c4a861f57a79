import { eq } from "drizzle-orm";
import type { z } from "zod";
import type { Database } from "../../db/client.ts";
import type { Tx } from "../../db/sql.ts";
import { sessions, users } from "../../db/schema.ts";
import type { onBehalfCustomer } from "../../lib/contracts/admin.ts";
import { audit } from "../audit.ts";
import { userWithSummary } from "../auth/users.ts";
import { NotFound } from "../errors.ts";

/**
 * An administrator acting on behalf of a customer (decision 007): kept on the administrator's row,
 * so it survives reloads and new logins; every start and end is in the audit log.
 */

export type OnBehalfCustomer = z.output<typeof onBehalfCustomer>;

const NO_SUCH_CUSTOMER = "There is no customer with this id.";

/** The customer as the administrator sees them, or null when the id is not a customer's. */
export async function onBehalfCustomerOf(db: Database, customerId: number): Promise<OnBehalfCustomer | null> {
  const customer = await userWithSummary(db, customerId, true);
  if (!customer || customer.user.level === "Admin") return null;
  // cc_contact: the customer's contact address, to copy them on what is sent on their behalf.
  return { ...customer.summary, cc_contact: customer.user.username };
}

/** The customer the administrator acts for now; 404 when none. */
export async function currentOnBehalf(db: Database, customerId: number | undefined): Promise<OnBehalfCustomer> {
  const customer = customerId === undefined ? null : await onBehalfCustomerOf(db, customerId);
  if (!customer) throw new NotFound("You are not acting on behalf of a customer.");
  return customer;
}

/**
 * Starts acting on behalf of a customer (never another administrator). Switching from another
 * customer ends acting for them first: both are in the audit log, the end for the first, then the
 * start for the second.
 */
export async function startOnBehalf(
  db: Database,
  adminId: number,
  customerId: number,
  previous: number | null,
  now: Date,
): Promise<OnBehalfCustomer> {
  const customer = await onBehalfCustomerOf(db, customerId);
  if (!customer) throw new NotFound(NO_SUCH_CUSTOMER, "on_behalf_of");
  await db.transaction(async (tx) => {
    await tx.update(users).set({ onBehalfOf: customerId }).where(eq(users.id, adminId));
    await forgetChosenAccount(tx, adminId);
    if (previous !== null && previous !== customerId) await recordEnd(tx, adminId, previous, now);
    await audit(tx, {
      actor: adminId,
      subject: customerId,
      action: "on-behalf.start",
      before: { on_behalf_of: previous },
      after: { on_behalf_of: customerId },
    }, now);
  });
  return customer;
}

/** Stops acting on behalf; the end is recorded when there was a customer. */
export async function stopOnBehalf(db: Database, adminId: number, previous: number | null, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.update(users).set({ onBehalfOf: null }).where(eq(users.id, adminId));
    await forgetChosenAccount(tx, adminId);
    if (previous !== null) await recordEnd(tx, adminId, previous, now);
  });
}

function recordEnd(tx: Tx, adminId: number, previous: number, now: Date) {
  return audit(tx, {
    actor: adminId,
    subject: previous,
    action: "on-behalf.end",
    before: { on_behalf_of: previous },
    after: { on_behalf_of: null },
  }, now);
}

/**
 * The account an administrator chose while acting for a customer was one of that customer's
 * (decision 028): acting for someone else, or for nobody, starts without a choice.
 */
async function forgetChosenAccount(db: Database | Tx, adminId: number): Promise<void> {
  await db.update(sessions).set({ currentAccountId: null }).where(eq(sessions.userId, adminId));
}
