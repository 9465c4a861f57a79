/**
 * Mid-market rates: a rate table, cross rates through its base, and the GET rates answer. What an
 * administrator may send as a table is the call's contract (rateTableUpdate in
 * lib/contracts/console-money.ts).
 *
 * A table reads "one unit of the base buys `rates[X]` of X": with base EUR, `USD: "1.0823"` means
 * 1 EUR = 1.0823 USD. The base's own rate is always "1" (the contract adds it when it is missing
 * and refuses any other value). Rates are decimal strings, never floating point.
 *
 * Cross rates go through the base: from → base → to, i.e. rates[to] / rates[from]. crossRate
 * answers that with big.js to CROSS_RATE_DECIMALS (30) decimal places, rounded half-even.
 * Wherever a rate or an amount is rounded for good (printed rates, quote amounts, tier
 * measurement), crossValue is used instead: it computes value × rates[to] / rates[from] and
 * rounds the exact result once, so no earlier rounding of the cross rate can move it.
 *
 * Printed precision (rateDecimals, formatRate): RATE_DECIMALS (6) decimal places, or more for a
 * rate below 0.1 so that at least RATE_SIGNIFICANT_DIGITS (6) significant digits show
 * ("1.172345", "162.345678", "0.00205432" for JPY→KWD). A fixed 6 decimal places alone would
 * print JPY→KWD with 4 significant digits and HUF→KWD with 3. The mid rate is printed rounded
 * half-even; the customer rate of a quote is rounded down (see ./quote.ts).
 *
 * INDICATIVE_RATES is the embedded set loaded on first start, labelled `source: "indicative"`
 * with its date: approximate ECB-style reference values, not live prices.
 */
import Big from "big.js";
import type { z } from "zod";
import type { ratesAnswer } from "../../lib/contracts/money.ts";
import { CURRENCY_CODES, type CurrencyCode, describe, isCurrency } from "./currencies.ts";
import { MoneyError } from "./errors.ts";

export interface RateTable {
  /** The currency every rate is quoted against (1 base = rates[X] X). */
  base: string;
  /** The date the rates are for, YYYY-MM-DD. */
  as_of: string;
  /** Where they come from: "indicative" for the embedded set, "ecb", "admin". */
  source: string;
  /** Currency code → positive decimal string; the base's own rate is "1". */
  rates: Record<string, string>;
}

/** The GET rates answer (lib/contracts/money.ts). */
export type RatesAnswer = z.output<typeof ratesAnswer>;

export const CROSS_RATE_DECIMALS = 30;
export const RATE_DECIMALS = 6;
export const RATE_SIGNIFICANT_DIGITS = 6;

/** A big.js constructor of our own, so that the global Big.DP and Big.RM are never changed. */
const Dec = Big();
Dec.DP = CROSS_RATE_DECIMALS;
Dec.RM = Big.roundHalfEven;

/**
 * The embedded set of indicative mid rates against EUR, loaded on first start. Indicative only:
 * approximate reference values of its date, to be replaced by an administrator or the rate
 * provider. AED, KWD and BHD (which the ECB does not publish) follow their US dollar pegs.
 */
export const INDICATIVE_RATES: Readonly<RateTable> = Object.freeze({
  base: "EUR",
  as_of: "2026-11-20",
  source: "indicative",
  rates: Object.freeze({
    AED: "4.2417",
    AUD: "1.7850",
    BHD: "0.43428",
    CAD: "1.6280",
    CHF: "0.9260",
    CZK: "24.190",
    DKK: "7.4690",
    EUR: "1",
    GBP: "0.87900",
    HKD: "8.9900",
    HUF: "383.50",
    INR: "102.6000",
    JPY: "181.50",
    KWD: "0.35482",
    NOK: "11.7600",
    NZD: "2.0640",
    PLN: "4.2380",
    SEK: "10.9800",
    SGD: "1.5070",
    USD: "1.1550",
    ZAR: "19.9500",
  }) as Record<string, string>,
});

/** The rate of `code` against the table's base, as a Big; throws a MoneyError when missing. */
function baseRate(table: RateTable, code: string): Big.Big {
  if (code === table.base) return new Dec(1);
  const text = Object.hasOwn(table.rates, code) ? table.rates[code] : undefined;
  if (text === undefined) {
    throw new MoneyError(`There is no rate for ${code} in the rates of ${table.as_of}.`, "currency");
  }
  const rate = new Dec(text);
  if (rate.lte(0)) throw new MoneyError(`The rate of ${code} is not positive.`, "currency");
  return rate;
}

