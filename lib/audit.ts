/**
 * What the audit log records (server/audit.ts): every change an administrator makes in the console,
 * by an action name, and every call an administrator makes while acting on behalf of a customer.
 * The words are what the console shows in a customer's audit trail. In lib/ because both the
 * server and the islands read them.
 */
export const AUDIT_ACTIONS = {
  "on-behalf.start": "Started acting on behalf",
  "on-behalf.end": "Stopped acting on behalf",
  "on-behalf.call": "Acted on behalf",
  "account.open": "Opened the account after the compliance review",
  "compliance.reject": "Rejected the application",
  "fees.override": "Changed the fee overrides",
  "rates.update": "Changed the rates",
  "pricing-plan.create": "Created a pricing plan",
  "pricing-plan.replace": "Changed a pricing plan",
  "pricing-plan.assign": "Put the account on a pricing plan",
  "receipt.record": "Recorded a receipt",
  "receipt.approve": "Approved a receipt",
  "receipt.decline": "Declined a receipt",
  "receipt.release": "Released a receipt held as a duplicate",
  "receipt.discard": "Discarded a receipt held as a duplicate",
  "receipt.allocate": "Allocated a receipt",
  "receipt.reverse": "Reversed a receipt",
} as const;

export type AuditAction = keyof typeof AUDIT_ACTIONS;

export const AUDIT_ACTION_NAMES = Object.keys(AUDIT_ACTIONS) as [AuditAction, ...AuditAction[]];
