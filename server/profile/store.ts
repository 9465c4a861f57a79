import { eq } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { profiles } from "../../db/schema.ts";
import { Conflict, InvalidFields } from "../errors.ts";
import { validateProfile } from "./schema.ts";
import { reviewQueued } from "../accounts/onboarding.ts";

/** The customer's profile as saved (SPEC.md section 3), checked against the rules of ./schema.ts. */

/**
 * Saves the profile of the customer's type, checked on `now` (ages, dates not in the future): a
 * 422 names every failing field and saves nothing. Once the identity check has approved the
 * person, or while a compliance review of them is open, support changes it (decision 071): the
 * check and the review were of these details, and an account opens at once only on what they saw.
 * Someone who joined an account through an invitation belongs to it before their own identity is
 * checked (decision 028): their profile stays theirs to change until then.
 */
export async function saveProfile(
  db: Database,
  customer: { id: number; type: "Personal" | "Business"; account: boolean; identity: boolean },
  input: unknown,
  now: Date,
  /** Where to write to us (SUPPORT_EMAIL), named when the profile can no longer be changed here. */
  supportEmail: string,
): Promise<void> {
  if (customer.account && customer.identity) {
    throw new Conflict(`Your account is open: write to us at ${supportEmail} to change your profile.`);
  }
  if (customer.identity) {
    throw new Conflict(`Your details were verified: write to us at ${supportEmail} to change your profile.`);
  }
  if (await reviewQueued(db, customer.id, { openOnly: true })) {
    throw new Conflict(`Your application is being reviewed: write to us at ${supportEmail} to change your profile.`);
  }
  const result = validateProfile(customer.type, input, now);
  if (!result.ok) throw new InvalidFields(result.error, result.fields);
  await db.insert(profiles).values({
    userId: customer.id,
    type: customer.type,
    data: result.profile,
    createdAt: now,
    updatedAt: now,
  }).onConflictDoUpdate({ target: profiles.userId, set: { data: result.profile, updatedAt: now } });
}

/** The profile a customer saved, for the form to show again; null before the first save. */
export async function savedProfile(db: Database, userId: number): Promise<unknown> {
  const [row] = await db.select({ data: profiles.data }).from(profiles).where(eq(profiles.userId, userId));
  return row?.data ?? null;
}
