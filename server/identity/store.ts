import { eq } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { identityChecks } from "../../db/schema.ts";
import { alertIdentityCheck } from "../alerts/triggers.ts";
import { queueReviewIfWaiting } from "../accounts/onboarding.ts";
import type { IdentityResult, ProviderName } from "./provider.ts";
import { compareDocument, declaredIdentityOf, documentSummary } from "./document.ts";

/** A transaction on the database. */
export type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];
/** The database, or a transaction on it. */
export type Executor = Database | Transaction;

export type StoredCheck = typeof identityChecks.$inferSelect;

/**
 * Whether a new result may replace the stored check:
 * - "write": nothing stored yet, the stored check is another provider's (its verdict does not hold
 *   for this one), or the result is at least as recent;
 * - "stale": both carry a review time and the new one is older: a late or re-ordered answer;
 * - "keep": a "pending" answer never undoes an approval or a final rejection of the same provider
 *   (a read that raced a webhook, or an applicant that Sumsub shows as re-opened).
 * A "pending" answer may replace "retry": the customer has sent new documents.
 */
export function decide(
  existing: StoredCheck | undefined,
  provider: ProviderName,
  result: IdentityResult,
): "write" | "stale" | "keep" {
  if (!existing || existing.provider !== provider) return "write";
  if (result.status === "pending") {
    return existing.status === "approved" || existing.status === "rejected" ? "keep" : "write";
  }
  if (result.reviewedAt && existing.reviewedAt && result.reviewedAt.getTime() < existing.reviewedAt.getTime()) {
    return "stale";
  }
  return "write";
}

/** The stored check as a result (what the guard and the page read). */
export function toResult(row: StoredCheck): IdentityResult & { provider: ProviderName } {
  return {
    provider: row.provider,
    status: row.status,
    ...(row.moderationComment ? { moderationComment: row.moderationComment } : {}),
    ...(row.reviewedAt ? { reviewedAt: row.reviewedAt } : {}),
    ...(row.applicantId ? { applicantId: row.applicantId } : {}),
  };
}

export async function readStoredCheck(db: Executor, userId: number): Promise<StoredCheck | undefined> {
  const [row] = await db.select().from(identityChecks).where(eq(identityChecks.userId, userId)).limit(1);
  return row;
}

/** The user's stored check, or null when none was ever recorded. */
export async function readStoredResult(
  db: Executor,
  userId: number,
): Promise<(IdentityResult & { provider: ProviderName }) | null> {
  const row = await readStoredCheck(db, userId);
  return row ? toResult(row) : null;
}

/**
 * Writes a result the caller has already decided to write (see `decide`). Within the same provider
 * an answer without a review time or applicant id keeps the stored ones, so that older events
 * stay recognisable as older. A pending answer clears the moderation comment.
 */
export async function writeResult(
  db: Executor,
  userId: number,
  provider: ProviderName,
  result: IdentityResult,
  existing: StoredCheck | undefined,
  now: Date,
): Promise<StoredCheck> {
  const same = existing?.provider === provider ? existing : undefined;
  const values = {
    userId,
    provider,
    status: result.status,
    moderationComment: result.status === "pending" ? null : result.moderationComment ?? null,
    reviewedAt: result.reviewedAt ?? same?.reviewedAt ?? null,
    applicantId: result.applicantId ?? same?.applicantId ?? null,
    updatedAt: now,
  };
  const [row] = await db.insert(identityChecks).values(values).onConflictDoUpdate({
    target: identityChecks.userId,
    set: {
      provider: values.provider,
      status: values.status,
      moderationComment: values.moderationComment,
      reviewedAt: values.reviewedAt,
      applicantId: values.applicantId,
      updatedAt: values.updatedAt,
    },
  }).returning();
  // A failed or retried check needs a person; raised with the result it is about.
  if (row.status === "retry" || row.status === "rejected") {
    await alertIdentityCheck(db, userId, row.status, row.moderationComment, row.reviewedAt, now);
  }
  // The approval is what the compliance review is of: a customer who must wait is queued now, with
  // the answers they gave (decision 071), whichever way the approval arrived (confirm, webhook, sandbox).
  // A document that is not the profile's person, or nothing read to compare, waits for the review
  // too, with the reason for the administrator (decision 085).
  if (row.status === "approved" && existing?.status !== "approved") {
    await queueReviewIfWaiting(db, userId, now, await documentMismatch(db, userId, result));
  }
  return row;
}

/** Whether the approved document is the declared person's; undefined when it is (or nothing was declared). */
async function documentMismatch(db: Executor, userId: number, result: IdentityResult) {
  const declared = await declaredIdentityOf(db, userId);
  if (!declared) return undefined;
  const reason = compareDocument(declared, result.document);
  return reason ? { reason, document: documentSummary(result.document) } : undefined;
}

/**
 * Records what a provider answered for a user (upsert of identity_checks), in one write
 * transaction so that it cannot interleave with a webhook. Returns the check as stored afterwards,
 * which is the old one when the answer was stale or pending over a final verdict.
 */
export async function recordResult(
  db: Database,
  userId: number,
  provider: ProviderName,
  result: IdentityResult,
  now: Date = new Date(),
): Promise<IdentityResult & { provider: ProviderName }> {
  return await db.transaction(async (tx) => {
    const existing = await readStoredCheck(tx, userId);
    if (decide(existing, provider, result) !== "write") return toResult(existing!);
    return toResult(await writeResult(tx, userId, provider, result, existing, now));
  });
}
