import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { accountMembers, accounts, users } from "../../db/schema.ts";
import { audit } from "../../server/audit.ts";
import { findUser, summaryOf } from "../../server/auth/users.ts";
import type { AppEnv } from "../../server/env.ts";
import { CONSOLE_GUARDS, guards } from "../../server/guards.ts";
import { ApiError, ok } from "../../server/http/api.ts";
import { valid } from "../../server/http/validate.ts";
import { fundsReceived } from "../../server/mail/index.ts";
import { parseAmount } from "../../server/money/amounts.ts";
import { MoneyError } from "../../server/money/errors.ts";
import { mergeRateTables, ratesFor, validateRateTable } from "../../server/money/rates.ts";
import { allocate, listReceipts, receiptInput, ReceiptRefused, recordReceipt } from "../../server/money/receipts.ts";
import { assignPlan, currentRates, listPlans, PlanNotFound, savePlan, saveRates } from "../../server/money/store.ts";

/** Administrators' money calls: rates, pricing plans, fee overrides, receipts (DESIGN.md sections 4, 5). */

const ADMIN = guards(...CONSOLE_GUARDS);

async function refusals<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ReceiptRefused) {
      throw new ApiError(
        error.status,
        error.message,
        error.status === 422 ? { fields: { account_ref: error.message } } : {},
      );
    }
    if (error instanceof PlanNotFound) throw new ApiError(404, error.message);
    throw error;
  }
}

/** Tells the owners of an account that money arrived on it. */
async function tellOwners(c: import("hono").Context<AppEnv>, accountId: number, amount: string, currency: string) {
  const db = c.get("db");
  const owners = await db.select({ userId: accountMembers.userId, accountRef: accounts.accountRef }).from(
    accountMembers,
  )
    .innerJoin(accounts, eq(accounts.id, accountMembers.accountId)).where(eq(accountMembers.accountId, accountId));
  for (const owner of owners) {
    const user = await findUser(db, owner.userId);
    if (!user) continue;
    const summary = await summaryOf(db, user, false);
    await c.get("services").mailer.send({
      to: user.username,
      userId: user.id,
      template: "funds-received",
      rendered: fundsReceived({ name: summary.name, amount: `${amount} ${currency}`, accountRef: owner.accountRef }),
    });
  }
}

const nullableAmountText = z.string().trim().max(32).nullable().optional();

// One statement per route, never a chain: a chain's types pile up (decision 010).
export const consoleMoney = new Hono<AppEnv>();

consoleMoney.put("/console/rates", ADMIN, async (c) => {
  const input = await c.req.json().catch(() => null) as Record<string, unknown> | null;
  const now = new Date(c.get("services").now());
  // The date defaults to today; the source is always "admin", whatever the body says.
  const given = input && typeof input === "object"
    ? { as_of: now.toISOString().slice(0, 10), ...input, source: "admin" }
    : input;
  const table = await refusals(() => validateRateTable(given, "admin"));
  // An update of some rates keeps the others (crossed into the new table), so no currency
  // stops being quoted because it was not in the form.
  const merged = await refusals(async () => mergeRateTables(await currentRates(c.get("db")), table).table);
  await saveRates(c.get("db"), merged, c.get("user")!.id, now);
  return ok(c, await refusals(async () => ratesFor(await currentRates(c.get("db")), table.base)));
});

consoleMoney.get("/console/pricingplans", ADMIN, async (c) => ok(c, await listPlans(c.get("db"))));

consoleMoney.post("/console/pricingplans", ADMIN, async (c) => {
  const input = await c.req.json().catch(() => null);
  const plan = await refusals(() => savePlan(c.get("db"), null, input, new Date(c.get("services").now())));
  return ok(c, plan, { status: 201 });
});

