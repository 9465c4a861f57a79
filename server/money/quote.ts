/**
 * Quotes: GET quote?sell=GBP&buy=EUR&amount=100.00&fixed=sell|buy. Pure: the caller loads the
 * rate table, the account's plan and the user's overrides, and passes the clock.
 *
 * Product decisions
 *
 * - The fee is in the SELL currency: the plan's regular transfer fee for the sell currency, or,
 *   when the user's override_transfer_fee is on and they have a regular fee override in the sell
 *   currency, that override (see ./pricing.ts feeFor). `sell_amount` includes the fee; what
 *   is converted is sell_amount − fee. `fee_currency` is always `sell_currency`.
 * - fixed=sell: the customer gives sell_amount (the fee included);
 *   buy_amount = floor((sell_amount − fee) × rate), in buy minor units. If sell_amount ≤ fee the
 *   quote is refused: "The amount must be more than the fee of 1.00 GBP." If the result is zero
 *   buy minor units, it is refused as too small.
 * - fixed=buy: the customer wants buy_amount; sell_amount = ceil(buy_amount / rate, in sell minor
 *   units) + fee. That is the least sell amount whose conversion reaches buy_amount.
 * - Markup: rate = mid × (1 − bps / 10000), bps from the plan's tier for the amount being
 *   converted, measured in the plan's tier currency at the mid rate and rounded down to its minor
 *   unit (a smaller amount can only mean an equal or higher tier markup: the house's favour).
 *   For fixed=sell that amount is sell_amount − fee. For fixed=buy the amount converted depends on
 *   the rate, so the tier is the one whose rate, converting what it takes to buy buy_amount, lands in
 *   a tier at least as good as itself: of the plan's markups, cheapest first, the first whose
 *   converted amount would get that markup or a better one when sold with fixed=sell. So asking to
 *   receive B never costs more than sending what buys B (once priced at B at mid, receiving 1155.00
 *   EUR cost 5 GBP more than receiving 1155.02: a conversion above a bound, priced as one below it).
 *   At a bound the step is the one fixed=sell has: receiving just below what the bound buys costs
 *   the dearer markup.
 * - Rates: `mid_rate` is the cross rate through the table's base (rates[buy] / rates[sell]),
 *   printed rounded half-even. Both rates are printed with the same number of decimal places: 6,
 *   or more for a mid rate below 0.1 so that at least 6 significant digits show (rateDecimals:
 *   GBP→EUR "1.137656", JPY→KWD "0.00195493").
 *   The customer `rate` is the exact value rates[buy] / rates[sell] × (1 − bps / 10000), with no
 *   earlier rounding, rounded DOWN once to those decimal places (./rates.ts crossValue). Amounts
 *   are computed with exactly that printed rate, so anyone can reproduce them from the answer.
 *   Rounding the rate down costs the customer less than one unit of its last printed place
 *   (at most 1 part in 100,000).
 * - Rounding of amounts is always in the house's favour and never by a full minor unit or more:
 *   fixed=sell floors the buy amount (buy ≤ converted × rate < buy + 1 minor unit); fixed=buy
 *   ceils the sell amount (the converted amount × rate ≥ buy, and one minor unit less would not
 *   be enough).
 * - The markup in money (`markup`, in the sell currency) is what the rate's markup costs the customer:
 *   what is converted (sell_amount − fee), less what would have bought buy_amount at the printed mid
 *   rate (markupOf). So the converted amount at mid + markup + fee = sell_amount, as a payment's
 *   cost says it (server/payments/pricing.ts).
 * - Validity: expires_at = now + validityMs (QUOTE_VALIDITY_MS, 30 s, by default), ISO 8601 UTC.
 * - Errors are MoneyErrors with messages for the customer and `field` set: unknown currency
 *   ("sell"/"buy"), the same currency on both sides, fixed not "sell" or "buy", a malformed,
 *   zero, too small or too large amount ("amount"), no rate for a currency.
 * - Currency codes are accepted in any case ("gbp") and answered upper case.
 */
import Big from "big.js";
import { describe, isCurrency, minorUnits } from "./currencies.ts";
import { formatAmount, parseAmount } from "./amounts.ts";
import { MoneyError } from "./errors.ts";
import { bpsFor, feeFor, type FeeKind, type FeeOverrides, type PricingPlan } from "./pricing.ts";
import { crossRate, crossValue, rateDecimals, type RateTable } from "./rates.ts";

export const QUOTE_VALIDITY_MS = 30_000;

export type Fixed = "sell" | "buy";

export interface QuoteInput {
  /** The currency the customer sells (pays with). */
  sell: string;
  /** The currency the customer buys (receives). */
  buy: string;
  /** Decimal string in the fixed side's currency: the sell amount (fee included) or the buy amount. */
  amount: string;
  /** Which side `amount` is. */
  fixed: Fixed;
  table: RateTable;
  plan: PricingPlan;
  overrides?: FeeOverrides | null;
  now: Date;
  validityMs?: number;
  /** Which transfer fee applies: regular (conversions, regular payments) unless a payment is priority. */
  feeKind?: FeeKind;
}

