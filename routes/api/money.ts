import { desc, eq, inArray } from "drizzle-orm";
import { Hono } from "hono";
import type { Context } from "hono";
import { z } from "zod";
import { ledgerAccounts, ledgerEntries, ledgerTransfers } from "../../db/schema-money.ts";
import { currentAccount, customerOf } from "../../server/accounts/current.ts";
import type { AppEnv } from "../../server/env.ts";
import { CUSTOMER_GUARDS, guards } from "../../server/guards.ts";
import { ApiError, ok } from "../../server/http/api.ts";
import { valid } from "../../server/http/validate.ts";
import { balancesOf } from "../../server/ledger/movements.ts";
import { formatAmount } from "../../server/money/amounts.ts";
import {
  conversionAnswer,
  ConversionRefused,
  executeQuote,
  holdQuote,
  listConversions,
  priceQuote,
} from "../../server/money/conversions.ts";
import { CURRENCIES, CURRENCY_CODES } from "../../server/money/currencies.ts";
import { MoneyError } from "../../server/money/errors.ts";
import type { FeeOverrides } from "../../server/money/pricing.ts";
import { quoteAnswer } from "../../server/money/quote.ts";
import { ratesFor } from "../../server/money/rates.ts";
import { currentRates } from "../../server/money/store.ts";
import { companyBankDetails } from "../../server/money/funding.ts";

/** What a customer can do with money, and the public prices (DESIGN.md section 4). */

const CUSTOMER = guards(...CUSTOMER_GUARDS);

/** Money errors are the customer's input: 422, naming the field. */
export async function money<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof MoneyError) {
      throw new ApiError(422, error.message, error.field ? { fields: { [error.field]: error.message } } : {});
    }
    if (error instanceof ConversionRefused) throw new ApiError(error.status, error.message);
    throw error;
  }
}

export function overridesOf(
  user: {
    override_transfer_fee: boolean;
    override_regular_transfer_fee: string | null;
    override_priority_transfer_fee: string | null;
  } | null,
): FeeOverrides | null {
  if (!user) return null;
  const { override_transfer_fee, override_regular_transfer_fee, override_priority_transfer_fee } = user;
  return { override_transfer_fee, override_regular_transfer_fee, override_priority_transfer_fee };
}

/** The quote validity: 30 s unless QUOTE_VALIDITY_SECONDS says otherwise. */
export function validityMs(c: Context<AppEnv>): number {
  return c.get("config").quoteValiditySeconds * 1000;
}

const quoteQuery = z.object({
  sell: z.string({ error: "Choose the currency to send." }).trim().toUpperCase(),
  buy: z.string({ error: "Choose the currency to receive." }).trim().toUpperCase(),
  amount: z.string({ error: "Enter an amount." }).trim(),
  fixed: z.enum(["sell", "buy"], { error: "fixed is sell or buy." }).default("sell"),
});

/** The customer's prices when a customer with an account is signed in, else the default plan's. */
async function pricesFor(c: Context<AppEnv>) {
  const customer = customerOf(c);
  if (!customer?.account || !customer.secondFactor && !c.get("onBehalf")) return { accountId: null, overrides: null };
  const { accountId } = await currentAccount(c);
  return { accountId, overrides: overridesOf(customer) };
}

// One statement per route, never a chain: a chain's types pile up (decision 010).
export const moneyCalls = new Hono<AppEnv>();

moneyCalls.get(
  "/currencies",
  (c) =>
    ok(
      c,
      CURRENCY_CODES.map((code) => ({ code, name: CURRENCIES[code].name, minor_units: CURRENCIES[code].minorUnits })),
    ),
);

moneyCalls.get("/rates", async (c) => {
  const base = (c.req.query("base") ?? "GBP").toUpperCase();
  return ok(c, await money(async () => ratesFor(await currentRates(c.get("db")), base)));
});

moneyCalls.get("/quote", valid("query", quoteQuery), async (c) => {
  const request = c.req.valid("query");
  const { now } = c.get("services");
  const q = await money(async () =>
    priceQuote(c.get("db"), request, await pricesFor(c), new Date(now()), validityMs(c))
  );
  return ok(c, quoteAnswer(q));
});

