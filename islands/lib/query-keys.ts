/**
 * The query keys, one factory per resource, so that a write refreshes exactly what it changed
 * (`invalidates: [balanceKeys.all]` refreshes every account's balances on the page, `balanceKeys.of(ref)`
 * one account's). Every query an island makes is keyed here.
 */

export const balanceKeys = {
  all: ["balances"] as const,
  of: (accountRef: string) => ["balances", accountRef] as const,
};

/** A price as the public calculator asks for it (GET quote). */
export const quoteKeys = {
  all: ["quote"] as const,
  of: (request: { sell: string; buy: string; amount: string; fixed: "sell" | "buy" }) => ["quote", request] as const,
};

export const rateKeys = {
  all: ["rates"] as const,
  of: (base: string) => ["rates", base] as const,
};

export const pricingPlanKeys = {
  all: ["pricing-plans"] as const,
};

export const receiptKeys = {
  all: ["receipts"] as const,
};

/** The console's customer list, by search text ("" for all), filters and page. */
export const customerKeys = {
  all: ["customers"] as const,
  search: (q: string, page = 1, filters: Record<string, string> = {}) => ["customers", { q, page, filters }] as const,
};

/** The customer an administrator acts for (GET account/onbehalf). */
export const onBehalfKeys = {
  current: ["on-behalf"] as const,
};

/**
 * Payments waiting for approval, and a payment's page (whatever its status: it is opened from the
 * pending list). SPEC.md section 4: they are reloaded when on-behalf mode is set or cleared.
 */
export const pendingPaymentKeys = {
  all: ["pending-payments"] as const,
  list: (accountRef: string) => ["pending-payments", accountRef, "all"] as const,
  one: (accountRef: string, id: number) => ["pending-payments", accountRef, id] as const,
};

/** An account's approval rule (GET account/approvals), by account_ref. */
export const approvalRuleKeys = {
  all: ["approval-rule"] as const,
  of: (accountRef: string) => ["approval-rule", accountRef] as const,
};

/** The account's payments, whatever their status. */
export const paymentKeys = {
  all: ["payments"] as const,
  /** A page of the account's payments, of one status ("" for all). */
  list: (accountRef: string, status: string, page: number) =>
    ["payments", accountRef, "list", { status, page }] as const,
};

/** The identity provider's review of the signed-in customer (GET sumsub/confirm). */
export const identityKeys = {
  review: ["identity-review"] as const,
  token: ["identity-token"] as const,
};

/** An account's recipients: pages of the list by search, one recipient, and what a currency and country need. */
export const recipientKeys = {
  all: ["recipients"] as const,
  list: (accountRef: string, search: string, page: number) =>
    ["recipients", accountRef, "list", { search, page }] as const,
  one: (accountRef: string, id: number) => ["recipients", accountRef, "one", id] as const,
  requirements: (currency: string, country: string) => ["recipient-requirements", currency, country] as const,
};

/** The users of an account (GET account/users), by account_ref. */
export const accountUserKeys = {
  all: ["account-users"] as const,
  of: (accountRef: string) => ["account-users", accountRef] as const,
};

/** The invitations waiting on an account (GET account/invitations), by account_ref. */
export const invitationKeys = {
  all: ["invitations"] as const,
  of: (accountRef: string) => ["invitations", accountRef] as const,
};

/** Every account the login belongs to (GET account/linked). */
export const linkedAccountKeys = {
  all: ["linked-accounts"] as const,
};

/** The payout desk: a queue (local or transfer) by its filter, and the SEPA files. */
export const payoutKeys = {
  all: ["payouts"] as const,
  queue: (queue: string, filter: { status: string; currency: string; payment: number | null }) =>
    ["payouts", queue, filter] as const,
  batches: ["payouts", "batches"] as const,
};

/** An account's rate alerts (GET account/ratealerts), by account_ref. */
export const rateAlertKeys = {
  all: ["rate-alerts"] as const,
  of: (accountRef: string) => ["rate-alerts", accountRef] as const,
};

/** The account's statements (GET account/statements) and a background job's status (GET account/jobs/{id}). */
export const statementKeys = {
  all: ["statements"] as const,
  of: (accountRef: string) => ["statements", accountRef] as const,
  job: (accountRef: string, id: number) => ["jobs", accountRef, id] as const,
};

/** The console's administrators (GET console/admins). */
export const administratorKeys = {
  all: ["administrators"] as const,
};