export interface Quote {
  sell_currency: string;
  buy_currency: string;
  /** Decimal strings with each currency's digits; sell_amount includes the fee. */
  sell_amount: string;
  buy_amount: string;
  /** The same amounts (and the fee) as integers of minor units. */
  sell_minor: number;
  buy_minor: number;
  fee_minor: number;
  /** Units of buy for one unit of sell: the mid rate (half-even) and the customer rate (rounded down). */
  mid_rate: string;
  rate: string;
  /** The fee, in fee_currency (= sell_currency). */
  fee: string;
  fee_currency: string;
  /** The markup applied, in basis points. */
  bps: number;
  /** What the markup costs, in sell minor units (markupOf). */
  markup_minor: number;
  /** ISO 8601 UTC. */
  expires_at: string;
}

/** The fields of the GET quote answer; `markup` is markup_minor as a decimal string of the sell currency. */
export type QuoteAnswer =
  & { markup: string }
  & Pick<
    Quote,
    | "sell_currency"
    | "buy_currency"
    | "sell_amount"
    | "buy_amount"
    | "mid_rate"
    | "rate"
    | "fee"
    | "fee_currency"
    | "expires_at"
  >;

/** A big.js constructor whose divisions round up (away from zero), for ceilings. */
const Up = Big();
Up.DP = 40;
Up.RM = Big.roundUp;

const MAX_SAFE = new Big(Number.MAX_SAFE_INTEGER);

/** 10^n as a Big, for any integer n (exact). */
const pow10 = (n: number) => new Big(`1e${n}`);

function currencyField(value: unknown, field: "sell" | "buy"): string {
  const code = typeof value === "string" ? value.trim().toUpperCase() : value;
  if (!isCurrency(code)) {
    throw new MoneyError(
      typeof value === "string" && value.trim() !== ""
        ? `${describe(value)} is not a currency we support.`
        : `Choose the currency to ${field}.`,
      field,
    );
  }
  return code;
}

function tooLarge(): MoneyError {
  return new MoneyError("The amount is too large.", "amount");
}

/**
 * Minor units of `from` in minor units of `to` at the exact mid rate, rounded down (capped at
 * MAX_SAFE_INTEGER: beyond that every tier choice is the same).
 */
function measure(table: RateTable, minor: number, from: string, to: string): number {
  const value = new Big(minor).times(pow10(minorUnits(to) - minorUnits(from)));
  const v = crossValue(table, from, to, value, 0, Big.roundDown);
  return v.gt(MAX_SAFE) ? Number.MAX_SAFE_INTEGER : v.toNumber();
}

/**
 * The least amount of sell minor units whose conversion at `perMinor` reaches `buyMinor`:
 * ceil(buy / perMinor), the quotient rounded up at 40 places, then up to an integer, is the exact
 * ceiling; the loops only guard that reasoning.
 */
function convertedFor(buyMinor: number, perMinor: Big): Big {
  let converted = new Up(buyMinor).div(perMinor).round(0, Big.roundUp);
  while (converted.gt(0) && converted.minus(1).times(perMinor).gte(buyMinor)) converted = converted.minus(1);
  while (converted.times(perMinor).lt(buyMinor)) converted = converted.plus(1);
  return converted;
}

/**
 * fixed=buy's markup (see the header): the plan's markups cheapest first, the first whose converted
 * amount, measured in the tier currency, gets that markup or a better one. The dearest markup
 * always qualifies, so one is always found.
 */
function tierForFixedBuy<T>(
  plan: PricingPlan,
  at: (bps: number) => { at: T; converted: Big; tierMinor: number },
): T {
  const markups = [...new Set(plan.tiers.map((t) => t.bps))].sort((a, b) => a - b);
  if (!markups.length) throw new MoneyError(`The pricing plan ${plan.name} has no tiers.`);
  for (const [i, bps] of markups.entries()) {
    const tried = at(bps);
    // The dearest markup is the last resort; beyond a safe integer the amount is refused as too
    // large below, whichever markup.
    if (i === markups.length - 1 || tried.converted.gt(MAX_SAFE) || bpsFor(plan, tried.tierMinor) <= bps) {
      return tried.at;
    }
  }
  throw new Error("unreachable: the last markup is always taken");
}

