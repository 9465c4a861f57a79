import { momentInUtc } from "../moment.ts";

/**
 * Why someone may not approve a payment, as the server answers it in a payment's `actions.note`
 * (server/payments/answer.ts). The pending list says the administrator's once, above the table: it
 * is the same for every payment of the list, and about who reads it, not about the payments.
 */
export const NOT_ON_BEHALF =
  "Administrators acting on behalf of a customer cannot approve or reject their payments: approval is between the customer's own people.";

/**
 * Why an administrator acting on behalf may not change the approval rule: the rule decides which
 * payments wait for the customer's own approvers, so changing it would decide approvals by another
 * way (an issue found by an exploratory check: turn the rule off, pay, turn it back on).
 */
export const RULE_NOT_ON_BEHALF =
  "Administrators acting on behalf of a customer cannot change the approval rule: which payments need approval is for the customer's own owners and admins to decide.";

/**
 * How a waiting payment's note opens once the rate held for it ran out (decision 092), whoever reads
 * it: its page then says the guarantee in the past tense instead of promising it until a time gone by.
 */
export const RATE_EXPIRED_OPENING = "The rate held for this payment expired at ";

/**
 * What an approver is asked of a waiting payment converted on the way (decision 092), in the same
 * words in their notice, their email and on the list of payments waiting, where they decide.
 */
export const approveOrRejectBy = (until: Date): string =>
  `Approve or reject it by ${momentInUtc(until)}, while its rate is guaranteed.`;
