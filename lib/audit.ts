/**
 * What the audit log records (server/audit.ts): every change an administrator makes in the console,
 * by an action name, every call an administrator makes while acting on behalf of a customer, and
 * what customers change about who may use their accounts.
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
  "customer.restrict": "Restricted the customer: no money can move",
  "customer.lift": "Lifted the customer's restriction",
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
  "receipt.import": "Imported a bank statement file",
  "account-users.invite": "Invited a user to the account",
  "account-users.revoke": "Withdrew an invitation to the account",
  "account-users.join": "Joined the account by invitation",
  "account-users.role": "Changed an account user's role",
  "account-users.remove": "Removed a user from the account",
  "approval-rule.change": "Changed the account's payment approval rule",
  "payout.submit": "Paid out a payment to send it to its rail",
  "payout.sent": "A rail took a payment",
  "payout.refused": "A rail refused a payment: it failed",
  "payout.complete": "Marked a payment as arrived",
  "payout.fail": "Failed a payment",
  "payout.batch": "Made a SEPA file of payments",
  "admin.invite": "Invited an administrator",
  "admin.disable": "Disabled an administrator",
  "migration.dry-run": "Tried a migration file as a dry run",
  "migration.commit": "Committed a migration file",
  "migration.customer": "Created the customer from a migration file",
  "alert.assign": "Assigned an alert",
  "alert.resolve": "Resolved an alert",
  "alerts.threshold": "Changed the large-payment alert threshold",
  "email.resend": "Sent an email again",
  "email.view": "Read an email",
  "partner.create": "Created a partner",
  "partner.update": "Changed a partner",
  "customer.partner": "Changed the customer's partner",
  "bulk-email.create": "Wrote a bulk email",
  "bulk-email.send": "Sent a bulk email",
  "bulk-email.update": "Corrected a bulk email draft",
  "bulk-email.delete": "Deleted a bulk email draft",
  "bulk-email.send-in-doubt": "Sent a bulk email to its recipients in doubt",
  "marketing.unsubscribe": "Unsubscribed from bulk emails",
} as const;

export type AuditAction = keyof typeof AUDIT_ACTIONS;

export const AUDIT_ACTION_NAMES = Object.keys(AUDIT_ACTIONS) as [AuditAction, ...AuditAction[]];