/**
 * How many units of `to` one unit of `from` buys, through the table's base:
 * rates[to] / rates[from], to CROSS_RATE_DECIMALS decimal places (half-even). 1 when from = to.
 */
export function crossRate(table: RateTable, from: string, to: string): Big.Big {
  if (!isCurrency(from)) throw new MoneyError(`${describe(from)} is not a currency we support.`, "currency");
  if (!isCurrency(to)) throw new MoneyError(`${describe(to)} is not a currency we support.`, "currency");
  if (from === to) return new Dec(1);
  return baseRate(table, to).div(baseRate(table, from));
}

/**
 * `value` units of `from` in units of `to` at the exact cross rate (value × rates[to] /
 * rates[from]), rounded ONCE to `decimals` places with `rounding`. Unlike crossRate, nothing is
 * rounded before that single step, so a result that is exact at `decimals` places stays exact.
 * crossValue(table, from, to, 1, 6, Big.roundHalfEven) is the mid rate printed to 6 places.
 */
export function crossValue(
  table: RateTable,
  from: string,
  to: string,
  value: Big.BigSource,
  decimals: number,
  rounding: Big.RoundingMode,
): Big.Big {
  if (!isCurrency(from)) throw new MoneyError(`${describe(from)} is not a currency we support.`, "currency");
  if (!isCurrency(to)) throw new MoneyError(`${describe(to)} is not a currency we support.`, "currency");
  if (from === to) return new Big(value).round(decimals, rounding);
  const Once = Big();
  Once.DP = decimals;
  Once.RM = rounding;
  return new Once(value).times(baseRate(table, to)).div(baseRate(table, from));
}

/**
 * The number of decimal places a rate is printed with: RATE_DECIMALS, or more when the rate is
 * below 0.1 so that RATE_SIGNIFICANT_DIGITS significant digits show.
 */
export function rateDecimals(rate: Big.Big): number {
  if (rate.eq(0)) return RATE_DECIMALS;
  // big.js keeps the exponent of the first significant digit in `e` (0.00205 → -3, 162.3 → 2).
  return Math.max(RATE_DECIMALS, RATE_SIGNIFICANT_DIGITS - 1 - rate.e);
}

/**
 * A rate as a plain decimal string with `decimals` places (by default rateDecimals(rate)),
 * rounded half-even unless told otherwise.
 */
export function formatRate(
  rate: Big.Big,
  decimals: number = rateDecimals(rate),
  rounding: Big.RoundingMode = Big.roundHalfEven,
): string {
  return rate.toFixed(decimals, rounding);
}

/** The GET rates answer: every currency of the table against `base`, printed with formatRate. */
export function ratesFor(table: RateTable, base: string): RatesAnswer {
  if (!isCurrency(base)) throw new MoneyError(`${describe(base)} is not a currency we support.`, "base");
  baseRate(table, base); // the requested base must itself have a rate
  const rates: Record<string, string> = {};
  for (const code of CURRENCY_CODES) {
    if (code !== table.base && !Object.hasOwn(table.rates, code)) continue;
    const decimals = rateDecimals(crossRate(table, base, code));
    rates[code] = crossValue(table, base, code, 1, decimals, Big.roundHalfEven).toFixed(decimals);
  }
  return { base, as_of: table.as_of, source: table.source, indicative: table.source === "indicative", rates };
}

/**
 * A newer table completed with the currencies it lacks from an older one (the ECB publishes no
 * AED, KWD or BHD, for instance). The carried rates are re-expressed against the newer base
 * through the older table, to CROSS_RATE_DECIMALS places trimmed of trailing zeros, and listed in
 * `carried` so the caller can say which rates are older than `as_of`. Currencies the older table
 * cannot cross (no rate for the newer base) are left out.
 */
export function mergeRateTables(older: RateTable, newer: RateTable): { table: RateTable; carried: CurrencyCode[] } {
  const rates: Record<string, string> = {};
  const carried: CurrencyCode[] = [];
  const canCross = newer.base === older.base || Object.hasOwn(older.rates, newer.base);
  for (const code of CURRENCY_CODES) {
    if (code === newer.base) rates[code] = "1";
    else if (Object.hasOwn(newer.rates, code)) rates[code] = newer.rates[code];
    else if (canCross && (code === older.base || Object.hasOwn(older.rates, code))) {
      rates[code] = crossRate(older, newer.base, code).toFixed();
      carried.push(code);
    }
  }
  return { table: { base: newer.base, as_of: newer.as_of, source: newer.source, rates }, carried };
}
