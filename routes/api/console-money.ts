import { type Context, Hono } from "hono";
import * as calls from "../../lib/contracts/console-money.ts";
import type { AppEnv } from "../../server/env.ts";
import { route } from "../../server/http/route.ts";
import { setFeeOverrides } from "../../server/money/fee-overrides.ts";
import { assignPlan, createPlan, listPlans, replacePlan } from "../../server/money/plans.ts";
import {
  allocate,
  approveReceipt,
  declineReceipt,
  discardReceipt,
  listReceipts,
  type ReceiptDeps,
  recordReceipt,
  releaseReceipt,
  reverse,
} from "../../server/money/receipts.ts";
import { importStatement } from "../../server/money/receipt-import.ts";
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

route(
  consoleMoney,
  calls.createPricingPlan,
  async (c, { body }) => await createPlan(c.get("db"), body, administrator(c), now(c)),
);

route(consoleMoney, calls.changePricingPlan, async (c, { params, body }) => {
  if ("assign_account_ref" in body) {
    return await assignPlan(c.get("db"), params.id, body.assign_account_ref, administrator(c), now(c));
  }
  return await replacePlan(c.get("db"), params.id, body, administrator(c), now(c));
});

route(
  consoleMoney,
  calls.setFeeOverrides,
  async (c, { params, body }) => await setFeeOverrides(c.get("db"), params.id, body, administrator(c), now(c)),
);

/** What the receipts calls work with: the approval amount and support address come from the configuration. */
const receiptDeps = (c: Context<AppEnv>): ReceiptDeps => ({
  db: c.get("db"),
  mailer: c.get("services").mailer,
  approvalGbp: c.get("config").receiptApprovalGbp,
  supportEmail: c.get("config").supportEmail,
  publicUrl: c.get("config").publicUrl,
});

route(
  consoleMoney,
  calls.recordReceipt,
  async (c, { body }) => await recordReceipt(receiptDeps(c), body, administrator(c), now(c)),
);

route(consoleMoney, calls.listReceipts, async (c, { query }) => await listReceipts(c.get("db"), query.status));

route(
  consoleMoney,
  calls.allocateReceipt,
  async (c, { params, body }) => await allocate(receiptDeps(c), params.id, body.account_ref, administrator(c), now(c)),
);

route(
  consoleMoney,
  calls.approveReceipt,
  async (c, { params }) => await approveReceipt(receiptDeps(c), params.id, administrator(c), now(c)),
);

route(
  consoleMoney,
  calls.declineReceipt,
  async (c, { params, body }) => await declineReceipt(receiptDeps(c), params.id, body.reason, administrator(c), now(c)),
);

route(
  consoleMoney,
  calls.releaseReceipt,
  async (c, { params }) => await releaseReceipt(receiptDeps(c), params.id, administrator(c), now(c)),
);

route(
  consoleMoney,
  calls.discardReceipt,
  async (c, { params, body }) => await discardReceipt(receiptDeps(c), params.id, body.reason, administrator(c), now(c)),
);

route(
  consoleMoney,
  calls.reverseReceipt,
  async (c, { params, body }) => await reverse(receiptDeps(c), params.id, body.reason, administrator(c), now(c)),
);

route(consoleMoney, calls.importStatement, async (c) => {
  const iban = c.get("config").companyBank.COMPANY_BANK_IBAN;
  const deps = { ...receiptDeps(c), companyIban: iban ? iban : null };
  return await importStatement(deps, await c.req.text(), administrator(c), now(c));
});
