import { eq } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { users } from "../../db/schema.ts";
import { rowOf } from "../../db/sql.ts";
import { holderOf } from "../accounts/find.ts";
import type { FeeOverridesInput } from "../../lib/contracts/console-money.ts";
import type { SessionUser } from "../../lib/session-user.ts";
import { audit } from "../audit.ts";
import { findUser, userWithSummary } from "../auth/users.ts";
import { NotFound } from "../errors.ts";
import type { FeeOverrides } from "./pricing.ts";

/**
 * Sets or clears a customer's fee overrides, per currency (./pricing.ts says how they price a
 * transfer), recorded in the audit log as done by the administrator for that customer, with the
 * overrides before and after. Answers the customer's session summary, which carries the overrides.
 * Administrators have no fees to override.
 */
export async function setFeeOverrides(
  db: Database,
  customerId: number,
  overrides: FeeOverridesInput,
  by: number,
  now: Date,
): Promise<SessionUser> {
  const customer = await findUser(db, customerId);
  if (!customer || customer.level === "Admin") throw new NotFound("There is no customer with this id.");
  const before = {
    override_transfer_fee: customer.overrideTransferFee,
    override_regular_transfer_fee: customer.overrideRegularTransferFee,
    override_priority_transfer_fee: customer.overridePriorityTransferFee,
  };
  // Saving the overrides as they are changes nothing: no write, and no audit entry whose changes
  // would read "—".
  if (sameOverrides(before, overrides)) return (await userWithSummary(db, customerId, false))!.summary;
  await db.transaction(async (tx) => {
    await tx.update(users).set({
      overrideTransferFee: overrides.override_transfer_fee,
      overrideRegularTransferFee: overrides.override_regular_transfer_fee,
      overridePriorityTransferFee: overrides.override_priority_transfer_fee,
    }).where(eq(users.id, customerId));
    await audit(tx, { actor: by, subject: customerId, action: "fees.override", before, after: overrides }, now);
  });
  const updated = await userWithSummary(db, customerId, false);
  return updated!.summary;
}

/** A fee per currency, in an order of its own: the same fees however they were written. */
const feesKey = (fees: Record<string, string> | null) =>
  fees && Object.keys(fees).length ? JSON.stringify(Object.entries(fees).sort(([a], [b]) => a.localeCompare(b))) : null;

function sameOverrides(a: FeeOverridesInput, b: FeeOverridesInput): boolean {
  return a.override_transfer_fee === b.override_transfer_fee &&
    feesKey(a.override_regular_transfer_fee) === feesKey(b.override_regular_transfer_fee) &&
    feesKey(a.override_priority_transfer_fee) === feesKey(b.override_priority_transfer_fee);
}

const HOLDER_OVERRIDES = `SELECT u.override_transfer_fee AS "on", u.override_regular_transfer_fee AS regular,
    u.override_priority_transfer_fee AS priority
  FROM users u WHERE u.id = ${holderOf("?")}`;

/**
 * The fee overrides that price quotes on an account: those of the customer who holds it, its first
 * owner (the one the console sets them on), whoever of its members asks (decision 064). A payer
 * who has a personal account of their own brings neither their overrides nor their lack of them.
 */
export async function accountFeeOverrides(db: Database, accountId: number): Promise<FeeOverrides | null> {
  // Fixed SQL: it runs on every quote, where Drizzle's query building showed in the profiles.
  const holder = await rowOf<{ on: number; regular: string | null; priority: string | null }>(
    db,
    HOLDER_OVERRIDES,
    [accountId],
  );
  if (!holder) return null;
  return {
    override_transfer_fee: !!holder.on,
    override_regular_transfer_fee: holder.regular === null ? null : JSON.parse(holder.regular),
    override_priority_transfer_fee: holder.priority === null ? null : JSON.parse(holder.priority),
  };
}
