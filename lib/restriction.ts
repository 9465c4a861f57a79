/**
 * What a restricted customer is told (decision 048): by the 403 of a money-moving call and by the
 * banner and forms of their screens. In lib/ because both the server and the islands show it.
 */
export const RESTRICTED_MESSAGE =
  "Your account is restricted: you can sign in and see everything, but you cannot convert, pay or approve payments until the restriction is lifted. Please contact support.";
