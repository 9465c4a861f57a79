/** The money calls the customer's islands make, typed by their contracts (lib/contracts/money.ts). */
import type * as money from "../../lib/contracts/money.ts";
import { type AnswerOf, type BodyOf, call, type QueryOf } from "../lib/api.ts";
import { balanceKeys, quoteKeys } from "../lib/query-keys.ts";
import { read } from "../lib/query-client.tsx";

export const listBalances = call<typeof money.listBalances>("GET", "/account/balances");
export const getQuote = call<typeof money.getQuote>("GET", "/quote");
export const holdConversionQuote = call<typeof money.holdConversionQuote>("POST", "/account/conversions/quote");
export const executeConversion = call<typeof money.executeConversion>("POST", "/account/conversions");

export type Balance = AnswerOf<typeof money.listBalances>[number];
export type Currency = AnswerOf<typeof money.listCurrencies>[number];
export type Quote = AnswerOf<typeof money.getQuote>;
export type HeldQuote = AnswerOf<typeof money.holdConversionQuote>;
export type Conversion = AnswerOf<typeof money.executeConversion>;
export type Funding = AnswerOf<typeof money.getFunding>;
export type Rates = AnswerOf<typeof money.getRates>;
/** Which side of a price is fixed: what is sold or what is bought. */
export type Fixed = BodyOf<typeof money.holdConversionQuote>["fixed"];

/** An account's balances: the Balances island and the convert form read the same query. */
export const balancesQuery = (accountRef: string) => read(balanceKeys.of(accountRef), listBalances);

/** A price asked for: both currencies, an amount, and which side it is on. */
export type QuoteRequest = Required<QueryOf<typeof money.getQuote>>;

/** A price for the calculator (not held). */
export const quoteQuery = (request: QuoteRequest) => read(quoteKeys.of(request), getQuote, { query: request });
