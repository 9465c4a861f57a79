/**
 * account_ref: what a customer quotes as the reference of a bank transfer to fund their account,
 * so incoming money finds its balance. A letter for the type (P or B), seven random digits and a
 * Luhn check digit, so that a mistyped reference is recognised instead of crediting someone else.
 */
export function newAccountRef(type: "Personal" | "Business"): string {
  const digits = Array.from(crypto.getRandomValues(new Uint8Array(7)), (b) => b % 10);
  digits[0] = (digits[0] % 9) + 1; // no leading zero: references are read aloud and typed
  return `${type === "Business" ? "B" : "P"}${digits.join("")}${luhnCheckDigit(digits)}`;
}

export function isValidAccountRef(ref: string): boolean {
  const m = /^[PB](\d{8})$/.exec(ref.trim().toUpperCase());
  if (!m) return false;
  const digits = [...m[1]].map(Number);
  return luhnCheckDigit(digits.slice(0, 7)) === digits[7];
}

function luhnCheckDigit(digits: number[]): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    // Doubling starts from the rightmost payload digit.
    let d = digits[digits.length - 1 - i];
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}
