/**
 * A payment's statuses and the events of its timeline (decision 027; PAYMENTS.md "States"), shared
 * by the schema, the calls' contracts and the screens. `draft` is a held payment quote: no payment
 * row is ever stored as a draft.
 */
export const PAYMENT_STATUSES = [
  "draft",
  "pending_approval",
  "approved",
  "submitted",
  "completed",
  "rejected",
  "cancelled",
  "failed",
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Ended without reaching the recipient: no arrival is expected any more. */
export const UNPAID_STATUSES = ["rejected", "cancelled", "failed"] as const satisfies readonly PaymentStatus[];

/** Money is held for these: the payment may still be paid out or released. */
export const OPEN_STATUSES = ["pending_approval", "approved"] as const satisfies readonly PaymentStatus[];

export const PAYMENT_EVENTS = [
  "created",
  "approval_requested",
  "approved",
  "rejected",
  "cancelled",
  "submitted",
  "exported",
  "completed",
  "failed",
] as const;
export type PaymentEvent = (typeof PAYMENT_EVENTS)[number];

/** Each status in the customer's words. */
export const STATUS_NAMES: Readonly<Record<PaymentStatus, string>> = {
  draft: "Draft",
  pending_approval: "Waiting for approval",
  approved: "Approved",
  submitted: "Sent",
  completed: "Arrived",
  rejected: "Rejected",
  cancelled: "Cancelled",
  failed: "Failed",
};

/**
 * Where a payment stands, as the end of a sentence that refuses to act on it ("This payment can no
 * longer be cancelled: it has arrived."): every refusal that names a payment's status says it so.
 */
export const STATUS_SENTENCES: Readonly<Record<PaymentStatus, string>> = {
  draft: "it is only a quote",
  pending_approval: "it is waiting for approval",
  approved: "it has been approved",
  submitted: "it has been sent",
  completed: "it has arrived",
  rejected: "it was rejected",
  cancelled: "it was cancelled",
  failed: "it failed",
};
