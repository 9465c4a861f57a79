/**
 * Why a compliance review rejected an application, as the customer reads it (on /processing and in
 * the email) and as the reviewer chooses it. The customer is told a reason from this list, never
 * the reviewer's own note: a regulated firm must not tip off a customer about a suspicion it has
 * reported, so the words are fixed, plain and safe to send (docs/decisions/026).
 */
export const REJECTION_REASONS = ["incomplete", "not_verified", "not_eligible", "not_offered"] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];

export const REJECTION_REASON_TEXT: Record<RejectionReason, { label: string; customer: string }> = {
  incomplete: {
    label: "Information missing",
    customer: "Your application was missing information we need, and we could not complete it with you.",
  },
  not_verified: {
    label: "Could not be verified",
    customer: "We could not verify the information or the documents in your application.",
  },
  not_eligible: {
    label: "Outside what we serve",
    customer:
      "What your application describes (where you are, or the kind of business or activity) is outside what we can serve.",
  },
  not_offered: {
    label: "Not offered (no reason given)",
    customer: "After reviewing your application, we are unable to offer you an account.",
  },
};
