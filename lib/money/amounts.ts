/**
 * Amounts as people write them: decimal strings with at most the currency's digits ("100",
 * "100.50", "15000", "1.250"), read into integers of minor units, and written back with exactly the
 * currency's digits. Pure rules, in lib/ because the call contracts check amounts with them too;
 * server/money/amounts.ts turns a problem into the refusal of a request.
 *
 * Only plain non-negative decimals are read: digits, optionally a point and at most the currency's
 * number of decimal places. Surrounding white space is trimmed. Refused, each with its own words:
 * signs ("-5", "+5"), thousands separators ("1,000.00": a comma is a decimal point in much of
 * Europe, so guessing is unsafe), exponent notation ("1e3"), a bare point (".5", "5."), more
 * decimal places than the currency has (even zeros: "100.000" for GBP), and amounts above
 * Number.MAX_SAFE_INTEGER minor units.
 */
import { CURRENCIES, type CurrencyCode } from "./currencies.ts";

/** An amount read: its minor units, or what is wrong with it, in words for the person who wrote it. */
export type AmountReading = { minor: number; problem?: undefined } | { minor?: undefined; problem: string };

const PLAIN = /^(\d+)(?:\.(\d+))?$/;

/** A decimal string in a currency → integer minor units ("100.5" GBP → 10050; "1.25" KWD → 1250). */
export function readAmount(code: CurrencyCode, text: unknown): AmountReading {
  const digits = CURRENCIES[code].minorUnits;
  if (typeof text !== "string") return { problem: "The amount must be written as a decimal number." };
  const s = text.trim();
  if (s === "") return { problem: "Enter an amount." };
  const m = PLAIN.exec(s);
  if (!m) return { problem: notPlain(s) };
  const [, whole, frac = ""] = m;
  if (frac.length > digits) {
    return {
      problem: digits === 0
        ? `${code} amounts have no decimal places.`
        : `${code} amounts have at most ${digits} decimal places.`,
    };
  }
  const minor = BigInt(whole + frac.padEnd(digits, "0"));
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) return { problem: "The amount is too large." };
  return { minor: Number(minor) };
}

/** What is wrong with an amount that is not plain digits with an optional point. */
function notPlain(s: string): string {
  if (/^[-−]/.test(s)) return "Amounts cannot be negative.";
  if (/^\+/.test(s)) return "Write the amount without a + sign.";
  if (/^[\d.]*[eE][-+]?\d*$/.test(s)) return "Write the amount as plain digits, without exponent notation.";
  if (/^[\d.,' \u00a0\u202f]+$/.test(s) && /\d/.test(s)) {
    return "Write the amount without thousands separators or spaces, with a point before any decimals (1000.00).";
  }
  return "The amount must be a number such as 100 or 100.50.";
}

/**
 * Integer minor units → a decimal string with exactly the currency's digits (10050 GBP →
 * "100.50", 15000 JPY → "15000", 1250 KWD → "1.250", -500 GBP → "-5.00"). A value that is not a
 * safe integer is a programming error, not a customer's: a RangeError.
 */
export function formatMinor(code: CurrencyCode, minor: number): string {
  const digits = CURRENCIES[code].minorUnits;
  if (!Number.isSafeInteger(minor)) {
    throw new RangeError(`formatAmount: ${minor} is not a safe integer of minor units.`);
  }
  const sign = minor < 0 ? "-" : "";
  const abs = String(Math.abs(minor));
  if (digits === 0) return sign + abs;
  const padded = abs.padStart(digits + 1, "0");
  return `${sign}${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
}
