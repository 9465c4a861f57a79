/**
 * Why someone may not approve a payment, as the server answers it in a payment's `actions.note`
 * (server/payments/answer.ts). The pending list says the administrator's once, above the table: it
 * is the same for every payment of the list, and about who reads it, not about the payments.
 */
export const NOT_ON_BEHALF =
  "Administrators acting on behalf of a customer cannot approve or reject their payments: approval is between the customer's own people.";
