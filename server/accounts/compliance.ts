import { eq } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { profiles, users } from "../../db/schema.ts";
import {
  IDENTITY_MISMATCH_TEXT,
  IDENTITY_MISMATCHES,
  type IdentityMismatch,
  REJECTION_REASON_TEXT,
  type RejectionReason,
} from "../../lib/compliance.ts";
import { consoleAlerts } from "../../db/schema-console.ts";
import type { SessionUser } from "../../lib/session-user.ts";
import { audit } from "../audit.ts";
import { closeAlert } from "../alerts/alerts.ts";
import { findUser, summaryOf } from "../auth/users.ts";
import { Conflict, InvalidFields, InvalidInput, NotFound } from "../errors.ts";
import { applicationRejected, type Mailer } from "../mail/index.ts";
import type { PersonalProfile } from "../profile/schema.ts";
import { validateCompliance } from "../profile/schema.ts";
import { type AccountDeps, openAccountIn } from "./onboarding.ts";
import { ownAccountOf } from "./open.ts";

/**
 * An administrator's compliance review of a customer who waits on /processing (SPEC.md section 5,
 * decision 026): approve (the account opens) or reject with a reason the customer is told. A
 * rejection stands until a new review says it overrides it, so that no later step (an identity
 * check passing, a reviewer who did not see it) opens the account by accident.
 */

const NO_SUCH_CUSTOMER = "There is no customer with this id.";

/** Where a customer's review stands, as the console shows it beside the decision. */
export interface ComplianceRecord {
  done: boolean;
  amount: string | null;
  date: string | null;
  rejection: {
    at: string;
    by: { id: number; email: string };
    reason: RejectionReason;
    note: string;
  } | null;
}

/** The answers that make a Personal customer wait for the review (DESIGN.md section 3). */
export interface FlagAnswers {
  public: boolean;
  denial: boolean;
  agency: boolean;
  agency_of: string;
}

type ProfileRow = typeof profiles.$inferSelect;

async function profileOf(db: Database, customerId: number): Promise<ProfileRow | undefined> {
  const [row] = await db.select().from(profiles).where(eq(profiles.userId, customerId));
  return row;
}

async function recordOf(db: Database, row: ProfileRow): Promise<ComplianceRecord> {
  let rejection: ComplianceRecord["rejection"] = null;
  if (row.rejectedAt && row.rejectedBy && row.rejectionReason) {
    const [by] = await db.select({ id: users.id, email: users.username }).from(users)
      .where(eq(users.id, row.rejectedBy));
    rejection = { at: row.rejectedAt.toISOString(), by, reason: row.rejectionReason, note: row.rejectionNote ?? "" };
  }
  return { done: row.complianceDone, amount: row.complianceAmount, date: row.complianceDate, rejection };
}

/** The customer's review record; null before they saved a profile. */
export async function complianceRecordOf(db: Database, customerId: number): Promise<ComplianceRecord | null> {
  const row = await profileOf(db, customerId);
  return row ? await recordOf(db, row) : null;
}

/**
 * Why the identity check's approval did not open the account (decision 085): the reason, and the
 * name and date of birth the provider read from the document, for the administrator to compare.
 */
export interface IdentityMismatchNote {
  reason: IdentityMismatch;
  text: string;
  document: { name: string; dob: string } | null;
}

/** The identity mismatch the customer's compliance review was queued with, or null. */
async function identityMismatchOf(db: Database, customerId: number): Promise<IdentityMismatchNote | null> {
  const [alert] = await db.select({ subject: consoleAlerts.subject }).from(consoleAlerts)
    .where(eq(consoleAlerts.dedupeKey, `compliance_review:${customerId}`)).limit(1);
  const reason = alert?.subject.identity_mismatch;
  if (!IDENTITY_MISMATCHES.includes(reason as IdentityMismatch)) return null;
  const document = alert.subject.document as IdentityMismatchNote["document"] | undefined;
  return {
    reason: reason as IdentityMismatch,
    text: IDENTITY_MISMATCH_TEXT[reason as IdentityMismatch],
    document: document ?? null,
  };
}

/**
 * What bears on the review: a Personal customer's flags (null flags for a Business, which is
 * always reviewed), and whether the identity document did not match the profile; null before
 * they saved a profile.
 */
export async function reviewAnswersOf(
  db: Database,
  customerId: number,
): Promise<{ flags: FlagAnswers | null; identity: IdentityMismatchNote | null } | null> {
  const row = await profileOf(db, customerId);
  if (!row) return null;
  const identity = await identityMismatchOf(db, customerId);
  if (row.type !== "Personal") return { flags: null, identity };
  const data = row.data as Partial<PersonalProfile>;
  return {
    identity,
    flags: {
      public: data.public === true,
      denial: data.denial === true,
      agency: data.agency === true,
      agency_of: data.agency === true ? data.agency_of ?? "" : "",
    },
  };
}

