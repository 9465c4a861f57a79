/**
 * What a restricted customer is told (decision 048): by the 403 of a money-moving call and by the
 * banner and forms of their screens. In lib/ because both the server and the islands show it.
 */
export const RESTRICTED_MESSAGE =
  "Your account is restricted: you can sign in and see everything, but you cannot convert, pay or approve payments until the restriction is lifted. Please contact support.";

/**
 * What someone else on an account whose owner is restricted is told (decision 048, amended): the
 * account's money does not move, by anyone, while its owner is restricted.
 */
export const ACCOUNT_RESTRICTED_MESSAGE =
  "This account is restricted: you can see everything on it, but nobody can convert, pay or approve payments from it until the restriction is lifted. Please contact the account's owner or support.";

/**
 * What the payout desk is told of a restricted customer's payment (decision 048, amended): it is
 * not sent until compliance decides, by lifting the restriction or failing the payment with a reason.
 */
export const RESTRICTED_PAYOUT =
  "The customer is restricted: this payment is not sent. Compliance lifts the restriction on the customer's page, or fails the payment with a reason.";
