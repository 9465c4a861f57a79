/**
 * Amounts: integers of minor units inside (pence, cents, yen, fils), decimal strings with exactly
 * the currency's digits outside ("100.00", "15000", "1.250", "-5.00").
 *
 * parseAmount accepts plain non-negative decimals only: digits, optionally a point and at most the
 * currency's number of decimal places ("100", "100.5", "100.50" for GBP). Surrounding white space
 * is trimmed. It refuses, each with its own message: signs ("-5", "+5"), thousands separators
 * ("1,000.00": a comma is a decimal point in much of Europe, so guessing is unsafe), exponent
 * notation ("1e3"), a bare point (".5", "5."), more decimal places than the currency has (even
 * zeros: "100.000" for GBP), and amounts above Number.MAX_SAFE_INTEGER minor units.
 */
import { currency } from "./currencies.ts";
import { MoneyError } from "./errors.ts";

export { MoneyError };

const PLAIN = /^(\d+)(?:\.(\d+))?$/;

/**
 * A decimal string in a currency → integer minor units ("100.5" GBP → 10050; "15000" JPY → 15000;
 * "1.25" KWD → 1250). Throws a MoneyError naming the problem; `field` is "amount".
 */
export function parseAmount(code: string, text: string): number {
  const { minorUnits: digits } = currency(code);
  if (typeof text !== "string") throw new MoneyError("The amount must be written as a decimal number.", "amount");
  const s = text.trim();
  if (s === "") throw new MoneyError("Enter an amount.", "amount");
  const m = PLAIN.exec(s);
  if (!m) {
    if (/^[-−]/.test(s)) throw new MoneyError("Amounts cannot be negative.", "amount");
    if (/^\+/.test(s)) throw new MoneyError("Write the amount without a + sign.", "amount");
    if (/^[\d.]*[eE][-+]?\d*$/.test(s)) {
      throw new MoneyError("Write the amount as plain digits, without exponent notation.", "amount");
    }
    if (/^[\d.,' \u00a0\u202f]+$/.test(s) && /\d/.test(s)) {
      throw new MoneyError(
        "Write the amount without thousands separators or spaces, with a point before any decimals (1000.00).",
        "amount",
      );
    }
    throw new MoneyError("The amount must be a number such as 100 or 100.50.", "amount");
  }
  const [, whole, frac = ""] = m;
  if (frac.length > digits) {
    throw new MoneyError(
      digits === 0
        ? `${code} amounts have no decimal places.`
        : `${code} amounts have at most ${digits} decimal places.`,
      "amount",
    );
  }
  const minor = BigInt(whole + frac.padEnd(digits, "0"));
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) throw new MoneyError("The amount is too large.", "amount");
  return Number(minor);
}

/**
 * Integer minor units → a decimal string with exactly the currency's digits (10050 GBP →
 * "100.50", 15000 JPY → "15000", 1250 KWD → "1.250", -500 GBP → "-5.00"). Throws a MoneyError for
 * an unknown currency, and a RangeError for a value that is not a safe integer (a programming
 * error, not a customer's).
 */
export function formatAmount(code: string, minor: number): string {
  const { minorUnits: digits } = currency(code);
  if (!Number.isSafeInteger(minor)) {
    throw new RangeError(`formatAmount: ${minor} is not a safe integer of minor units.`);
  }
  const sign = minor < 0 ? "-" : "";
  const abs = String(Math.abs(minor));
  if (digits === 0) return sign + abs;
  const padded = abs.padStart(digits + 1, "0");
  return `${sign}${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
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