/** Prices a conversion; see the header of this file for every rule. Throws a MoneyError. */
export function quote(input: QuoteInput): Quote {
  const { amount, table, plan, overrides, now, validityMs = QUOTE_VALIDITY_MS } = input;
  const sell = currencyField(input.sell, "sell");
  const buy = currencyField(input.buy, "buy");
  if (sell === buy) throw new MoneyError("Choose two different currencies to convert between.", "buy");
  const fixed = input.fixed;
  if (fixed !== "sell" && fixed !== "buy") throw new MoneyError('fixed must be "sell" or "buy".', "fixed");
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw new TypeError("quote: now must be a valid Date.");
  if (!Number.isSafeInteger(validityMs) || validityMs <= 0) {
    throw new TypeError("quote: validityMs must be a positive integer.");
  }

  const given = parseAmount(fixed === "sell" ? sell : buy, amount);
  if (given === 0) throw new MoneyError("The amount must be more than zero.", "amount");

  const feeMinor = feeFor(plan, sell, input.feeKind ?? "regular", overrides);
  // The printed precision follows the size of the mid rate (30 places are plenty to tell it).
  const decimals = rateDecimals(crossRate(table, sell, buy));
  const mid = crossValue(table, sell, buy, 1, decimals, Big.roundHalfEven);

  // The customer rate at a markup: the exact mid moved against the customer, rounded down once to
  // the printed precision. Every amount below is computed from this printed value.
  const priced = (bps: number) => {
    const rate = crossValue(table, sell, buy, new Big(10_000 - bps).div(10_000), decimals, Big.roundDown);
    if (rate.lte(0)) throw new MoneyError(`There is no usable rate from ${sell} to ${buy}.`);
    // Buy minor units per sell minor unit: exact (a product by a power of ten).
    return { bps, rate, perMinor: rate.times(pow10(minorUnits(buy) - minorUnits(sell))) };
  };

  let sellMinor: number;
  let buyMinor: number;
  let chosen: ReturnType<typeof priced>;
  if (fixed === "sell") {
    if (given <= feeMinor) {
      throw new MoneyError(
        `The amount must be more than the fee of ${formatAmount(sell, feeMinor)} ${sell}.`,
        "amount",
      );
    }
    // The amount being converted, in the tier currency, at mid.
    chosen = priced(bpsFor(plan, measure(table, given - feeMinor, sell, plan.tier_currency)));
  } else {
    chosen = tierForFixedBuy(plan, (bps) => {
      const at = priced(bps);
      const converted = convertedFor(given, at.perMinor);
      return { at, converted, tierMinor: measure(table, converted.toNumber(), sell, plan.tier_currency) };
    });
  }
  const { bps, rate, perMinor } = chosen;

  if (fixed === "sell") {
    sellMinor = given;
    const b = new Big(given - feeMinor).times(perMinor).round(0, Big.roundDown);
    if (b.gt(MAX_SAFE)) throw tooLarge();
    buyMinor = b.toNumber();
    if (buyMinor === 0) {
      throw new MoneyError(
        `The amount is too small: after the fee it buys less than ${formatAmount(buy, 1)} ${buy}.`,
        "amount",
      );
    }
  } else {
    buyMinor = given;
    const s = convertedFor(given, perMinor).plus(feeMinor);
    if (s.gt(MAX_SAFE)) throw tooLarge();
    sellMinor = s.toNumber();
  }

  return {
    sell_currency: sell,
    buy_currency: buy,
    sell_amount: formatAmount(sell, sellMinor),
    buy_amount: formatAmount(buy, buyMinor),
    sell_minor: sellMinor,
    buy_minor: buyMinor,
    fee_minor: feeMinor,
    mid_rate: mid.toFixed(decimals),
    rate: rate.toFixed(decimals),
    fee: formatAmount(sell, feeMinor),
    fee_currency: sell,
    bps,
    markup_minor: markupOf(sellMinor - feeMinor, buyMinor, mid.toFixed(decimals), sell, buy),
    expires_at: new Date(now.getTime() + validityMs).toISOString(),
  };
}

/** The GET quote answer: the public fields of a quote. */
export function quoteAnswer(q: Quote): QuoteAnswer {
  const { sell_currency, buy_currency, sell_amount, buy_amount, mid_rate, rate, fee, fee_currency, expires_at } = q;
  const markup = formatAmount(sell_currency, q.markup_minor);
  return {
    sell_currency,
    buy_currency,
    sell_amount,
    buy_amount,
    mid_rate,
    rate,
    markup,
    fee,
    fee_currency,
    expires_at,
  };
}

/**
 * What converting `converted` (sell minor units) into `bought` (buy minor units) cost beyond the
 * mid-market rate, in sell minor units: converted − bought ÷ mid, the quotient rounded half up.
 * Never below zero: the customer rate (rounded down) is at most the printed mid rate (rounded to
 * nearest), and the amount bought is rounded down. Exact, in integers: every payment's answer
 * computes it, and decimal arithmetic cost more than the rest of the answer.
 */
export function markupOf(converted: number, bought: number, midRate: string, sell: string, buy: string): number {
  const [whole, fraction = ""] = midRate.split(".");
  // bought ÷ (mid × 10^shift) with mid = digits ÷ 10^fraction.length, as one fraction num ÷ den.
  const shift = minorUnits(buy) - minorUnits(sell);
  let num = BigInt(bought) * 10n ** BigInt(fraction.length);
  let den = BigInt(whole + fraction);
  if (shift >= 0) den *= 10n ** BigInt(shift);
  else num *= 10n ** BigInt(-shift);
  const atMid = (2n * num + den) / (2n * den);
  return converted - Number(atMid);
}
