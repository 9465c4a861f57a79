import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { formatAmount, isAmount, MoneyError, parseAmount } from "../../server/money/amounts.ts";
import { CURRENCIES, CURRENCY_CODES, isCurrency, minorUnits } from "../../server/money/currencies.ts";

/** Runs fn and answers the MoneyError it throws (failing the test when it throws nothing or something else). */
function moneyError(fn: () => unknown): MoneyError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(MoneyError);
    return e as MoneyError;
  }
  throw new Error("expected a MoneyError, nothing was thrown");
}

describe("currencies", () => {
  test("the issue's currencies are there with their ISO 4217 minor units", () => {
    const expected: Record<string, number> = {
      GBP: 2,
      EUR: 2,
      USD: 2,
      CHF: 2,
      JPY: 0,
      AUD: 2,
      CAD: 2,
      NZD: 2,
      SEK: 2,
      NOK: 2,
      DKK: 2,
      PLN: 2,
      CZK: 2,
      HUF: 2,
      HKD: 2,
      SGD: 2,
      ZAR: 2,
      AED: 2,
      INR: 2,
      KWD: 3,
      BHD: 3,
    };
    for (const [code, digits] of Object.entries(expected)) {
      expect(isCurrency(code), code).toBe(true);
      expect(minorUnits(code), code).toBe(digits);
      expect(CURRENCIES[code as keyof typeof CURRENCIES].code).toBe(code);
      expect(CURRENCIES[code as keyof typeof CURRENCIES].name.length).toBeGreaterThan(2);
    }
    expect([...CURRENCY_CODES].sort()).toEqual(Object.keys(expected).sort());
  });

  test("unknown or wrongly written codes are not currencies", () => {
    for (const code of ["gbp", "XYZ", "", "GBPX", "toString", "__proto__", "constructor"]) {
      expect(isCurrency(code), code).toBe(false);
    }
    expect(isCurrency(undefined)).toBe(false);
    expect(moneyError(() => minorUnits("XYZ")).message).toBe('"XYZ" is not a currency we support.');
  });
});

describe("parseAmount", () => {
  test("two-decimal currencies: GBP", () => {
    expect(parseAmount("GBP", "100")).toBe(10000);
    expect(parseAmount("GBP", "100.5")).toBe(10050);
    expect(parseAmount("GBP", "100.50")).toBe(10050);
    expect(parseAmount("GBP", "0.01")).toBe(1);
    expect(parseAmount("GBP", "0")).toBe(0);
    expect(parseAmount("GBP", "007.50")).toBe(750);
    expect(parseAmount("GBP", "  12.34 ")).toBe(1234);
    expect(parseAmount("HUF", "1500.25")).toBe(150025);
  });

  test("zero-decimal currencies: JPY", () => {
    expect(parseAmount("JPY", "15000")).toBe(15000);
    expect(parseAmount("JPY", "1")).toBe(1);
    expect(moneyError(() => parseAmount("JPY", "15000.0")).message).toBe("JPY amounts have no decimal places.");
    expect(moneyError(() => parseAmount("JPY", "1.5")).message).toBe("JPY amounts have no decimal places.");
  });

  test("three-decimal currencies: KWD and BHD", () => {
    expect(parseAmount("KWD", "1.25")).toBe(1250);
    expect(parseAmount("KWD", "1.250")).toBe(1250);
    expect(parseAmount("KWD", "0.001")).toBe(1);
    expect(parseAmount("BHD", "10")).toBe(10000);
    expect(moneyError(() => parseAmount("KWD", "1.2345")).message).toBe("KWD amounts have at most 3 decimal places.");
  });

  test("more decimal places than the currency has are refused, even zeros", () => {
    const e = moneyError(() => parseAmount("GBP", "1.234"));
    expect(e.message).toBe("GBP amounts have at most 2 decimal places.");
    expect(e.field).toBe("amount");
    expect(moneyError(() => parseAmount("GBP", "100.000")).message).toBe("GBP amounts have at most 2 decimal places.");
  });

  test("signs, separators, exponents and other writing are refused with their own message", () => {
    expect(moneyError(() => parseAmount("GBP", "-5")).message).toBe("Amounts cannot be negative.");
    expect(moneyError(() => parseAmount("GBP", "-0.01")).message).toBe("Amounts cannot be negative.");
    expect(moneyError(() => parseAmount("GBP", "+5")).message).toMatch(/\+ sign/);
    expect(moneyError(() => parseAmount("GBP", "1e3")).message).toMatch(/exponent/);
    expect(moneyError(() => parseAmount("GBP", "1.5E2")).message).toMatch(/exponent/);
    expect(moneyError(() => parseAmount("GBP", "1,000.00")).message).toMatch(/thousands separators/);
    expect(moneyError(() => parseAmount("EUR", "12,50")).message).toMatch(/thousands separators/);
    expect(moneyError(() => parseAmount("GBP", "1 000")).message).toMatch(/thousands separators/);
    for (const text of [".5", "5.", "1.2.3", "abc", "£5", "5 GBP", "0x10", "Infinity", "NaN", "١٢"]) {
      expect(() => parseAmount("GBP", text), text).toThrow(MoneyError);
    }
    expect(moneyError(() => parseAmount("GBP", "")).message).toBe("Enter an amount.");
    expect(moneyError(() => parseAmount("GBP", "   ")).message).toBe("Enter an amount.");
    expect(() => parseAmount("GBP", 5 as unknown as string)).toThrow(MoneyError);
    expect(moneyError(() => parseAmount("XYZ", "5")).message).toMatch(/not a currency/);
  });

  test("amounts above Number.MAX_SAFE_INTEGER minor units are refused", () => {
    expect(parseAmount("JPY", "9007199254740991")).toBe(Number.MAX_SAFE_INTEGER);
    expect(moneyError(() => parseAmount("JPY", "9007199254740992")).message).toBe("The amount is too large.");
    expect(parseAmount("GBP", "90071992547409.91")).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => parseAmount("GBP", "90071992547409.92")).toThrow("The amount is too large.");
    expect(parseAmount("KWD", "9007199254740.991")).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => parseAmount("KWD", "9007199254740.992")).toThrow("The amount is too large.");
    expect(() => parseAmount("GBP", "1" + "0".repeat(40))).toThrow("The amount is too large.");
  });

  test("isAmount answers without throwing", () => {
    expect(isAmount("GBP", "1.00")).toBe(true);
    expect(isAmount("GBP", "1.001")).toBe(false);
    expect(isAmount("XYZ", "1")).toBe(false);
    expect(isAmount("JPY", null)).toBe(false);
  });
});

