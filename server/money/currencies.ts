/**
 * The currencies of lib/money/currencies.ts, as the server's money code uses them: looking one up
 * refuses an unknown code with a MoneyError. Amounts are integers of minor units everywhere inside
 * the server; see ./amounts.ts for turning them into decimal strings and back.
 */
import { CURRENCIES, CURRENCY_CODES, describe, isCurrency } from "../../lib/money/currencies.ts";
import type { Currency } from "../../lib/money/currencies.ts";
import { MoneyError } from "./errors.ts";

export { CURRENCIES, CURRENCY_CODES, describe, isCurrency };
export type { Currency, CurrencyCode } from "../../lib/money/currencies.ts";

/** The number of decimal places of a currency; throws a MoneyError for an unknown code. */
export function minorUnits(code: string): 0 | 2 | 3 {
  return currency(code).minorUnits;
}

/** The currency of a code; throws a MoneyError for an unknown code. */
export function currency(code: string): Currency {
  if (!isCurrency(code)) throw new MoneyError(`${describe(code)} is not a currency we support.`, "currency");
  return CURRENCIES[code];
}

/** Every supported currency as GET currencies answers it. */
export function currencyList(): { code: string; name: string; minor_units: number }[] {
  return CURRENCY_CODES.map((code) => ({
    code,
    name: CURRENCIES[code].name,
    minor_units: CURRENCIES[code].minorUnits,
  }));
}
