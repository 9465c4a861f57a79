import { type Context, Hono } from "hono";
import * as calls from "../../lib/contracts/console-money.ts";
import type { AppEnv } from "../../server/env.ts";
import { route } from "../../server/http/route.ts";
import { setFeeOverrides } from "../../server/money/fee-overrides.ts";
import { assignPlan, createPlan, listPlans, replacePlan } from "../../server/money/plans.ts";
import { allocate, listReceipts, recordReceipt } from "../../server/money/receipts.ts";
import { updateRates } from "../../server/money/store.ts";

/** Administrators' money calls: rates, pricing plans, fee overrides, receipts (DESIGN.md sections 4, 5). */

const now = (c: Context<AppEnv>) => new Date(c.get("services").now());
/** The administrator making the call: the guards let nobody else through. */
const administrator = (c: Context<AppEnv>) => c.get("user")!.id;

export const consoleMoney = new Hono<AppEnv>();

route(
  consoleMoney,
  calls.updateRates,
  async (c, { body }) => await updateRates(c.get("db"), body, administrator(c), now(c)),
);

route(consoleMoney, calls.listPricingPlans, async (c) => await listPlans(c.get("db")));

route(consoleMoney, calls.createPricingPlan, async (c, { body }) => await createPlan(c.get("db"), body, now(c)));

route(consoleMoney, calls.changePricingPlan, async (c, { params, body }) => {
  if ("assign_account_ref" in body) {
    return await assignPlan(c.get("db"), params.id, body.assign_account_ref, administrator(c), now(c));
  }
  return await replacePlan(c.get("db"), params.id, body, now(c));
});

route(
  consoleMoney,
  calls.setFeeOverrides,
  async (c, { params, body }) => await setFeeOverrides(c.get("db"), params.id, body, administrator(c), now(c)),
);

route(
  consoleMoney,
  calls.recordReceipt,
  async (c, { body }) => await recordReceipt(c.get("db"), c.get("services").mailer, body, administrator(c), now(c)),
);

route(consoleMoney, calls.listReceipts, async (c, { query }) => await listReceipts(c.get("db"), query.status));

route(
  consoleMoney,
  calls.allocateReceipt,
  async (c, { params, body }) =>
    await allocate(c.get("db"), c.get("services").mailer, params.id, body.account_ref, administrator(c)),
);
