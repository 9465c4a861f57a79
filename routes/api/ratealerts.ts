import { type Context, Hono } from "hono";
import * as calls from "../../lib/contracts/ratealerts.ts";
import { currentAccount } from "../../server/accounts/current.ts";
import type { AppEnv } from "../../server/env.ts";
import { route } from "../../server/http/route.ts";
import { changeRateAlert, createRateAlert, deleteRateAlert, listRateAlerts } from "../../server/ratealerts/service.ts";

/** A customer's rate alerts (issue 10 part 3, DESIGN.md section 4, decision 038). */

const now = (c: Context<AppEnv>) => new Date(c.get("services").now());

export const rateAlertCalls = new Hono<AppEnv>();

route(
  rateAlertCalls,
  calls.listRateAlerts,
  async (c) => await listRateAlerts(c.get("db"), (await currentAccount(c)).accountId),
);

route(rateAlertCalls, calls.createRateAlert, async (c, { body }) => {
  // The customer sets it (an administrator acting for them too): the customer is told when it fires.
  const { accountId, customer } = await currentAccount(c);
  return await createRateAlert(c.get("db"), accountId, customer.id, body, now(c));
});

route(
  rateAlertCalls,
  calls.changeRateAlert,
  async (c, { params, body }) =>
    await changeRateAlert(c.get("db"), (await currentAccount(c)).accountId, params.id, body.paused),
);

route(
  rateAlertCalls,
  calls.deleteRateAlert,
  async (c, { params }) => await deleteRateAlert(c.get("db"), (await currentAccount(c)).accountId, params.id),
);