consoleMoney.put("/console/pricingplans/:id", ADMIN, async (c) => {
  const id = Number(c.req.param("id"));
  if (!Number.isInteger(id) || id < 1) throw new ApiError(404, "There is no pricing plan with this id.");
  const input = await c.req.json().catch(() => null) as Record<string, unknown> | null;
  const db = c.get("db");
  if (input && typeof input.assign_account_ref === "string") {
    const ref = input.assign_account_ref.trim().toUpperCase();
    const [account] = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.accountRef, ref));
    if (!account) {
      throw new ApiError(422, `There is no account ${ref}.`, {
        fields: { assign_account_ref: `There is no account ${ref}.` },
      });
    }
    await refusals(() => assignPlan(db, id, account.id, c.get("user")!.id, new Date(c.get("services").now())));
    await audit(db, {
      actorId: c.get("user")!.id,
      onBehalfOfId: null,
      action: "pricing-plan.assign",
      detail: { plan_id: id, account_ref: ref },
    });
  } else {
    await refusals(() => savePlan(db, id, input, new Date(c.get("services").now())));
  }
  const plan = (await listPlans(db)).find((p) => p.id === id);
  if (!plan) throw new ApiError(404, "There is no pricing plan with this id.");
  return ok(c, plan);
});

consoleMoney.put(
  "/console/users/:id/fees",
  ADMIN,
  valid(
    "json",
    z.object({
      override_transfer_fee: z.boolean({ error: "Say whether the overrides apply (true or false)." }),
      override_regular_transfer_fee: nullableAmountText,
      override_priority_transfer_fee: nullableAmountText,
    }),
  ),
  async (c) => {
    const id = Number(c.req.param("id"));
    const customer = Number.isInteger(id) && id > 0 ? await findUser(c.get("db"), id) : undefined;
    if (!customer || customer.level === "Admin") throw new ApiError(404, "There is no customer with this id.");
    const body = c.req.valid("json");
    const fields: Record<string, string> = {};
    // Fees are amounts in the currency being sold; they are checked as two-decimal amounts here.
    for (const key of ["override_regular_transfer_fee", "override_priority_transfer_fee"] as const) {
      const value = body[key];
      if (!value) continue;
      try {
        parseAmount("EUR", value);
      } catch (error) {
        fields[key] = error instanceof MoneyError
          ? error.message.replace("EUR amounts", "Fees")
          : "Enter a fee like 2.50.";
      }
    }
    if (body.override_transfer_fee && !body.override_regular_transfer_fee && !body.override_priority_transfer_fee) {
      fields.override_transfer_fee = "Give at least one fee when the overrides apply.";
    }
    if (Object.keys(fields).length) throw new ApiError(422, Object.values(fields)[0], { fields });
    await c.get("db").update(users).set({
      overrideTransferFee: body.override_transfer_fee,
      overrideRegularTransferFee: body.override_regular_transfer_fee || null,
      overridePriorityTransferFee: body.override_priority_transfer_fee || null,
    }).where(eq(users.id, id));
    await audit(c.get("db"), { actorId: c.get("user")!.id, onBehalfOfId: id, action: "fees.override", detail: body });
    const updated = await findUser(c.get("db"), id);
    return ok(c, await summaryOf(c.get("db"), updated!, false));
  },
);

consoleMoney.post("/console/receipts", ADMIN, valid("json", receiptInput), async (c) => {
  const input = c.req.valid("json");
  const { receipt, accountId } = await refusals(() =>
    recordReceipt(c.get("db"), input, c.get("user")!.id, new Date(c.get("services").now()))
  );
  if (accountId !== null) await tellOwners(c, accountId, receipt.amount, receipt.currency);
  return ok(c, receipt, { status: 201 });
});

consoleMoney.get("/console/receipts", ADMIN, async (c) => {
  const status = c.req.query("status");
  if (status && !["matched", "unmatched", "allocated"].includes(status)) {
    throw new ApiError(422, "status is matched, unmatched or allocated.", {
      fields: { status: "status is matched, unmatched or allocated." },
    });
  }
  return ok(c, await listReceipts(c.get("db"), status as "matched" | "unmatched" | "allocated" | undefined));
});

consoleMoney.post(
  "/console/receipts/:id/allocate",
  ADMIN,
  valid(
    "json",
    z.object({
      account_ref: z.string({ error: "Enter the account_ref to credit." }).trim().min(1, {
        error: "Enter the account_ref to credit.",
      }),
    }),
  ),
  async (c) => {
    const id = Number(c.req.param("id"));
    if (!Number.isInteger(id) || id < 1) throw new ApiError(404, "There is no such receipt.");
    const { receipt, accountId } = await refusals(() =>
      allocate(c.get("db"), id, c.req.valid("json").account_ref, c.get("user")!.id)
    );
    await tellOwners(c, accountId, receipt.amount, receipt.currency);
    return ok(c, receipt);
  },
);
