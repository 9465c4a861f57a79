import type { Context } from "hono";
import type { Database } from "../db/client.ts";
import { may } from "../lib/permissions.ts";
import { accountChoice, customerOf, membershipsOf } from "../server/accounts/current.ts";
import { selectAccount } from "../server/accounts/linked.ts";
import type { AppEnv } from "../server/env.ts";
import { flash } from "../server/render/flash.ts";

/**
 * A link to a record of another of the customer's accounts (a payment's approval email, a fired
 * rate alert, opened while they work on their personal account): the session now works on the
 * record's account, as choosing it on /account-select does, and the page comes back saying so
 * (decision 060). `accountOfRecord` reads the account the link's record belongs to (undefined: no
 * such record). Only an account the customer belongs to with a role that sees it; any other record
 * switches nothing, like one that does not exist. An administrator acting on behalf keeps the
 * account chosen. Answers the redirect, or null to show the page on the account it acts on.
 */
export async function switchToAccountOf(
  c: Context<AppEnv>,
  accountOfRecord: (db: Database) => Promise<number | undefined>,
): Promise<Response | null> {
  const customer = customerOf(c);
  const session = c.get("session");
  if (c.get("onBehalf") || !customer || !session) return null;
  // A page fetched ahead (the islands' preload on hover or focus, a browser's prefetch) is nobody
  // following the link: only that may switch, so a fetch ahead shows the account worked on.
  if (/prefetch/i.test(c.req.header("Sec-Purpose") ?? c.req.header("Purpose") ?? "")) return null;
  const db = c.get("db");
  const accountId = await accountOfRecord(db);
  if (accountId === undefined || (await accountChoice(c)).current?.accountId === accountId) return null;
  const membership = (await membershipsOf(db, customer.id)).find((m) => m.accountId === accountId);
  if (!membership || !may(membership.role, "account.view")) return null;
  await selectAccount(db, session, customer.id, membership.accountRef);
  flash(c, { title: `You are now working on ${membership.name}.`, color: "info" });
  // A new request reads the account afresh: this one's header already knows the previous one.
  return c.redirect(c.req.path, 302);
}
