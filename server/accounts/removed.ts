import type { Database } from "../../db/client.ts";
import { rowOf } from "../../db/sql.ts";
import { ApiError } from "../http/api.ts";

/**
 * Someone who belongs to no account because they were removed from the account they were in (an
 * owner or admin of it took them off: the audit log's 'account-users.remove' names them). Nobody
 * reviews anything for them, so /processing ("We are reviewing your application") would be untrue.
 * Not so while their own application waits for a compliance review (its alert is open) or was
 * rejected: /processing says what those are about. Read only for a customer with no account.
 */
const REMOVED = `SELECT (SELECT a.name FROM audit_log l JOIN accounts a ON a.id = l.account_id
    WHERE l.action = 'account-users.remove' AND json_extract(l.before, '$.user_id') = ?
    ORDER BY l.id DESC LIMIT 1) AS account_name
  WHERE NOT EXISTS (SELECT 1 FROM account_members m WHERE m.user_id = ?)
    AND NOT EXISTS (SELECT 1 FROM profiles p WHERE p.user_id = ? AND p.rejected_at IS NOT NULL)
    AND NOT EXISTS (SELECT 1 FROM console_alerts c WHERE c.dedupe_key = ? AND c.resolved_at IS NULL)`;
// The audit log is read last, only when the cheap checks by key leave nothing else to say.

/** The account the customer was last removed from, when that is why they have none; else null. */
export async function removedFromEveryAccount(db: Database, userId: number): Promise<{ accountName: string } | null> {
  const row = await rowOf<{ account_name: string | null }>(db, REMOVED, [
    userId,
    userId,
    userId,
    `compliance_review:${userId}`,
  ]);
  return row?.account_name ? { accountName: row.account_name } : null;
}

/**
 * The account of this reference when the customer was removed from it (an owner or admin took them
 * off: the audit log names them) and is not on it again. Read only when a page's account is not the
 * session's: an account they never belonged to is not named to them.
 */
const REMOVED_FROM = `SELECT a.name FROM accounts a
  WHERE a.account_ref = ?
    AND NOT EXISTS (SELECT 1 FROM account_members m WHERE m.account_id = a.id AND m.user_id = ?)
    AND EXISTS (SELECT 1 FROM audit_log l WHERE l.account_id = a.id AND l.action = 'account-users.remove'
      AND json_extract(l.before, '$.user_id') = ?)`;

/** The name of the account of `accountRef` when the customer was removed from it; else null. */
export async function removedFrom(db: Database, userId: number, accountRef: string): Promise<string | null> {
  const row = await rowOf<{ name: string }>(db, REMOVED_FROM, [accountRef, userId, userId]);
  return row?.name ?? null;
}

/** What tells a customer they were removed from the account `name` (`ref`), on a call or a page (without its full stop). */
export const noLongerUser = (name: string, ref: string) =>
  `You are no longer a user of ${name} (${ref}): an owner or admin removed you`;

/** The page that tells a removed customer so (routes/pages.tsx). */
export const NO_ACCOUNT_PAGE = "/no-account";

/** What a call answers someone removed from every account, where it would say "not yet". */
export const NO_LONGER_MEMBER = "You no longer belong to any account: an owner or admin removed you.";

/**
 * Where a customer sent to /processing (no account yet) goes instead: /no-account when they were
 * removed from every account, as nobody reviews anything for them. The one rule for pages, /auth
 * and the home page's next step.
 */
export async function insteadOfProcessing(db: Database, userId: number, to: string): Promise<string> {
  if (to !== "/processing") return to;
  return (await removedFromEveryAccount(db, userId)) ? NO_ACCOUNT_PAGE : to;
}

/** The same rule for a call, which would say "not yet": refused, pointing to /no-account. */
export async function refuseIfRemoved(db: Database, userId: number): Promise<void> {
  if (await removedFromEveryAccount(db, userId)) {
    throw new ApiError(403, NO_LONGER_MEMBER, { redirect: NO_ACCOUNT_PAGE });
  }
}
