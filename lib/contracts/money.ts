/**
 * The money calls of customers and visitors (DESIGN.md section 4): currencies, rates, quotes,
 * conversions, balances, funding and movements.
 */
import { z } from "zod";
import {
  amountText,
  currencyCode,
  currencyInput,
  fixedSide,
  pageOf,
  pageQuery,
  rateText,
  text,
  timestamp,
} from "./common.ts";
import { defineCall } from "./define.ts";
import { CUSTOMER_GUARDS } from "./guards.ts";

export const currency = z.object({ code: currencyCode, name: z.string(), minor_units: z.number() });

export const ratesAnswer = z.object({
  base: currencyCode,
  as_of: z.string(),
  source: z.string(),
  /** True when the table is the embedded indicative set, not a provider's or an administrator's. */
  indicative: z.boolean(),
  /** Currency code → units of it for one unit of `base`. */
  rates: z.record(z.string(), rateText),
});

/** A price: what is sold (fee included) and bought, at which rates, until when. */
export const quoteAnswer = z.object({
  sell_currency: currencyCode,
  buy_currency: currencyCode,
  sell_amount: amountText,
  buy_amount: amountText,
  mid_rate: rateText,
  rate: rateText,
  /** What the rate's markup costs, in the sell currency (included in sell_amount, like the fee). */
  markup: amountText,
  fee: amountText,
  fee_currency: currencyCode,
  expires_at: timestamp,
});

/** A quote held for the customer's account, to be executed by its id until it expires. */
export const heldQuote = quoteAnswer.extend({ id: z.string() });

export const conversion = z.object({
  id: z.number(),
  quote_id: z.string(),
  sell_currency: currencyCode,
  sell_amount: amountText,
  buy_currency: currencyCode,
  buy_amount: amountText,
  rate: rateText,
  fee: amountText,
  fee_currency: currencyCode,
  transfer_id: z.number(),
  created_at: timestamp,
});

export const balance = z.object({ currency: currencyCode, available: amountText, held: amountText });

export const fundingDetails = z.object({
  account_ref: z.string().nullable(),
  bank: z.object({
    name: z.string(),
    account_name: z.string(),
    iban: z.string(),
    bic: z.string(),
    sort_code: z.string(),
    account_number: z.string(),
    /** Some of these are the built-in test details (COMPANY_BANK_* unset): money sent to them reaches nobody. */
    test: z.boolean(),
  }),
});

export const movement = z.object({
  id: z.number(),
  kind: z.string(),
  description: z.string(),
  currency: currencyCode,
  amount: amountText,
  created_at: timestamp,
});

const priceRequest = {
  amount: text({ label: "The amount", max: 64, missing: "Enter an amount." }),
  fixed: fixedSide,
};

export const listCurrencies = defineCall({
  method: "GET",
  path: "/currencies",
  summary: "The currencies the portal holds and converts, with their minor units.",
  guards: [],
  answer: z.array(currency),
});

export const getRates = defineCall({
  method: "GET",
  path: "/rates",
  summary: "The mid-market rates against a base currency.",
  guards: [],
  query: z.object({ base: currencyInput("Choose the base currency.").default("GBP") }),
  answer: ratesAnswer,
});

export const getQuote = defineCall({
  method: "GET",
  path: "/quote",
  summary: "A price for anyone (a signed-in customer gets their own prices); not held.",
  guards: [],
  query: z.object({
    sell: currencyInput("Choose the currency to send."),
    buy: currencyInput("Choose the currency to receive."),
    ...priceRequest,
    fixed: fixedSide.default("sell"),
  }),
  answer: quoteAnswer,
});

export const holdConversionQuote = defineCall({
  method: "POST",
  path: "/account/conversions/quote",
  summary: "A quote for a conversion between the customer's balances, held until expires_at.",
  guards: CUSTOMER_GUARDS,
  movesMoney: true,
  permission: "money.convert",
  body: z.object({
    sell_currency: currencyInput("Choose the currency to sell."),
    buy_currency: currencyInput("Choose the currency to buy."),
    ...priceRequest,
  }),
  answer: heldQuote,
});

export const executeConversion = defineCall({
  method: "POST",
  path: "/account/conversions",
  summary: "Executes a held quote once: 409 when it expired or was used, 422 when funds are short.",
  guards: CUSTOMER_GUARDS,
  movesMoney: true,
  permission: "money.convert",
  body: z.object({ quote_id: text({ label: "The quote", max: 64, missing: "Give the quote to execute." }) }),
  answer: conversion,
  status: 201,
});

export const listConversions = defineCall({
  method: "GET",
  path: "/account/conversions",
  summary: "The account's conversions, newest first.",
  guards: CUSTOMER_GUARDS,
  permission: "account.view",
  query: z.object(pageQuery),
  answer: pageOf(conversion),
});

export const listBalances = defineCall({
  method: "GET",
  path: "/account/balances",
  summary: "The account's balances: available and held, per currency.",
  guards: CUSTOMER_GUARDS,
  permission: "account.view",
  answer: z.array(balance),
});

export const getFunding = defineCall({
  method: "GET",
  path: "/account/funding",
  summary: "How to fund the account: the company's bank details and the account_ref to quote.",
  guards: CUSTOMER_GUARDS,
  permission: "account.view",
  answer: fundingDetails,
});

export const latestMovements = defineCall({
  method: "GET",
  path: "/account/movements",
  summary: "The latest movements of the account's available balances, newest first: a hold shows once.",
  guards: CUSTOMER_GUARDS,
  permission: "account.view",
  query: z.object({
    limit: z.string().regex(/^[1-9][0-9]{0,2}$/, { error: "limit is a whole number from 1 to 100." })
      .transform(Number).pipe(z.number().max(100, { error: "limit is a whole number from 1 to 100." }))
      .optional().default(10),
  }),
  answer: z.array(movement),
});
