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

/**
 * Why an approved identity check did not open the account at once (decision 085): what the
 * provider read from the document does not match the profile, or it read nothing to compare. The
 * administrator reads it in the compliance review and decides; the customer is never told which.
 */
export const IDENTITY_MISMATCHES = ["name", "dob", "name_and_dob", "no_document_data"] as const;
export type IdentityMismatch = (typeof IDENTITY_MISMATCHES)[number];

export const IDENTITY_MISMATCH_TEXT: Record<IdentityMismatch, string> = {
  name: "The document's name does not match the profile",
  dob: "The document's date of birth does not match the profile",
  name_and_dob: "The document's name and date of birth do not match the profile",
  no_document_data: "The identity provider read no name or date of birth from the document to compare with the profile",
};
