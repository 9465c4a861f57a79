import { Hono } from "hono";
import type { Context } from "hono";
import * as calls from "../../lib/contracts/money.ts";
import { accountChoice, currentAccount, customerOf } from "../../server/accounts/current.ts";
import type { AppEnv } from "../../server/env.ts";
import { route } from "../../server/http/route.ts";
import { balancesAnswer, latestMovements } from "../../server/money/balances.ts";
import {
  conversionAnswer,
  executeQuote,
  holdQuote,
  listConversions,
  priceQuote,
} from "../../server/money/conversions.ts";
import { currencyList } from "../../server/money/currencies.ts";
import { companyBankDetails } from "../../server/money/funding.ts";
import { accountFeeOverrides } from "../../server/money/fee-overrides.ts";
import { quoteAnswer } from "../../server/money/quote.ts";
import { ratesFor } from "../../server/money/rates.ts";
import { currentRates } from "../../server/money/store.ts";

/** What a customer can do with money, and the public prices (DESIGN.md section 4). */

/** How long a quote holds: 30 s unless QUOTE_VALIDITY_SECONDS says otherwise. */
const validityMs = (c: Context<AppEnv>) => c.get("config").quoteValiditySeconds * 1000;
const now = (c: Context<AppEnv>) => new Date(c.get("services").now());

/**
 * The customer's prices when a customer with an account is signed in (their current account's
 * plan: the default one while they have not chosen among several), else the default plan's.
 */
async function pricesFor(c: Context<AppEnv>) {
  const customer = customerOf(c);
  if (!customer?.account || !customer.secondFactor && !c.get("onBehalf")) return { accountId: null, overrides: null };
  const { current } = await accountChoice(c);
  if (!current) return { accountId: null, overrides: null };
  // The account holder's overrides, whoever of its members asks (decision 064).
  return { accountId: current.accountId, overrides: await accountFeeOverrides(c.get("db"), current.accountId) };
}

export const moneyCalls = new Hono<AppEnv>();

route(moneyCalls, calls.listCurrencies, currencyList);

route(moneyCalls, calls.getRates, async (c, { query }) => ratesFor(await currentRates(c.get("db")), query.base));

route(
  moneyCalls,
  calls.getQuote,
  async (c, { query }) => quoteAnswer(await priceQuote(c.get("db"), query, await pricesFor(c), now(c), validityMs(c))),
);

route(moneyCalls, calls.holdConversionQuote, async (c, { body }) => {
  const { accountId, customer } = await currentAccount(c);
  return await holdQuote(
    c.get("db"),
    { sell: body.sell_currency, buy: body.buy_currency, amount: body.amount, fixed: body.fixed },
    { accountId, userId: customer.id, overrides: await accountFeeOverrides(c.get("db"), accountId) },
    now(c),
    validityMs(c),
  );
});

route(moneyCalls, calls.executeConversion, async (c, { body }, answer) => {
  const { accountId, customer } = await currentAccount(c);
  // The conversion is the customer's, as its quote is; an administrator acting on their behalf is
  // recorded beside them, as payments record them (routes/payment-actor.ts).
  const onBehalfAdminId = c.get("onBehalf") ? c.get("user")!.id : null;
  // The answer commits with the conversion: a retry after a crash still learns it happened.
  const row = await executeQuote(
    c.get("db"),
    { accountId, userId: customer.id, onBehalfAdminId },
    body.quote_id,
    now(c),
    (tx, conversion) => answer.storeWith(tx, conversionAnswer(conversion)),
  );
  return conversionAnswer(row);
  // Every write of a conversion is in the transaction that stores its answer: its key is claimed
  // there (decision 053).
}, { claimsKeyWithEffect: true });

route(moneyCalls, calls.listConversions, async (c, { query }) => {
  const { accountId } = await currentAccount(c);
  return await listConversions(c.get("db"), accountId, query.page, query.per_page);
});

route(moneyCalls, calls.listBalances, async (c) => balancesAnswer(c.get("db"), (await currentAccount(c)).accountId));

route(moneyCalls, calls.getFunding, async (c) => {
  const { accountRef } = await currentAccount(c);
  return { account_ref: accountRef, bank: companyBankDetails() };
});

route(
  moneyCalls,
  calls.latestMovements,
  async (c, { query }) => latestMovements(c.get("db"), (await currentAccount(c)).accountId, query.limit),
);
