/**
 * Arithmetic on amounts as the API writes them (decimal strings with the currency's digits), exact:
 * the money rules of lib/money (read into integers of minor units, written back), which the server
 * and the call contracts use too.
 */
import { formatMinor, readAmount } from "../../lib/money/amounts.ts";
import { isCurrency } from "../../lib/money/currencies.ts";

/** `amount` plus (sign 1) or minus (sign -1) `delta`, both in `currency`; `amount` if either is unreadable. */
export function addAmount(currency: string, amount: string, delta: string, sign: 1 | -1): string {
  if (!isCurrency(currency)) return amount;
  const a = readAmount(currency, amount).minor;
  const d = readAmount(currency, delta).minor;
  if (a === undefined || d === undefined) return amount;
  return formatMinor(currency, a + sign * d);
}

/** Whether an amount is more than zero. */
export const isPositive = (amount: string): boolean => /[1-9]/.test(amount);

/**
 * Whether `amount` is more than `available`, both in `currency`; false when either is unreadable
 * (the server then names what is wrong with it).
 */
export function exceeds(currency: string, amount: string, available: string): boolean {
  if (!isCurrency(currency)) return false;
  const a = readAmount(currency, amount.trim()).minor;
  const b = readAmount(currency, available).minor;
  return a !== undefined && b !== undefined && a > b;
}

/**
 * Why an amount is not offered a quote: it is more than the balance's available amount (the
 * convert form sells it, the payment form sends it). The server refuses it too, when the
 * conversion or payment is made (422 "Not enough ...").
 */
export function overBalance(currency: string, available: string | undefined, verb: "sell" | "send" = "sell"): string {
  return available === undefined || !isPositive(available)
    ? `You have no ${currency} available to ${verb}.`
    : `That is more than your available ${available} ${currency}.`;
}

/**
 * `amount` written with `currency`'s decimal places, when that says the same number: an amount kept
 * while its currency changes ("1000.00" GBP becomes "1000" in JPY, "5" KWD becomes "5.00" in GBP).
 * Only zeros are dropped, never a digit that counts: "1000.50" stays as typed in JPY, and the
 * server's refusal names what is wrong with it. Blank or unreadable text is kept too.
 */
export function inCurrency(currency: string, amount: string): string {
  if (!isCurrency(currency)) return amount;
  const text = amount.trim();
  const reading = readAmount(currency, text.includes(".") ? text.replace(/\.?0+$/, "") : text);
  return reading.minor === undefined ? amount : formatMinor(currency, reading.minor);
}
