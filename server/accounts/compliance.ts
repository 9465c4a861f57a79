import { eq } from "drizzle-orm";
import { profiles } from "../../db/schema.ts";
import type { SessionUser } from "../../lib/session-user.ts";
import { audit } from "../audit.ts";
import { findUser, summaryOf } from "../auth/users.ts";
import { Conflict, InvalidFields, InvalidInput, NotFound } from "../errors.ts";
import { validateCompliance } from "../profile/schema.ts";
import { type AccountDeps, openAccountFor } from "./onboarding.ts";
import { ownAccountOf } from "./open.ts";

/**
 * An administrator's compliance review of a customer who waits on /processing (SPEC.md section 5),
 * recorded on their profile, then their account opens. The customer must have a profile and an
 * approved identity, and no account yet. Answers the customer's summary.
 */
export async function openAccountAfterReview(
  deps: AccountDeps,
  review: { customerId: number; adminId: number; compliance: unknown },
  now: Date,
): Promise<SessionUser> {
  const { db } = deps;
  const customer = await findUser(db, review.customerId);
  if (!customer || customer.level === "Admin") throw new NotFound("There is no customer with this id.");
  const checked = validateCompliance(review.compliance, now);
  // Named as the request has them: the review is the body's `compliance`.
  if (!checked.ok) throw new InvalidFields(checked.error, inCompliance(checked.fields));
  const summary = await summaryOf(db, customer, false);
  if (!summary.profile) throw new Conflict("The customer has not saved a profile yet.");
  if (!summary.identity) throw new Conflict("The customer's identity is not approved yet.");
  // Belonging to someone else's account through an invitation is not having one's own.
  if (await ownAccountOf(db, customer.id)) throw new Conflict("This customer's account is already open.");
  const { done, amount, date } = checked.compliance;
  if (!done) throw new InvalidInput("Complete the compliance review before opening the account.", "compliance.done");
  await db.update(profiles).set({
    complianceDone: done,
    complianceAmount: amount ?? null,
    complianceDate: date ?? null,
    updatedAt: now,
  }).where(eq(profiles.userId, customer.id));
  const account = await openAccountFor(deps, customer.id, review.adminId, now);
  await audit(db, {
    actorId: review.adminId,
    onBehalfOfId: customer.id,
    action: "account.open",
    detail: { account_ref: account.accountRef, compliance: checked.compliance },
  }, now);
  return await summaryOf(db, customer, false);
}

/** The review's failing fields by their path in the request ("compliance.amount"; the whole review: "compliance"). */
function inCompliance(fields: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(fields).map((
      [path, message],
    ) => [path === "" || path === "_" ? "compliance" : `compliance.${path}`, message]),
  );
}
