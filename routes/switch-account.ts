import type { Context } from "hono";
import type { Database } from "../db/client.ts";
import { may } from "../lib/permissions.ts";
import { RELOADED_PARAM } from "../lib/api-types.ts";
import { accountChoice, customerOf, type Membership, membershipsOf } from "../server/accounts/current.ts";
import { selectAccount } from "../server/accounts/linked.ts";
import type { AppEnv } from "../server/env.ts";
import { flash } from "../server/render/flash.ts";

/**
 * The other of the customer's accounts a record belongs to, when the request may switch to it: an
 * account they belong to with a role that sees it, not the one worked on, for someone following a
 * link (decision 060). `accountOfRecord` reads the record's account (undefined: no such record).
 * Null for any other record, as for one that does not exist; for an administrator acting on behalf,
 * who keeps the account chosen; and for a page fetched ahead (the islands' preload on hover or
 * focus, a browser's prefetch), which is nobody following the link.
 */
export async function otherAccountOf(
  c: Context<AppEnv>,
  accountOfRecord: (db: Database) => Promise<number | undefined>,
): Promise<Membership | null> {
  const customer = customerOf(c);
  if (c.get("onBehalf") || !customer || !c.get("session")) return null;
  if (/prefetch/i.test(c.req.header("Sec-Purpose") ?? c.req.header("Purpose") ?? "")) return null;
  const db = c.get("db");
  const accountId = await accountOfRecord(db);
  if (accountId === undefined || (await accountChoice(c)).current?.accountId === accountId) return null;
  const membership = (await membershipsOf(db, customer.id)).find((m) => m.accountId === accountId);
  return membership && may(membership.role, "account.view") ? membership : null;
}

/**
 * A link to a record of another of the customer's accounts (a payment's approval email, a fired
 * rate alert, opened while they work on their personal account): the session now works on the
 * record's account (`otherAccountOf`), as choosing it on /account-select does, and the page comes
 * back saying so (decision 060). Not on a page an island loaded again because the person switched
 * in another window (RELOADED_PARAM): switching back would undo the choice they just made, so the
 * page shows the account they chose. Answers the redirect, or null to show the page on the account
 * it acts on.
 */
export async function switchToAccountOf(
  c: Context<AppEnv>,
  accountOfRecord: (db: Database) => Promise<number | undefined>,
): Promise<Response | null> {
  if (c.req.query(RELOADED_PARAM) !== undefined) return null;
  const membership = await otherAccountOf(c, accountOfRecord);
  if (!membership) return null;
  await selectAccount(c.get("db"), c.get("session")!, customerOf(c)!.id, membership.accountRef);
  flash(c, { title: `You are now working on ${membership.name}.`, color: "info" });
  // A new request reads the account afresh: this one's header already knows the previous one.
  return c.redirect(c.req.path, 302);
}