/** The rejection's reason as the customer reads it, or null when the customer is not rejected. */
export async function rejectionOf(db: Database, customerId: number): Promise<RejectionReason | null> {
  const row = await profileOf(db, customerId);
  return row?.rejectedAt ? row.rejectionReason : null;
}

async function reviewedCustomer(db: Database, customerId: number) {
  const customer = await findUser(db, customerId);
  if (!customer || customer.level === "Admin") throw new NotFound(NO_SUCH_CUSTOMER);
  return customer;
}

/**
 * Records the compliance review and opens the customer's account (one transaction with its audit
 * entry), then emails them. The customer must have a profile and an approved identity, and no
 * account yet. A rejected customer opens only when the review says it overrides the rejection and
 * is dated on or after it. Answers the customer's summary.
 */
export async function openAccountAfterReview(
  deps: AccountDeps,
  review: { customerId: number; adminId: number; compliance: unknown; overridesRejection?: boolean },
  now: Date,
): Promise<SessionUser> {
  const { db } = deps;
  const customer = await reviewedCustomer(db, review.customerId);
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
  const profile = (await profileOf(db, customer.id))!;
  const before = await recordOf(db, profile);
  if (before.rejection) {
    const day = before.rejection.at.slice(0, 10);
    if (!review.overridesRejection) {
      throw new Conflict(
        `This application was rejected on ${day} (${
          REJECTION_REASON_TEXT[before.rejection.reason].label
        }). To open the account, record a new review that overrides the rejection.`,
      );
    }
    if (!date || date < day) {
      throw new InvalidInput(
        `A review that overrides the rejection of ${day} is dated on or after it.`,
        "compliance.date",
      );
    }
  }
  const account = await db.transaction(async (tx) => {
    await tx.update(profiles).set({
      complianceDone: done,
      complianceAmount: amount ?? null,
      complianceDate: date ?? null,
      rejectedAt: null,
      rejectedBy: null,
      rejectionReason: null,
      rejectionNote: null,
      updatedAt: now,
    }).where(eq(profiles.userId, customer.id));
    const account = await openAccountIn(tx, deps, customer.id, review.adminId, now);
    await audit(tx, {
      actor: review.adminId,
      subject: customer.id,
      account: account.id,
      action: "account.open",
      before,
      after: { done, amount: amount ?? null, date: date ?? null, rejection: null, account_ref: account.accountRef },
    }, now);
    await closeAlert(
      tx,
      `compliance_review:${customer.id}`,
      "Closed by itself: the account opened.",
      review.adminId,
      now,
    );
    return account;
  });
  await account.tell();
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

/**
 * Rejects a waiting customer's application with a reason from lib/compliance.ts (what the customer
 * is told) and a note for the file (never shown to them); audited in the same transaction, then
 * the customer is emailed. Refused once the account is open, or when it was rejected already.
 */
export async function rejectApplication(
  deps: { db: Database; mailer: Mailer; supportEmail: string },
  review: { customerId: number; adminId: number; reason: RejectionReason; note: string },
  now: Date,
): Promise<ComplianceRecord> {
  const { db } = deps;
  const customer = await reviewedCustomer(db, review.customerId);
  const profile = await profileOf(db, customer.id);
  if (!profile) throw new Conflict("The customer has not saved a profile yet: there is nothing to review.");
  if (await ownAccountOf(db, customer.id)) throw new Conflict("This customer's account is already open.");
  const before = await recordOf(db, profile);
  if (before.rejection) throw new Conflict("This application is rejected already.");
  await db.transaction(async (tx) => {
    await tx.update(profiles).set({
      rejectedAt: now,
      rejectedBy: review.adminId,
      rejectionReason: review.reason,
      rejectionNote: review.note,
      updatedAt: now,
    }).where(eq(profiles.userId, customer.id));
    await audit(tx, {
      actor: review.adminId,
      subject: customer.id,
      action: "compliance.reject",
      before,
      after: { ...before, rejection: { at: now.toISOString(), reason: review.reason, note: review.note } },
    }, now);
    await closeAlert(
      tx,
      `compliance_review:${customer.id}`,
      "Closed by itself: the application was rejected.",
      review.adminId,
      now,
    );
  });
  const summary = await summaryOf(db, customer, false);
  await deps.mailer.send({
    to: customer.username,
    userId: customer.id,
    template: "application-rejected",
    rendered: applicationRejected({
      name: summary.name,
      reason: REJECTION_REASON_TEXT[review.reason].customer,
      supportEmail: deps.supportEmail,
    }),
  });
  return (await complianceRecordOf(db, customer.id))!;
}