describe("formatAmount", () => {
  test("exactly the currency's digits", () => {
    expect(formatAmount("GBP", 10000)).toBe("100.00");
    expect(formatAmount("GBP", 10050)).toBe("100.50");
    expect(formatAmount("GBP", 1)).toBe("0.01");
    expect(formatAmount("GBP", 0)).toBe("0.00");
    expect(formatAmount("JPY", 15000)).toBe("15000");
    expect(formatAmount("JPY", 0)).toBe("0");
    expect(formatAmount("KWD", 1250)).toBe("1.250");
    expect(formatAmount("BHD", 5)).toBe("0.005");
    expect(formatAmount("GBP", Number.MAX_SAFE_INTEGER)).toBe("90071992547409.91");
  });

  test("negative amounts", () => {
    expect(formatAmount("GBP", -500)).toBe("-5.00");
    expect(formatAmount("GBP", -1)).toBe("-0.01");
    expect(formatAmount("JPY", -3)).toBe("-3");
    expect(formatAmount("KWD", -1)).toBe("-0.001");
  });

  test("only safe integers of a known currency", () => {
    expect(() => formatAmount("GBP", 1.5)).toThrow(RangeError);
    expect(() => formatAmount("GBP", Number.NaN)).toThrow(RangeError);
    expect(() => formatAmount("GBP", 2 ** 53)).toThrow(RangeError);
    expect(() => formatAmount("XYZ", 1)).toThrow(MoneyError);
  });
});

describe("properties", () => {
  const code = fc.constantFrom(...CURRENCY_CODES);

  test("parse(format(n)) = n for every currency and every safe integer of minor units", () => {
    fc.assert(
      fc.property(code, fc.maxSafeNat(), (c, n) => {
        const text = formatAmount(c, n);
        const digits = minorUnits(c);
        expect(text).toMatch(digits === 0 ? /^\d+$/ : new RegExp(`^\\d+\\.\\d{${digits}}$`));
        expect(parseAmount(c, text)).toBe(n);
        expect(formatAmount(c, -n)).toBe(n === 0 ? text : `-${text}`);
      }),
      { numRuns: 2000 },
    );
  });

  test("any plain decimal with at most the currency's digits parses to its exact value, and formats back canonically", () => {
    fc.assert(
      fc.property(
        code,
        fc.stringMatching(/^\d{1,12}$/),
        fc.integer({ min: -1, max: 3 }),
        fc.nat(999),
        (c, whole, fracLength, fracSeed) => {
          const digits = minorUnits(c);
          const frac = fracLength < 0 ? "" : String(fracSeed).padStart(3, "0").slice(0, fracLength);
          const text = fracLength < 0 ? whole : `${whole}.${frac}`;
          if (fracLength === 0) {
            // "12." is refused whatever the currency.
            expect(() => parseAmount(c, text)).toThrow(MoneyError);
            return;
          }
          if (frac.length > digits) {
            expect(() => parseAmount(c, text)).toThrow(`${c} amounts have`);
            return;
          }
          const exact = BigInt(whole + frac.padEnd(digits, "0"));
          const minor = parseAmount(c, text);
          expect(BigInt(minor)).toBe(exact);
          // Formatting shows the same value with exactly the currency's digits.
          const formatted = formatAmount(c, minor);
          const [w, f = ""] = formatted.split(".");
          expect(f.length).toBe(digits);
          expect(BigInt(w + f)).toBe(exact);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
