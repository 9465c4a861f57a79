import type { Context } from "hono";
import { rowOf } from "../../db/sql.ts";
import type { AccountRole } from "../../lib/permissions.ts";
import type { SessionUser } from "../auth/session-user.ts";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../http/api.ts";

// Every customer call reads it: fixed SQL, one row (db/sql.ts).
const FIRST_ACCOUNT = "SELECT account_id, role FROM account_members WHERE user_id = ? ORDER BY account_id LIMIT 1";

/** The customer a request acts for: the signed-in customer, or the one an administrator acts for. */
export function customerOf(c: Context<AppEnv>): SessionUser | null {
  return c.get("onBehalf") ?? c.get("user");
}

export interface CurrentAccount {
  accountId: number;
  customer: SessionUser;
  /** The customer's role on this account (an administrator on behalf acts with the customer's). */
  role: AccountRole;
}

/** Read once per request: the permission check and the handler both ask. */
const perRequest = new WeakMap<Request, Promise<CurrentAccount>>();

/**
 * The account a customer's request works on, with the customer's role there. Guards have already
 * required an open account; a user who belongs to several accounts works on their first until
 * account selection arrives.
 */
export function currentAccount(c: Context<AppEnv>): Promise<CurrentAccount> {
  let found = perRequest.get(c.req.raw);
  if (!found) {
    found = readCurrentAccount(c);
    perRequest.set(c.req.raw, found);
  }
  return found;
}

async function readCurrentAccount(c: Context<AppEnv>): Promise<CurrentAccount> {
  const customer = customerOf(c);
  if (!customer) throw new ApiError(401, "Please sign in.", { redirect: "/" });
  const member = await rowOf<{ account_id: number; role: AccountRole }>(c.get("db"), FIRST_ACCOUNT, [customer.id]);
  if (!member) throw new ApiError(403, "Your account is not open yet.", { redirect: "/processing" });
  return { accountId: member.account_id, customer, role: member.role };
}
