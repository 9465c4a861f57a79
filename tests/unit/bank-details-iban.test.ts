import { composeIBAN, friendlyFormatIBAN } from "ibantools";
import { describe, expect, test } from "vitest";
import { ibanPrefix, usesIban } from "../../lib/bank-details/countries.ts";
import { detailProblem, tidyDetail } from "../../lib/bank-details/formats.ts";
import registry from "../fixtures/iban-registry-examples.json" with { type: "json" };

const EXAMPLES = Object.entries(registry.ibans);

/** The IBAN with the digit at `at` (counted from the end) replaced by another digit. */
function oneDigitChanged(iban: string): string {
  const at = [...iban].findLastIndex((ch, i) => i >= 4 && /[0-9]/.test(ch));
  const digit = Number(iban[at]);
  return iban.slice(0, at) + String((digit + 1) % 10) + iban.slice(at + 1);
}

/** The IBAN with the last two neighbouring, different characters of its BBAN swapped. */
function twoSwapped(iban: string): string {
  for (let i = iban.length - 2; i >= 4; i--) {
    if (iban[i] !== iban[i + 1]) return iban.slice(0, i) + iban[i + 1] + iban[i] + iban.slice(i + 2);
  }
  throw new Error(`no two different neighbours in ${iban}`);
}

describe("IBANs: the registry's examples are accepted", () => {
  test("the example IBAN of every country in SWIFT's IBAN registry is accepted for a bank in that country", () => {
    expect(EXAMPLES.length).toBe(89);
    const refused = EXAMPLES.map(([country, iban]) => [country, iban, detailProblem("iban", iban, country)])
      .filter(([, , problem]) => problem !== null);
    expect(refused).toEqual([]);
  });

  test("they are accepted as customers type them: in groups of four, in lower case", () => {
    const refused = EXAMPLES.map(([country, iban]) => [country, friendlyFormatIBAN(iban)!.toLowerCase()])
      .filter(([country, typed]) => detailProblem("iban", typed, country) !== null);
    expect(refused).toEqual([]);
  });

  test("pasted from a PDF or a web page, with the invisible characters those put between groups: accepted, stored without them", () => {
    // Zero-width space, word joiner, soft hyphen, zero-width no-break space, no-break space.
    for (const gap of ["\u200B", "\u2060", "\u00AD", "\uFEFF", "\u00A0"]) {
      const pasted = `DE89${gap}3704${gap}0044${gap}0532${gap}0130${gap}00`;
      expect(detailProblem("iban", pasted, "DE"), JSON.stringify(gap)).toBeNull();
      expect(tidyDetail("iban", pasted)).toBe("DE89370400440532013000");
    }
    expect(tidyDetail("sort_code", "60\u200B-16\u200B-13")).toBe("601613");
  });

  test("a bank in a territory is paid with the IBAN its banks use: Jersey's start with GB, French Guiana's with FR", () => {
    expect(detailProblem("iban", registry.ibans.GB, "JE")).toBeNull();
    expect(detailProblem("iban", registry.ibans.FR, "GF")).toBeNull();
    expect(detailProblem("iban", registry.ibans.FI, "AX")).toBeNull();
    expect(ibanPrefix("JE")).toBe("GB");
  });

  test("countries outside the IBAN registry do not use IBANs", () => {
    for (const country of ["US", "IN", "AU", "CA", "JP", "HK", "SG", "NZ", "ZA"]) expect(usesIban(country)).toBe(false);
    for (const [country] of EXAMPLES) expect(usesIban(country)).toBe(true);
  });
});

describe("IBANs: mistakes are refused", () => {
  test.each(EXAMPLES)("%s: one digit changed is refused", (country, iban) => {
    expect(detailProblem("iban", oneDigitChanged(iban), country)).toMatch(/IBAN is not valid|inside this IBAN/);
  });

  test.each(EXAMPLES)("%s: two neighbouring characters swapped are refused", (country, iban) => {
    expect(detailProblem("iban", twoSwapped(iban), country)).toMatch(/IBAN/);
  });

  test.each(EXAMPLES)(
    "%s: a character too few or too many is refused, saying how long the IBAN is",
    (country, iban) => {
      const expected = `Enter the ${iban.length}-character IBAN: it starts with ${country}.`;
      expect(detailProblem("iban", iban.slice(0, -1), country)).toBe(expected);
      expect(detailProblem("iban", `${iban}0`, country)).toBe(expected);
    },
  );

  test.each(EXAMPLES)("%s: another country's IBAN is refused", (country, iban) => {
    const other = country === "DE" ? "FR" : "DE";
    expect(detailProblem("iban", iban, other)).toBe(
      `This IBAN is for a bank in ${new Intl.DisplayNames(["en"], { type: "region" }).of(country)}, not ${
        other === "DE" ? "Germany" : "France"
      }: check the IBAN or the bank's country.`,
    );
  });

  test("the country letters changed are refused: the IBAN no longer fits, or names another country", () => {
    expect(detailProblem("iban", "AT89370400440532013000", "AT")).toBe(
      "Enter the 20-character IBAN: it starts with AT.",
    );
    expect(detailProblem("iban", "AT89370400440532013000", "DE")).toMatch(/for a bank in Austria, not Germany/);
    expect(detailProblem("iban", "XX89370400440532013000", "DE")).toBe(
      "Enter the 22-character IBAN: it starts with DE.",
    );
  });

  test("the issue's example: a UK IBAN a character short asks for the 22 characters starting with GB", () => {
    expect(detailProblem("iban", "GB29 NWBK 6016 1331 9268 1", "GB")).toBe(
      "Enter the 22-character IBAN: it starts with GB.",
    );
  });

  test("a letter where the registry wants a digit is refused", () => {
    expect(detailProblem("iban", "DE89370400440532O13000", "DE")).toBe(
      "This IBAN has a letter or digit in the wrong place: check it against the recipient's bank details.",
    );
  });

  test("an account number that fails its country's own check digits is refused even when the IBAN's add up", () => {
    // Belgium's BBAN ends in a mod-97 check of the rest; the IBAN's check digits are recomputed to match.
    const iban = composeIBAN({ countryCode: "BE", bban: "539007547035" })!;
    expect(iban).toMatch(/^BE[0-9]{2}539007547035$/);
    expect(detailProblem("iban", iban, "BE")).toBe(
      "The account number inside this IBAN is not valid: check the IBAN with the recipient.",
    );
  });

  test("a Swiss QR-IBAN, which only takes QR-bill payments, is refused", () => {
    expect(detailProblem("iban", "CH44 3199 9123 0008 8901 2", "CH")).toMatch(/QR-IBAN/);
  });

  test("a bank in a country without IBANs gets no IBAN check, it is told they do not exist there", () => {
    expect(detailProblem("iban", registry.ibans.DE, "US")).toBe("Banks in United States do not use IBANs.");
  });
});
