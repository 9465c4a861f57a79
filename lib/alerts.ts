/**
 * Console alerts: what the portal raises for an administrator's attention (issue 11 builds the
 * alerts screen on them). Shared by the server and the islands, so free of server-only imports.
 */

/**
 * What an alert is about:
 * - rate_change: a rate moved by more than RATE_CONFIRM_SHARE (an administrator confirmed it, or the
 *   ECB feed brought it and it is held), or the feed sent rates that cannot be right;
 * - large_payment: a payment above the amount that needs a second look;
 * - identity_check: an identity check that needs a person (a provider's warning, a retry);
 * - unmatched_receipt: money received that matched no account;
 * - receipt_approval: a receipt above the approval amount (or taking its account's day past it),
 *   waiting for a second administrator;
 * - duplicate_receipt: a receipt held as a likely duplicate of an earlier one;
 * - payout_failed: a payout the rail gave back;
 * - compliance_review: a customer waiting for a compliance decision.
 */
export const ALERT_KINDS = [
  "rate_change",
  "large_payment",
  "identity_check",
  "unmatched_receipt",
  "receipt_approval",
  "duplicate_receipt",
  "payout_failed",
  "compliance_review",
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** info: for the record; warning: a person should look today; critical: a person should look now. */
export const ALERT_SEVERITIES = ["info", "warning", "critical"] as const;
export type AlertSeverity = (typeof ALERT_SEVERITIES)[number];

/** What the alerts screen calls each kind. */
export const ALERT_KIND_NAMES: Record<AlertKind, string> = {
  rate_change: "Rate change",
  large_payment: "Large payment",
  identity_check: "Identity check",
  unmatched_receipt: "Unmatched receipt",
  receipt_approval: "Receipt to approve",
  duplicate_receipt: "Likely duplicate receipt",
  payout_failed: "Failed payout",
  compliance_review: "Compliance review",
};

/** Why the administrator whose action raised an alert may not resolve it (the screen says it instead of offering Resolve). */
export const RAISED_BY_YOU = "Your own action raised this alert: another administrator resolves it.";
