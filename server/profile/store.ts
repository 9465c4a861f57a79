import { eq } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import type { Tx } from "../../db/sql.ts";
import { profiles } from "../../db/schema.ts";
import { Conflict, InvalidFields } from "../errors.ts";
import { validateProfile } from "./schema.ts";
import { reviewQueued } from "../accounts/onboarding.ts";
import { declaredIdentityFrom, declaredIdentityOf } from "../identity/document.ts";
import { readStoredCheck } from "../identity/store.ts";

/** The customer's profile as saved (SPEC.md section 3), checked against the rules of ./schema.ts. */

const LOCKED_BECAUSE = {
  open: "Your account is open",
  verified: "Your details were verified",
  reviewed: "Your application is being reviewed",
} as const;

/**
 * Why the customer can no longer change their profile here (saveProfile's rule, which the profile
 * pages follow too, so that they never show a form whose save is refused), or null while they can.
 */
export async function profileLocked(
  db: Database | Tx,
  customer: { id: number; account: boolean; identity: boolean },
): Promise<keyof typeof LOCKED_BECAUSE | null> {
  if (customer.identity) return customer.account ? "open" : "verified";
  return await reviewQueued(db, customer.id, { openOnly: true }) ? "reviewed" : null;
}

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
  const result = validateProfile(customer.type, input, now);
  // One write transaction, the locks read in it from the database: an identity approval (or a review
  // queued) that commits while this request runs is either seen here, refusing the save, or comes
  // after it and judges the profile saved. Read outside, a save could land just after the approval
  // that opened the account on the answers it replaced.
  await db.transaction(async (tx) => {
    const check = await readStoredCheck(tx, customer.id);
    const locked = await profileLocked(tx, {
      ...customer,
      identity: customer.identity || check?.status === "approved",
    });
    if (locked) throw new Conflict(`${LOCKED_BECAUSE[locked]}: write to us at ${supportEmail} to change your profile.`);
    if (!result.ok) throw new InvalidFields(result.error, result.fields);
    if (check !== undefined && await identityBound(tx, customer.id, customer.type, result.profile)) {
      throw new Conflict(
        `Your identity check has started: write to us at ${supportEmail} to change your name, date of birth or country.`,
      );
    }
    await tx.insert(profiles).values({
      userId: customer.id,
      type: customer.type,
      data: result.profile,
      createdAt: now,
      updatedAt: now,
    }).onConflictDoUpdate({ target: profiles.userId, set: { data: result.profile, updatedAt: now } });
  });
}

/** Whether the customer's identity check has started: from then its name, date of birth and country are bound. */
export async function identityCheckStarted(db: Database | Tx, userId: number): Promise<boolean> {
  return (await readStoredCheck(db, userId)) !== undefined;
}

/** What the profile form says once the check has started (decision 085). */
export const IDENTITY_BOUND_NOTE = (supportEmail: string, type: "Personal" | "Business") =>
  `Your identity check has started: it compares your document with ${
    type === "Business" ? "the contact person's name and date of birth" : "the name, date of birth and country you gave"
  }. To change them, write to us at ${supportEmail}.`;

/** What each of those fields says under it, read-only, once the check has started (decision 085). */
export const IDENTITY_BOUND_FIELD = (supportEmail: string) =>
  `Your identity check compares this with your document: to change it, write to us at ${supportEmail}.`;

/**
 * Whether the save would change the identity the check binds (decision 085), asked once the check
 * has started (a check is recorded: in progress, asked to retry, refused): the provider was given, or
 * judged, the name, date of birth and country saved then. The rest of the profile stays the
 * customer's to correct until the approval (decision 071).
 */
async function identityBound(
  db: Database | Tx,
  userId: number,
  type: "Personal" | "Business",
  profile: unknown,
): Promise<boolean> {
  const saved = await declaredIdentityOf(db, userId);
  const wanted = declaredIdentityFrom(type, profile);
  if (!saved || !wanted) return false;
  return saved.firstName !== wanted.firstName || saved.lastName !== wanted.lastName || saved.dob !== wanted.dob ||
    saved.country !== wanted.country;
}

/** The profile a customer saved, for the form to show again; null before the first save. */
export async function savedProfile(db: Database, userId: number): Promise<unknown> {
  const [row] = await db.select({ data: profiles.data }).from(profiles).where(eq(profiles.userId, userId));
  return row?.data ?? null;
}