moneyCalls.post(
  "/account/conversions/quote",
  CUSTOMER,
  valid(
    "json",
    z.object({
      sell_currency: z.string({ error: "Choose the currency to sell." }).trim().toUpperCase(),
      buy_currency: z.string({ error: "Choose the currency to buy." }).trim().toUpperCase(),
      amount: z.string({ error: "Enter an amount." }).trim(),
      fixed: z.enum(["sell", "buy"], { error: "fixed is sell or buy." }),
    }),
  ),
  async (c) => {
    const body = c.req.valid("json");
    const { accountId, customer } = await currentAccount(c);
    const held = await money(() =>
      holdQuote(
        c.get("db"),
        { sell: body.sell_currency, buy: body.buy_currency, amount: body.amount, fixed: body.fixed },
        { accountId, userId: customer.id, overrides: overridesOf(customer) },
        new Date(c.get("services").now()),
        validityMs(c),
      )
    );
    return ok(c, held);
  },
);

moneyCalls.post(
  "/account/conversions",
  CUSTOMER,
  valid("json", z.object({ quote_id: z.string({ error: "Give the quote to execute." }).trim().min(1).max(64) })),
  async (c) => {
    const { accountId } = await currentAccount(c);
    const actor = c.get("user")!;
    const row = await money(() =>
      executeQuote(
        c.get("db"),
        { accountId, userId: actor.id },
        c.req.valid("json").quote_id,
        new Date(c.get("services").now()),
      )
    );
    return ok(c, conversionAnswer(row), { status: 201 });
  },
);

moneyCalls.get("/account/conversions", CUSTOMER, async (c) => {
  const { accountId } = await currentAccount(c);
  const page = Math.max(1, Math.floor(Number(c.req.query("page") ?? 1)) || 1);
  const perPage = Math.min(100, Math.max(1, Math.floor(Number(c.req.query("per_page") ?? 20)) || 20));
  return ok(c, await listConversions(c.get("db"), accountId, page, perPage));
});

moneyCalls.get("/account/balances", CUSTOMER, async (c) => {
  const { accountId } = await currentAccount(c);
  return ok(c, await balancesAnswer(c, accountId));
});

moneyCalls.get("/account/funding", CUSTOMER, async (c) => {
  const { customer } = await currentAccount(c);
  return ok(c, { account_ref: customer.account_ref, bank: companyBankDetails() });
});

moneyCalls.get("/account/movements", CUSTOMER, async (c) => {
  const { accountId } = await currentAccount(c);
  const limit = Math.min(100, Math.max(1, Number(c.req.query("limit") ?? 10) || 10));
  return ok(c, await latestMovements(c, accountId, limit));
});

export async function balancesAnswer(c: Context<AppEnv>, accountId: number) {
  return (await balancesOf(c.get("db"), accountId)).map((b) => ({
    currency: b.currency,
    available: formatAmount(b.currency, b.available),
    held: formatAmount(b.currency, b.held),
  }));
}

/** The latest movements of an account's balances, newest first. */
export async function latestMovements(c: Context<AppEnv>, accountId: number, limit: number) {
  const db = c.get("db");
  const mine = await db.select({ id: ledgerAccounts.id }).from(ledgerAccounts).where(
    eq(ledgerAccounts.accountId, accountId),
  );
  if (!mine.length) return [];
  const rows = await db.select({
    id: ledgerEntries.id,
    kind: ledgerTransfers.kind,
    description: ledgerTransfers.description,
    currency: ledgerEntries.currency,
    amount: ledgerEntries.amount,
    createdAt: ledgerEntries.createdAt,
  }).from(ledgerEntries).innerJoin(ledgerTransfers, eq(ledgerTransfers.id, ledgerEntries.transferId))
    .where(inArray(ledgerEntries.ledgerAccountId, mine.map((m) => m.id)))
    .orderBy(desc(ledgerEntries.id)).limit(limit);
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    description: r.description,
    currency: r.currency,
    amount: formatAmount(r.currency, r.amount),
    created_at: r.createdAt.toISOString(),
  }));
}
