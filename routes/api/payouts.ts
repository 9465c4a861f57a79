import { type Context, Hono } from "hono";
import * as calls from "../../lib/contracts/payouts.ts";
import { sepaDebtorFromSettings } from "../../server/bank-files/debtor.ts";
import type { AppEnv } from "../../server/env.ts";
import { route } from "../../server/http/route.ts";
import { batchFile, createSepaBatch, listBatches } from "../../server/payouts/batches.ts";
import { completePayout, type DeskOutcome, failPayout, submitPayout } from "../../server/payouts/desk.ts";
import { deskQueue, payoutById } from "../../server/payouts/queue.ts";
import { SimulatedRail } from "../../server/payouts/simulated-rail.ts";

/** The payout desk's calls (docs/API.md "Payout desk"; decision 031). Administrators only. */

const now = (c: Context<AppEnv>) => new Date(c.get("services").now());
/** The administrator making the call: the guards let nobody else through. */
const administrator = (c: Context<AppEnv>) => c.get("user")!.id;

/** The change notified the customer: the email goes out soon, off this request. */
async function answer(c: Context<AppEnv>, outcome: DeskOutcome) {
  c.get("services").emailOutbox.kick();
  return { payment: await payoutById(c.get("db"), outcome.payment.id), refused: outcome.refused };
}

export const payoutCalls = new Hono<AppEnv>();

route(
  payoutCalls,
  calls.listPayouts,
  async (c, { query }) =>
    await deskQueue(c.get("db"), { queue: query.rail, status: query.status, currency: query.currency }, now(c)),
);

route(payoutCalls, calls.submitPayout, async (c, { params, body }) => {
  const rail = new SimulatedRail(body.simulate_refusal ? new Map([[params.id, body.simulate_refusal]]) : undefined);
  const outcome = await submitPayout(c.get("db"), rail, {
    paymentId: params.id,
    adminId: administrator(c),
    now: now(c),
  });
  return await answer(c, outcome);
});

route(
  payoutCalls,
  calls.completePayout,
  async (c, { params }) =>
    await answer(
      c,
      await completePayout(c.get("db"), { paymentId: params.id, adminId: administrator(c), now: now(c) }),
    ),
);

route(payoutCalls, calls.failPayout, async (c, { params, body }) =>
  await answer(
    c,
    await failPayout(c.get("db"), {
      paymentId: params.id,
      adminId: administrator(c),
      now: now(c),
      reason: body.reason,
    }),
  ));

route(payoutCalls, calls.createPayoutBatch, async (c, _input, answer) => {
  const config = c.get("config");
  const batch = await createSepaBatch(c.get("db"), {
    adminId: administrator(c),
    debtor: sepaDebtorFromSettings(config.companyBank, config.appEnv),
    now: now(c),
    onMade: (tx, made) => answer.storeWith(tx, made),
  });
  c.get("services").emailOutbox.kick();
  return batch;
});

route(payoutCalls, calls.listPayoutBatches, async (c) => await listBatches(c.get("db")));

route(payoutCalls, calls.payoutBatchFile, async (c, { params }) => {
  const file = await batchFile(c.get("db"), params.id);
  return c.body(file.xml, 200, {
    "Content-Type": "application/xml; charset=utf-8",
    "Content-Disposition": `attachment; filename="${file.name}"`,
    "Cache-Control": "no-store",
  });
});
