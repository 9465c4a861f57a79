/**
 * Amounts: integers of minor units inside (pence, cents, yen, fils), decimal strings with exactly
 * the currency's digits outside ("100.00", "15000", "1.250", "-5.00"). The rules of reading and
 * writing them are lib/money/amounts.ts; here a problem becomes a MoneyError on the field "amount".
 */
import { formatMinor, readAmount } from "../../lib/money/amounts.ts";
import { currency } from "./currencies.ts";
import { MoneyError } from "./errors.ts";
import type { CurrencyCode } from "../../lib/money/currencies.ts";

export { MoneyError };

/**
 * A decimal string in a currency → integer minor units ("100.5" GBP → 10050; "15000" JPY → 15000;
 * "1.25" KWD → 1250). Throws a MoneyError naming the problem; `field` is "amount".
 */
export function parseAmount(code: string, text: string): number {
  const reading = readAmount(currency(code).code as CurrencyCode, text);
  if (reading.problem !== undefined) throw new MoneyError(reading.problem, "amount");
  return reading.minor;
}

/**
 * Integer minor units → a decimal string with exactly the currency's digits (10050 GBP →
 * "100.50", -500 GBP → "-5.00"). Throws a MoneyError for an unknown currency, and a RangeError for
 * a value that is not a safe integer (a programming error, not a customer's).
 */
export function formatAmount(code: string, minor: number): string {
  return formatMinor(currency(code).code as CurrencyCode, minor);
}

/** True when `text` parses as an amount of `code` (no exceptions). */
export function isAmount(code: string, text: unknown): boolean {
  try {
    parseAmount(code, text as string);
    return true;
  } catch (e) {
    if (e instanceof MoneyError) return false;
    throw e;
  }
}
