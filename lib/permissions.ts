/**
 * What each role of an account user may do (DESIGN.md section 4; docs/decisions/027). One table,
 * two uses: the server checks it on every call (server/http/route.ts, a contract's `permission`)
 * and the pages use it to hide what the user may not do.
 */
export const ACCOUNT_ROLES = ["owner", "admin", "payer", "approver", "viewer"] as const;
export type AccountRole = (typeof ACCOUNT_ROLES)[number];

export const PERMISSIONS = {
  /** See balances, payments, recipients, transactions, statements. */
  "account.view": ["owner", "admin", "payer", "approver", "viewer"],
  /** Convert between the account's balances. */
  "money.convert": ["owner", "admin", "payer"],
  /** Add, change and delete recipients. */
  "recipients.manage": ["owner", "admin", "payer"],
  /** Prepare (make) payments; they may need someone else's approval. */
  "payments.prepare": ["owner", "admin", "payer"],
  /** Approve or reject other people's payments. */
  "payments.approve": ["owner", "admin", "approver"],
  /** Set the account's approval rule. */
  "approvals.manage": ["owner", "admin"],
  /** Invite people, change their roles, remove them. */
  "users.manage": ["owner", "admin"],
} as const satisfies Record<string, readonly AccountRole[]>;

export type Permission = keyof typeof PERMISSIONS;

/** Whether a role may do something. */
export function may(role: AccountRole | null | undefined, permission: Permission): boolean {
  return !!role && (PERMISSIONS[permission] as readonly AccountRole[]).includes(role);
}

/** What a role may do, for pages that hide the rest. */
export function permissionsOf(role: AccountRole | null | undefined): Permission[] {
  return (Object.keys(PERMISSIONS) as Permission[]).filter((p) => may(role, p));
}

/** What each role is for, in the words the account users page and the invitation email use. */
export const ROLE_DESCRIPTIONS: Record<AccountRole, string> = {
  owner: "Everything, including making and removing other owners.",
  admin: "Everything except making or removing owners: users, approval rules, payments and conversions.",
  payer: "Prepares payments, converts and manages recipients; payments may need someone else's approval.",
  approver: "Approves or rejects other people's payments.",
  viewer:
    "Sees balances, payments, recipients and transactions; changes nothing, but may withdraw a payment they prepared earlier.",
};
