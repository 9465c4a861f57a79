import { Hono } from "hono";
import type { Context } from "hono";
import * as calls from "../../lib/contracts/recipients.ts";
import { currentAccount } from "../../server/accounts/current.ts";
import type { AppEnv } from "../../server/env.ts";
import { route } from "../../server/http/route.ts";
import { sepaBicAlwaysNeeded } from "../../server/bank-files/debtor.ts";
import { recipientRequirements } from "../../server/recipients/bank-details.ts";
import {
  addRecipient,
  changeRecipient,
  deleteRecipient,
  listRecipients,
  type RecipientActor,
  recipientWithHistory,
} from "../../server/recipients/service.ts";

/** A customer's recipients and the bank details they need (issue 8, DESIGN.md section 4). */

const now = (c: Context<AppEnv>) => new Date(c.get("services").now());

/** What the company's bank asks of recipients: a BIC for every SEPA one when it is outside the EEA (decision 066). */
const requirementOptions = (c: Context<AppEnv>) => ({
  sepaBicAlways: sepaBicAlwaysNeeded(c.get("config").companyBank),
});

/** The current account, and who changes its recipients: its user, and the administrator on their behalf. */
async function actorOf(c: Context<AppEnv>): Promise<{ accountId: number; actor: RecipientActor }> {
  const { accountId, customer } = await currentAccount(c);
  const onBehalfAdminId = c.get("onBehalf") ? c.get("user")!.id : null;
  return { accountId, actor: { userId: customer.id, onBehalfAdminId } };
}

export const recipientCalls = new Hono<AppEnv>();

// Before /account/recipients/:id, which would otherwise take "requirements" for an id.
route(
  recipientCalls,
  calls.getRecipientRequirements,
  (c, { query }) => recipientRequirements(query.currency, query.country, requirementOptions(c)),
);

route(
  recipientCalls,
  calls.listRecipients,
  async (c, { query }) => listRecipients(c.get("db"), (await currentAccount(c)).accountId, query),
);

route(recipientCalls, calls.addRecipient, async (c, { body }) => {
  const { accountId, actor } = await actorOf(c);
  return await addRecipient(c.get("db"), accountId, actor, body, now(c), requirementOptions(c));
});

route(
  recipientCalls,
  calls.getRecipient,
  async (c, { params }) => recipientWithHistory(c.get("db"), (await currentAccount(c)).accountId, params.id),
);

route(recipientCalls, calls.changeRecipient, async (c, { params, body }) => {
  const { accountId, actor } = await actorOf(c);
  return await changeRecipient(c.get("db"), accountId, actor, params.id, body, now(c), requirementOptions(c));
});

route(recipientCalls, calls.deleteRecipient, async (c, { params }) => {
  const { accountId, actor } = await actorOf(c);
  return await deleteRecipient(c.get("db"), accountId, actor, params.id, now(c));
});
