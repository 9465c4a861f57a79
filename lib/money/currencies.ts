/**
 * The currencies the portal holds and converts, with their ISO 4217 minor units (the exponent:
 * JPY 0, GBP 2, KWD 3). In lib/ because both sides need the list: the server's money code and the
 * call contracts, whose schemas refuse a currency we do not support before anything runs.
 *
 * HUF has 2 minor units in ISO 4217 even though forint coins below 1 no longer circulate; we
 * follow ISO. KWD and BHD are the three-decimal currencies.
 */

export interface Currency {
  /** ISO 4217 alphabetic code, upper case. */
  readonly code: string;
  /** English name. */
  readonly name: string;
  /** ISO 4217 exponent: how many decimal places an amount has. */
  readonly minorUnits: 0 | 2 | 3;
}

const LIST = [
  { code: "AED", name: "UAE Dirham", minorUnits: 2 },
  { code: "AUD", name: "Australian Dollar", minorUnits: 2 },
  { code: "BHD", name: "Bahraini Dinar", minorUnits: 3 },
  { code: "CAD", name: "Canadian Dollar", minorUnits: 2 },
  { code: "CHF", name: "Swiss Franc", minorUnits: 2 },
  { code: "CZK", name: "Czech Koruna", minorUnits: 2 },
  { code: "DKK", name: "Danish Krone", minorUnits: 2 },
  { code: "EUR", name: "Euro", minorUnits: 2 },
  { code: "GBP", name: "Pound Sterling", minorUnits: 2 },
  { code: "HKD", name: "Hong Kong Dollar", minorUnits: 2 },
  { code: "HUF", name: "Hungarian Forint", minorUnits: 2 },
  { code: "INR", name: "Indian Rupee", minorUnits: 2 },
  { code: "JPY", name: "Japanese Yen", minorUnits: 0 },
  { code: "KWD", name: "Kuwaiti Dinar", minorUnits: 3 },
  { code: "NOK", name: "Norwegian Krone", minorUnits: 2 },
  { code: "NZD", name: "New Zealand Dollar", minorUnits: 2 },
  { code: "PLN", name: "Polish Zloty", minorUnits: 2 },
  { code: "SEK", name: "Swedish Krona", minorUnits: 2 },
  { code: "SGD", name: "Singapore Dollar", minorUnits: 2 },
  { code: "USD", name: "US Dollar", minorUnits: 2 },
  { code: "ZAR", name: "South African Rand", minorUnits: 2 },
] as const satisfies readonly Currency[];

/** A code of a currency the portal supports. */
export type CurrencyCode = (typeof LIST)[number]["code"];

/** Every supported currency by code, in alphabetical order. */
export const CURRENCIES: Readonly<Record<CurrencyCode, Currency>> = Object.freeze(
  Object.fromEntries(LIST.map((c) => [c.code, Object.freeze({ ...c })])) as Record<CurrencyCode, Currency>,
);

/** The supported codes, in alphabetical order. */
export const CURRENCY_CODES = Object.freeze(LIST.map((c) => c.code)) as readonly [CurrencyCode, ...CurrencyCode[]];

/** True for a supported currency code (exact, upper case: "GBP", not "gbp"). */
export function isCurrency(code: unknown): code is CurrencyCode {
  return typeof code === "string" && Object.hasOwn(CURRENCIES, code);
}

/** A code for an error message: the code itself when it is short, or a neutral word. */
export function describe(code: unknown): string {
  return typeof code === "string" && /^[A-Za-z]{1,8}$/.test(code) ? `"${code}"` : "That";
}
