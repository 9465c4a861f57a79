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
 *   units) + fee, the least sell amount whose conversion reaches buy_amount; except just above a
 *   tier's bound, where it is the tier's least amount + fee (see Markup below).
 * - Markup: rate = mid × (1 − bps / 10000), bps from the plan's tier for the amount being
 *   converted, measured in the plan's tier currency at the mid rate and rounded down to its minor
 *   unit (a smaller amount can only mean an equal or higher tier markup: the house's favour).
 *   For fixed=sell that amount is sell_amount − fee. For fixed=buy the amount converted depends on
 *   the rate, so fixed=buy costs the least amount that, sent with fixed=sell, buys buy_amount: for
 *   each tier, what its rate needs to buy buy_amount, raised to the least amount of the tier when it
 *   needs less (a smaller amount would get a dearer tier); of those still in their tier, the least.
 *   So receiving more never costs less, and asking to receive B never costs more than sending what
 *   buys B. (Priced at B at mid, receiving 1155.00 EUR cost 5 GBP more than receiving 1155.02.) At a
 *   tier's lower bound the amount converted buys a little more than buy_amount at the printed rate:
 *   buy_amount is what is delivered, and the difference is in the markup in money.
 * - Rates: `mid_rate` is the cross rate through the table's base (rates[buy] / rates[sell]),
 *   printed rounded half-even. Both rates are printed with the same number of decimal places: 6,
 *   or more for a mid rate below 0.1 so that at least 6 significant digits show (rateDecimals:
 *   GBP→EUR "1.137656", JPY→KWD "0.00195493").
 *   The customer `rate` is the exact value rates[buy] / rates[sell] × (1 − bps / 10000), with no
 *   earlier rounding, rounded DOWN once to those decimal places (./rates.ts crossValue). Amounts
 *   are computed with exactly that printed rate, so anyone can reproduce them from the answer
 *   (for fixed=buy just above a tier's bound, with the tier's least amount as well).
 *   Rounding the rate down costs the customer less than one unit of its last printed place
 *   (at most 1 part in 100,000).
 * - Rounding of amounts is always in the house's favour and never by a full minor unit or more:
 *   fixed=sell floors the buy amount (buy ≤ converted × rate < buy + 1 minor unit); fixed=buy
 *   ceils the sell amount (the converted amount × rate ≥ buy, and one minor unit less would not
 *   be enough), but at a tier's lower bound (see the markup above), where one minor unit less
 *   would get the dearer tier and not be enough either.
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
 * The least sell minor units whose value in the tier currency (measure) is at least `lo`: where a
 * tier starts, in the sell currency.
 */
function leastMeasuring(table: RateTable, from: string, to: string, lo: number): number {
  if (lo <= 0) return 0;
  const per = crossValue(table, from, to, pow10(minorUnits(to) - minorUnits(from)), 40, Big.roundHalfEven);
  const first = new Up(lo).div(per).round(0, Big.roundUp);
  if (first.gt(MAX_SAFE)) return Number.MAX_SAFE_INTEGER;
  // The estimate is within a unit or two of the exact answer; measure() decides.
  let c = first.toNumber();
  while (c > 0 && measure(table, c - 1, from, to) >= lo) c--;
  while (c < Number.MAX_SAFE_INTEGER && measure(table, c, from, to) < lo) c++;
  return c;
}

/**
 * fixed=buy's markup and amount converted (see the header): of the plan's tiers, the one whose
 * least amount converted that buys `buyMinor` (what its rate needs, or the tier's least amount if
 * that is more) is the least, among those that stay within their tier. Null when even the open
 * tier would need more than the largest exact number.
 */
function leastSellForFixedBuy<T extends { perMinor: Big }>(
  plan: PricingPlan,
  table: RateTable,
  sell: string,
  buyMinor: number,
  priced: (bps: number) => T,
): { at: T; converted: number } | null {
  let best: { at: T; converted: number } | null = null;
  let lo = 0; // the least measure of the tier, in the tier currency's minor units
  for (const tier of plan.tiers) {
    const hi = tier.up_to === null ? null : parseAmount(plan.tier_currency, tier.up_to);
    const at = priced(tier.bps);
    const needed = convertedFor(buyMinor, at.perMinor);
    if (needed.lte(MAX_SAFE)) {
      const converted = Math.max(needed.toNumber(), leastMeasuring(table, sell, plan.tier_currency, lo));
      const inTier = hi === null || measure(table, converted, sell, plan.tier_currency) <= hi;
      if (inTier && (best === null || converted < best.converted)) best = { at, converted };
    }
    if (hi === null) break;
    lo = hi + 1;
  }
  return best;
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
  let leastConverted = 0;
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
    const least = leastSellForFixedBuy(plan, table, sell, given, priced);
    if (!least) throw tooLarge();
    chosen = least.at;
    leastConverted = least.converted;
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
    const s = new Big(leastConverted).plus(feeMinor);
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
