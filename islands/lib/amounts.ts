/**
 * Arithmetic on amounts as the API writes them (decimal strings, "100.00"), exact: integers of
 * minor units in between, never floating point.
 */

/** Decimal string → integer of minor units with `digits` decimals, or null for anything else. */
function toMinor(text: string, digits: number): bigint | null {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!m || (m[2] ?? "").length > digits) return null;
  return BigInt(m[1] + (m[2] ?? "").padEnd(digits, "0"));
}

function fromMinor(minor: bigint, digits: number): string {
  const negative = minor < 0n;
  const text = (negative ? -minor : minor).toString().padStart(digits + 1, "0");
  const out = digits ? `${text.slice(0, -digits)}.${text.slice(-digits)}` : text;
  return negative ? `-${out}` : out;
}

const decimalsOf = (text: string) => (text.split(".")[1] ?? "").length;

/** `amount` plus (sign 1) or minus (sign -1) `delta`, both of one currency; `amount` if unreadable. */
export function addAmount(amount: string, delta: string, sign: 1 | -1): string {
  const digits = Math.max(decimalsOf(amount), decimalsOf(delta));
  const a = toMinor(amount, digits);
  const d = toMinor(delta, digits);
  if (a === null || d === null) return amount;
  return fromMinor(sign === 1 ? a + d : a - d, digits);
}

/** Whether an amount is more than zero. */
export const isPositive = (amount: string): boolean => /[1-9]/.test(amount);
