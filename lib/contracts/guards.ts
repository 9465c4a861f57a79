/**
 * The named guards of SPEC.md section 6. The names are shared so that a call's contract can say
 * who may make it; what each guard checks is the server's (server/guards.ts).
 */
export const GUARD_NAMES = [
  "loggedin",
  "is-verified",
  "is-not-verified",
  "secondfactor",
  "has-profile",
  "has-no-profile",
  "identity-checked",
  "has-account",
  "is-admin",
  "is-user",
  "is-business",
  "is-personal",
] as const;

export type GuardName = typeof GUARD_NAMES[number];

/** The order /auth checks, from SPEC.md section 2. */
export const AUTH_ORDER = [
  "loggedin",
  "is-verified",
  "secondfactor",
  "has-profile",
  "identity-checked",
  "has-account",
] as const satisfies readonly GuardName[];

/**
 * Every guard a customer screen or call needs, in the order /auth checks them, with is-user before
 * the customer's steps: an administrator gets there only when acting on behalf of a customer.
 */
export const CUSTOMER_GUARDS = [
  "loggedin",
  "is-verified",
  "secondfactor",
  "is-user",
  "has-profile",
  "identity-checked",
  "has-account",
] as const satisfies readonly GuardName[];

/** Every console page and call: an administrator who passed the second factor. */
export const CONSOLE_GUARDS = ["is-admin", "secondfactor"] as const satisfies readonly GuardName[];
