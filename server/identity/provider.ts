import type { DeclaredIdentity, DocumentDetails } from "./document.ts";

/**
 * The identity-check provider layer: what Sumsub and the built-in sandbox both offer, and how a
 * Sumsub review (from the API or a webhook) becomes the portal's check status.
 */

export type IdentityStatus = "pending" | "approved" | "retry" | "rejected";
export type ProviderName = "sumsub" | "sandbox";

/** What the provider has decided about a user, as the portal keeps it (`identity_checks`). */
export interface IdentityResult {
  status: IdentityStatus;
  /** For the customer: why a RETRY or FINAL rejection happened (Sumsub's moderationComment). */
  moderationComment?: string;
  /** When the review that gave this status was made. */
  reviewedAt?: Date;
  /** Sumsub's applicant id (the sandbox has none). */
  applicantId?: string;
  /**
   * What the provider read from the document, compared with the profile when the check approves
   * (decision 085); never stored.
   */
  document?: DocumentDetails;
}

/** What the identity page needs to start a check. */
export type StartedCheck = { kind: "sumsub"; accessToken: string } | { kind: "sandbox" };

export interface IdentityProvider {
  readonly name: ProviderName;
  /**
   * Prepares the page: gives Sumsub the person's declared identity (its applicant's fixedInfo) and
   * answers a WebSDK access token; nothing for the sandbox, which reads the profile itself.
   */
  startCheck(user: { id: number; username: string; declared: DeclaredIdentity }): Promise<StartedCheck>;
  /** Asks the provider for the user's current result ("pending" while there is none). */
  readResult(userId: number): Promise<IdentityResult>;
}

/** Sumsub's `reviewResult` (applicant data `review.reviewResult`, and the applicantReviewed webhook). */
export interface SumsubReviewResult {
  /** GREEN (approved) or RED (rejected); kept as a string, since it comes from outside. */
  reviewAnswer?: string;
  /** With RED: RETRY (the applicant may try again) or FINAL. */
  reviewRejectType?: string;
  /** Meant for the customer. */
  moderationComment?: string;
  /** Meant for the company only: never shown to the customer. */
  clientComment?: string;
  rejectLabels?: string[];
}

/** The parts of a Sumsub review that decide the status (applicant data `review`, or a webhook body). */
export interface SumsubReview {
  /** init | pending | prechecked | queued | completed | onHold; only "completed" carries a verdict. */
  reviewStatus?: string;
  reviewResult?: SumsubReviewResult;
  /** Applicant data: when the review was completed, e.g. "2020-06-24 05:11:02+0000" (UTC). */
  reviewDate?: string;
}

/**
 * Sumsub's review → the portal's result.
 * - no review, or reviewStatus other than "completed", or no answer yet → pending;
 * - GREEN → approved;
 * - RED + FINAL → rejected, with the moderation comment;
 * - RED + RETRY → retry, with the moderation comment. A RED whose reject type is missing or unknown
 *   is treated as RETRY: never an approval, and the user is not locked out on a field we do not
 *   understand (Sumsub itself refuses a new attempt when the rejection really is final).
 * clientComment is deliberately never copied: Sumsub says it must not reach the customer.
 */
export function reviewToResult(review: SumsubReview | null | undefined): IdentityResult {
  const reviewedAt = parseSumsubDate(review?.reviewDate);
  const answer = review?.reviewResult?.reviewAnswer;
  if (!review || review.reviewStatus !== "completed" || (answer !== "GREEN" && answer !== "RED")) {
    return { status: "pending" };
  }
  if (answer === "GREEN") return withDate({ status: "approved" }, reviewedAt);
  const comment = review.reviewResult?.moderationComment?.trim();
  const status = review.reviewResult?.reviewRejectType === "FINAL" ? "rejected" : "retry";
  return withDate({ status, ...(comment ? { moderationComment: comment } : {}) }, reviewedAt);
}

function withDate(result: IdentityResult, reviewedAt: Date | undefined): IdentityResult {
  return reviewedAt ? { ...result, reviewedAt } : result;
}

const SUMSUB_DATE = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)\s*(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * Reads the dates Sumsub sends: "2020-02-21 13:23:19.321" (webhook createdAtMs, UTC),
 * "2020-06-24 05:11:02+0000" (applicant data), ISO 8601, or milliseconds since the epoch.
 * A time without a zone is UTC. Anything else → undefined.
 */
export function parseSumsubDate(value: unknown): Date | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? new Date(value) : undefined;
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  if (/^\d{10,}$/.test(text)) return new Date(Number(text));
  const m = SUMSUB_DATE.exec(text);
  if (!m) return undefined;
  let zone = m[3] ?? "Z";
  if (zone !== "Z" && !zone.includes(":")) zone = `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const date = new Date(`${m[1]}T${m[2]}${zone}`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * The externalUserId the portal gives Sumsub for a user: "portal-" + the numeric user id. The
 * prefix keeps our ids apart from anything else in the same Sumsub account and lets a webhook be
 * mapped back without a lookup table. Consequence: a database that is reset and reuses user ids
 * must not share a Sumsub environment with the old one.
 */
export function externalUserIdFor(userId: number): string {
  return `portal-${userId}`;
}

/** The user id behind an externalUserId of ours, or null when it is not one of ours. */
export function userIdFromExternal(externalUserId: unknown): number | null {
  if (typeof externalUserId !== "string") return null;
  const m = /^portal-([1-9]\d{0,15})$/.exec(externalUserId);
  if (!m) return null;
  const id = Number(m[1]);
  return Number.isSafeInteger(id) ? id : null;
}
