import type { Context } from "hono";
import type { Database } from "../../db/client.ts";
import { rowOf } from "../../db/sql.ts";
import type { SessionUser } from "../auth/session-user.ts";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../http/api.ts";

// Every customer call reads it: fixed SQL, one row (db/sql.ts).
const FIRST_ACCOUNT = "SELECT account_id FROM account_members WHERE user_id = ? ORDER BY account_id LIMIT 1";

/** The customer a request acts for: the signed-in customer, or the one an administrator acts for. */
export function customerOf(c: Context<AppEnv>): SessionUser | null {
  return c.get("onBehalf") ?? c.get("user");
}

/**
 * The account a customer works on, or null before it opens: a user who belongs to several
 * accounts works on their first until account selection arrives.
 */
export async function accountOf(db: Database, userId: number): Promise<number | null> {
  return (await rowOf<{ account_id: number }>(db, FIRST_ACCOUNT, [userId]))?.account_id ?? null;
}

/** The account a customer's request works on (the guards have already required an open one). */
export async function currentAccount(c: Context<AppEnv>): Promise<{ accountId: number; customer: SessionUser }> {
  const customer = customerOf(c);
  if (!customer) throw new ApiError(401, "Please sign in.", { redirect: "/" });
  const accountId = await accountOf(c.get("db"), customer.id);
  if (accountId === null) throw new ApiError(403, "Your account is not open yet.", { redirect: "/processing" });
  return { accountId, customer };
}
