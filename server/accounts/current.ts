import type { Context } from "hono";
import type { Database } from "../../db/client.ts";
import { rowsOf } from "../../db/sql.ts";
import type { AccountRole } from "../../lib/permissions.ts";
import type { SessionUser } from "../auth/session-user.ts";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../http/api.ts";

/** The customer a request acts for: the signed-in customer, or the one an administrator acts for. */
export function customerOf(c: Context<AppEnv>): SessionUser | null {
  return c.get("onBehalf") ?? c.get("user");
}

/** An account a customer belongs to, with their role there. */
export interface Membership {
  accountId: number;
  accountRef: string;
  name: string;
  type: "Personal" | "Business";
  role: AccountRole;
}

/** Every account of the customer and the one the session chose, in one read (db/sql.ts: every customer call asks). */
const MEMBERSHIPS = `SELECT m.account_id, m.role, a.account_ref, a.name, a.type,
    (SELECT s.current_account_id FROM sessions s WHERE s.id = ?) AS chosen
  FROM account_members m JOIN accounts a ON a.id = m.account_id
  WHERE m.user_id = ? ORDER BY m.account_id`;

interface MembershipRow {
  account_id: number;
  role: AccountRole;
  account_ref: string;
  name: string;
  type: "Personal" | "Business";
  chosen: number | null;
}

export interface AccountChoice {
  /** Every account the customer belongs to, oldest first. */
  memberships: Membership[];
  /**
   * The account this request acts on: the session's choice while the customer still belongs to it,
   * else their only account; null when they have none, or several and none is chosen.
   */
  current: Membership | null;
}

/**
 * Which account a session acts on (decision 028). `sessionId` is the session of whoever is signed
 * in: for an administrator acting on behalf of a customer, the administrator's own session, whose
 * choice counts only if it is one of the customer's accounts.
 */
export async function accountChoiceOf(db: Database, userId: number, sessionId: string | null): Promise<AccountChoice> {
  const rows = await rowsOf<MembershipRow>(db, MEMBERSHIPS, [sessionId, userId]);
  const memberships = rows.map((r) => ({
    accountId: r.account_id,
    accountRef: r.account_ref,
    name: r.name,
    type: r.type,
    role: r.role,
  }));
  const chosen = rows[0]?.chosen ?? null;
  const current = memberships.find((m) => m.accountId === chosen) ??
    (memberships.length === 1 ? memberships[0] : null);
  return { memberships, current };
}

/** Read once per request: the permission check, the layout and the handler all ask. */
const perRequest = new WeakMap<Request, Promise<AccountChoice>>();

/** The request's customer's accounts and the one it acts on; no accounts for a visitor. */
export function accountChoice(c: Context<AppEnv>): Promise<AccountChoice> {
  let found = perRequest.get(c.req.raw);
  if (!found) {
    const customer = customerOf(c);
    found = customer
      ? accountChoiceOf(c.get("db"), customer.id, c.get("session")?.id ?? null)
      : Promise.resolve({ memberships: [], current: null });
    perRequest.set(c.req.raw, found);
  }
  return found;
}

export interface CurrentAccount {
  accountId: number;
  accountRef: string;
  accountName: string;
  accountType: "Personal" | "Business";
  /** The customer's role on this account (an administrator on behalf acts with the customer's). */
  role: AccountRole;
  customer: SessionUser;
  /** How many accounts the customer belongs to (more than one: the header offers to switch). */
  linked: number;
}

/** Where a customer with several accounts and none chosen is sent. */
export const ACCOUNT_SELECT = "/account-select";

/**
 * The account a customer's request works on, with the customer's role there. Guards have already
 * required an account; a customer with several who has not chosen one is sent to /account-select.
 */
export async function currentAccount(c: Context<AppEnv>): Promise<CurrentAccount> {
  const customer = customerOf(c);
  if (!customer) throw new ApiError(401, "Please sign in.", { redirect: "/" });
  const { memberships, current } = await accountChoice(c);
  if (!memberships.length) throw new ApiError(403, "Your account is not open yet.", { redirect: "/processing" });
  if (!current) throw new ApiError(403, "Choose the account to work on.", { redirect: ACCOUNT_SELECT });
  return {
    accountId: current.accountId,
    accountRef: current.accountRef,
    accountName: current.name,
    accountType: current.type,
    role: current.role,
    customer,
    linked: memberships.length,
  };
}
