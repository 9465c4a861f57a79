import { type Context, Hono } from "hono";
import type { Database } from "../../db/client.ts";
import type { Tx } from "../../db/sql.ts";
import type { AnswerOf } from "../../lib/contracts/define.ts";
import * as calls from "../../lib/contracts/payouts.ts";
import { sepaDebtorFromSettings } from "../../server/bank-files/debtor.ts";
import { companyBankDetails } from "../../server/money/funding.ts";
import type { AppEnv } from "../../server/env.ts";
import { type AnswerWithEffect, route } from "../../server/http/route.ts";
import { consolePage } from "../../server/http/download.ts";
import { batchFile, createSepaBatch, listBatches } from "../../server/payouts/batches.ts";
import {
  type Alongside,
  completePayout,
  type DeskOutcome,
  failPayout,
  submitPayout,
} from "../../server/payouts/desk.ts";
import { deskQueue, payoutById } from "../../server/payouts/queue.ts";
import { SimulatedRail } from "../../server/payouts/simulated-rail.ts";

/** The payout desk's calls (docs/API.md "Payout desk"; decision 031). Administrators only. */

const now = (c: Context<AppEnv>) => new Date(c.get("services").now());
/** The administrator making the call: the guards let nobody else through. */
const administrator = (c: Context<AppEnv>) => c.get("user")!.id;

/** The company's account SEPA files pay from: whether a SEPA payment without a BIC can go in one. */
const debtorIban = (c: Context<AppEnv>) => companyBankDetails(c.get("config").companyBank).iban;

/** The desk's answer about a payment, as the contract has it. */
const outcomeAnswer = async (db: Database | Tx, outcome: DeskOutcome, iban: string) => ({
  payment: await payoutById(db, outcome.payment.id, iban),
  refused: outcome.refused,
});

/** The answer, stored under the request's Idempotency-Key with the change (decision 025). */
const storedWith =
  (c: Context<AppEnv>, answer: AnswerWithEffect<AnswerOf<typeof calls.submitPayout>>): Alongside =>
  async (tx, outcome) => await answer.storeWith(tx, await outcomeAnswer(tx, outcome, debtorIban(c)));

/** The change notified the customer: the email goes out soon, off this request. */
async function answer(c: Context<AppEnv>, outcome: DeskOutcome) {
  c.get("services").emailOutbox.kick();
  return await outcomeAnswer(c.get("db"), outcome, debtorIban(c));
}

export const payoutCalls = new Hono<AppEnv>();

route(
  payoutCalls,
  calls.listPayouts,
  async (c, { query }) =>
    await deskQueue(
      c.get("db"),
      {
        queue: query.rail,
        status: query.status,
        currency: query.currency,
        payment: query.payment,
        returned: query.returned,
      },
      now(c),
      debtorIban(c),
    ),
);

route(payoutCalls, calls.submitPayout, async (c, { params, body }, stored) => {
  const rail = new SimulatedRail(body.simulate_refusal ? new Map([[params.id, body.simulate_refusal]]) : undefined);
  const outcome = await submitPayout(
    c.get("db"),
    rail,
    {
      paymentId: params.id,
      adminId: administrator(c),
      now: now(c),
    },
    storedWith(c, stored),
    debtorIban(c),
  );
  return await answer(c, outcome);
});

/**
 * Completing and failing a payout are one transaction each, which stores their answer: their key is
 * claimed there too (decision 053), so a crash before the commit leaves no claim "in progress" that
 * would refuse the administrator's retry for a minute.
 */
const WITH_EFFECT = { claimsKeyWithEffect: true };

route(
  payoutCalls,
  calls.completePayout,
  async (c, { params }, stored) =>
    await answer(
      c,
      await completePayout(
        c.get("db"),
        { paymentId: params.id, adminId: administrator(c), now: now(c) },
        storedWith(c, stored),
      ),
    ),
  WITH_EFFECT,
);

route(payoutCalls, calls.failPayout, async (c, { params, body }, stored) =>
  await answer(
    c,
    await failPayout(c.get("db"), {
      paymentId: params.id,
      adminId: administrator(c),
      now: now(c),
      reason: body.reason,
    }, storedWith(c, stored)),
  ), WITH_EFFECT);

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

// The SEPA files' links are on the local payouts desk (islands/payouts/sepa-files.tsx).
route(payoutCalls, calls.payoutBatchFile, async (c, { params }) => {
  const file = await batchFile(c.get("db"), params.id);
  return c.body(file.xml, 200, {
    "Content-Type": "application/xml; charset=utf-8",
    "Content-Disposition": `attachment; filename="${file.name}"`,
    "Cache-Control": "no-store",
  });
}, { linkedFrom: consolePage(() => "/console/local") });
