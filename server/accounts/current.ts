import type { Context } from "hono";
import type { Database } from "../../db/client.ts";
import { asc, eq } from "drizzle-orm";
import { accountMembers, accounts } from "../../db/schema.ts";
import { rowOf } from "../../db/sql.ts";
import type { AccountRole } from "../../lib/permissions.ts";
import type { SessionUser } from "../auth/session-user.ts";
import type { AppEnv } from "../env.ts";
import { ACCOUNT_HEADER, ACCOUNT_PARAM } from "../../lib/api-types.ts";
import { ApiError, isApi } from "../http/api.ts";
import { noLongerUser, refuseIfRemoved, removedFrom } from "./removed.ts";

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
  /**
   * An owner of the account is restricted (decision 048, amended): its money does not move, by
   * anyone on it. Read with the account a request acts on; not by the list of memberships.
   */
  ownerRestricted?: boolean;
}

/**
 * The account a session acts on, in one row (db/sql.ts: every customer call reads it): the session's
 * choice first when the customer belongs to it, else their first account, with how many they have.
 */
const CURRENT_ACCOUNT = `SELECT m.account_id, m.role, a.account_ref, a.name, a.type, s.current_account_id AS chosen,
    (SELECT count(*) FROM account_members c WHERE c.user_id = m.user_id) AS linked,
    EXISTS (SELECT 1 FROM account_members o JOIN users u ON u.id = o.user_id
      WHERE o.account_id = m.account_id AND o.role = 'owner' AND u.restricted = 1) AS owner_restricted
  FROM account_members m JOIN accounts a ON a.id = m.account_id LEFT JOIN sessions s ON s.id = ?
  WHERE m.user_id = ? ORDER BY m.account_id = s.current_account_id DESC, m.account_id LIMIT 1`;

interface CurrentAccountRow {
  account_id: number;
  role: AccountRole;
  account_ref: string;
  name: string;
  type: "Personal" | "Business";
  chosen: number | null;
  linked: number;
  owner_restricted: number;
}

export interface AccountChoice {
  /**
   * The account this request acts on: the session's choice while the customer still belongs to it,
   * else their only account; null when they have none, or several and none is chosen.
   */
  current: Membership | null;
  /** How many accounts the customer belongs to. */
  linked: number;
}

/**
 * Which account a session acts on (decision 028). `sessionId` is the session of whoever is signed
 * in: for an administrator acting on behalf of a customer, the administrator's own session, whose
 * choice counts only if it is one of the customer's accounts.
 */
export async function accountChoiceOf(db: Database, userId: number, sessionId: string | null): Promise<AccountChoice> {
  const row = await rowOf<CurrentAccountRow>(db, CURRENT_ACCOUNT, [sessionId, userId]);
  if (!row) return { current: null, linked: 0 };
  const membership: Membership = {
    accountId: row.account_id,
    accountRef: row.account_ref,
    name: row.name,
    type: row.type,
    role: row.role,
    ownerRestricted: Boolean(row.owner_restricted),
  };
  const linked = Number(row.linked);
  return { current: row.account_id === row.chosen || linked === 1 ? membership : null, linked };
}

/** Every account a customer belongs to, in the order they opened. */
export async function membershipsOf(db: Database, userId: number): Promise<Membership[]> {
  return await db.select({
    accountId: accounts.id,
    accountRef: accounts.accountRef,
    name: accounts.name,
    type: accounts.type,
    role: accountMembers.role,
  }).from(accountMembers).innerJoin(accounts, eq(accounts.id, accountMembers.accountId))
    .where(eq(accountMembers.userId, userId)).orderBy(asc(accounts.id));
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
      : Promise.resolve({ current: null, linked: 0 });
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
  const { current, linked } = await accountChoice(c);
  if (!linked) {
    await refuseIfRemoved(c.get("db"), customer.id);
    throw new ApiError(403, "Your account is not open yet.", { redirect: "/processing" });
  }
  if (!current) throw new ApiError(403, "Choose the account to work on.", { redirect: ACCOUNT_SELECT });
  // The page this call comes from shows another account: the person switched in another window.
  // Acting here would move the money of an account this page does not name. A download link names
  // the page's account in its address instead (decision 075): a file of another account would be
  // saved from a page about this one. A page's own address is not a call's: it is not read there.
  // Or the person was removed from the page's account and the session fell back to the one left:
  // they switched nothing, so the refusal says they lost that account (the same account_changed:
  // the page is loaded again for the session's account).
  const shown = [c.req.header(ACCOUNT_HEADER), isApi(c) ? c.req.query(ACCOUNT_PARAM) : undefined];
  const other = shown.find((ref) => ref && ref !== current.accountRef);
  if (other) {
    const lost = await removedFrom(c.get("db"), customer.id, other);
    throw new ApiError(
      409,
      lost
        ? `${noLongerUser(lost, other)}, so nothing was done ` +
          `here. The page has been loaded again for ${current.name} (${current.accountRef}).`
        : `You switched to ${current.name} (${current.accountRef}) in another window, so nothing was done here: ` +
          "the page has been loaded again.",
      { code: "account_changed" },
    );
  }
  return {
    accountId: current.accountId,
    accountRef: current.accountRef,
    accountName: current.name,
    accountType: current.type,
    role: current.role,
    customer,
    linked,
  };
}
