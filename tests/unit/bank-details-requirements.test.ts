import { readdirSync, readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { rolldown } from "rolldown";
import { describe, expect, test } from "vitest";
import { checkBankDetails } from "../../lib/bank-details/checks.ts";
import { COUNTRIES_NOT_PAID, COUNTRY_CODES, ibanPrefix, SEPA_COUNTRIES } from "../../lib/bank-details/countries.ts";
import { IBAN_EXAMPLES } from "../../lib/bank-details/iban-examples.ts";
import {
  type BankDetailsRequirement,
  PAYABLE_CURRENCIES,
  requirementsFor,
  type Scheme,
} from "../../lib/bank-details/requirements.ts";
import { countryOutsideEea, isSepaCountry } from "../../server/bank-files/sepa-countries.ts";
import { CURRENCY_CODES } from "../../server/money/currencies.ts";
import { validateBankDetails } from "../../server/recipients/bank-details.ts";
import registry from "../fixtures/iban-registry-examples.json" with { type: "json" };

function requirement(currency: string, country?: string): BankDetailsRequirement {
  const found = requirementsFor(currency, country);
  if (!found.ok) throw new Error(`${currency} ${country}: ${found.message}`);
  return found.requirement;
}

/** "key*" for a required field, "key" for an optional one. */
const fieldsOf = (r: BankDetailsRequirement) => r.fields.map((f) => f.required ? `${f.key}*` : f.key);

/** Every currency with every bank country it can be paid to. */
const EVERY_PAIR = PAYABLE_CURRENCIES.flatMap((currency) =>
  requirement(currency).countries.map((country) => [currency, country] as const)
);

describe("the requirements table", () => {
  test("covers exactly the currencies the portal holds", () => {
    expect([...PAYABLE_CURRENCIES]).toEqual([...CURRENCY_CODES]);
  });

  test("each currency has a home country and the scheme its banks are paid by", () => {
    const homes = Object.fromEntries(PAYABLE_CURRENCIES.map((c) => {
      const r = requirement(c);
      return [c, `${r.country} ${r.scheme}`];
    }));
    expect(homes).toEqual({
      AED: "AE local_iban",
      AUD: "AU becs",
      BHD: "BH local_iban",
      CAD: "CA eft",
      CHF: "CH local_iban",
      CZK: "CZ local_iban",
      DKK: "DK local_iban",
      EUR: "DE sepa",
      GBP: "GB faster_payments",
      HKD: "HK swift",
      HUF: "HU local_iban",
      INR: "IN imps",
      JPY: "JP swift",
      KWD: "KW local_iban",
      NOK: "NO local_iban",
      NZD: "NZ swift",
      PLN: "PL local_iban",
      SEK: "SE local_iban",
      SGD: "SG swift",
      USD: "US ach",
      ZAR: "ZA swift",
    });
  });

  test("each scheme asks for the issue's fields", () => {
    const byScheme: Partial<Record<Scheme, string[]>> = {};
    for (
      const [currency, country] of [
        ["EUR", "FR"],
        ["CHF", "CH"],
        ["GBP", "GB"],
        ["USD", "US"],
        ["INR", "IN"],
        ["AUD", "AU"],
        ["CAD", "CA"],
        ["USD", "JP"],
      ] as const
    ) {
      const r = requirement(currency, country);
      byScheme[r.scheme] = fieldsOf(r);
    }
    expect(byScheme).toEqual({
      sepa: ["iban*", "bic"],
      local_iban: ["iban*"],
      faster_payments: ["sort_code*", "account_number*"],
      ach: ["routing_number*", "account_number*", "account_type*"],
      imps: ["ifsc*", "account_number*"],
      becs: ["bsb*", "account_number*"],
      eft: ["institution_number*", "transit_number*", "account_number*"],
      swift: ["account_number*", "bic*"],
    });
  });

  test("a SEPA payment needs the BIC only for a bank outside the EEA", () => {
    for (const country of ["DE", "FR", "IE", "NO", "GF", "AX"]) {
      expect(fieldsOf(requirement("EUR", country))).toEqual(["iban*", "bic"]);
    }
    for (const country of ["CH", "GB", "MC", "SM", "JE", "PM"]) {
      expect(fieldsOf(requirement("EUR", country))).toEqual(["iban*", "bic*"]);
    }
  });

  test("every recipient paid by SEPA fits a SEPA file: its IBAN is a SEPA country's, with a BIC where the file needs one", () => {
    const ourIban = registry.ibans.DE;
    for (const country of SEPA_COUNTRIES) {
      const r = requirement("EUR", country);
      expect(r.scheme).toBe("sepa");
      const prefix = ibanPrefix(country)!;
      expect(isSepaCountry(prefix)).toBe(true);
      const bicRequired = r.fields.find((f) => f.key === "bic")!.required;
      if (countryOutsideEea(ourIban, registry.ibans[prefix as keyof typeof registry.ibans]) !== null) {
        expect(bicRequired).toBe(true);
      }
    }
  });

  test("EUR, GBP and USD reach banks elsewhere by SWIFT: IBAN and BIC where IBANs are used, else account number and BIC", () => {
    expect(requirement("EUR", "TR").scheme).toBe("swift");
    expect(fieldsOf(requirement("EUR", "TR"))).toEqual(["iban*", "bic*"]);
    expect(fieldsOf(requirement("GBP", "DE"))).toEqual(["iban*", "bic*"]);
    expect(fieldsOf(requirement("USD", "MX"))).toEqual(["account_number*", "bic*"]);
    expect(fieldsOf(requirement("EUR", "RS"))).toEqual(["iban*", "bic*"]);
    expect(requirement("GBP", "GB")).toMatchObject({
      scheme: "faster_payments",
      scheme_name: "UK bank transfer (Faster Payments)",
    });
  });

  test("a pair we cannot pay is refused, naming the input at fault in the customer's words", () => {
    expect(requirementsFor("XYZ", "FR")).toEqual({
      ok: false,
      field: "currency",
      message: "We cannot pay recipients in XYZ: choose another currency.",
    });
    expect(requirementsFor("<b>", "FR")).toMatchObject({
      field: "currency",
      message: expect.stringMatching(/this currency/),
    });
    expect(requirementsFor("INR", "US")).toEqual({
      ok: false,
      field: "country",
      message: "We pay INR only to banks in India.",
    });
    expect(requirementsFor("CHF", "DE")).toMatchObject({
      message: "We pay CHF only to banks in Switzerland or Liechtenstein.",
    });
    expect(requirementsFor("EUR", "UK")).toMatchObject({
      field: "country",
      message: "Choose the country of the recipient's bank.",
    });
    expect(requirementsFor("EUR", "KP")).toMatchObject({
      field: "country",
      message: "We cannot make payments to North Korea.",
    });
    expect(requirementsFor("USD", "RU")).toMatchObject({ field: "country" });
  });

  test("the countries a currency can be paid to leave out the countries we do not pay", () => {
    const usd = requirement("USD").countries;
    for (const country of COUNTRIES_NOT_PAID) expect(usd).not.toContain(country);
    expect(usd.length).toBe(COUNTRY_CODES.length - COUNTRIES_NOT_PAID.size);
    expect(requirement("DKK").countries).toEqual(["DK", "FO", "GL"]);
    expect(requirement("EUR").countries).toEqual(expect.arrayContaining([...SEPA_COUNTRIES]));
  });

  test("every field of every pair has a label, a hint and an example that its own rule and pattern accept", () => {
    const problems: string[] = [];
    for (const [currency, country] of EVERY_PAIR) {
      const r = requirement(currency, country);
      const examples = Object.fromEntries(r.fields.map((f) => [f.key, f.example]));
      const { details, problems: refused } = checkBankDetails(r, examples);
      for (const [key, message] of Object.entries(refused)) problems.push(`${currency} ${country} ${key}: ${message}`);
      for (const f of r.fields) {
        if (!f.label || !f.hint || !f.example) problems.push(`${currency} ${country} ${f.key}: text missing`);
        const tidied = details[f.key];
        if (tidied !== undefined && !new RegExp(`^(?:${f.pattern})$`).test(tidied)) {
          problems.push(`${currency} ${country} ${f.key}: pattern ${f.pattern} refuses ${tidied}`);
        }
      }
    }
    expect(EVERY_PAIR.length).toBeGreaterThan(700);
    expect(problems).toEqual([]);
  });

  test("the server accepts every example too, the UK modulus check included", () => {
    const refused = EVERY_PAIR.flatMap(([currency, country]) => {
      const r = requirement(currency, country);
      try {
        validateBankDetails(currency, country, Object.fromEntries(r.fields.map((f) => [f.key, f.example])));
        return [];
      } catch (e) {
        return [`${currency} ${country}: ${(e as Error).message}`];
      }
    });
    expect(refused).toEqual([]);
  });

  test("the IBAN examples shown are the registry's", () => {
    expect(IBAN_EXAMPLES).toEqual(registry.ibans);
    expect(requirement("EUR", "FR").fields[0]).toMatchObject({
      label: "IBAN",
      example: "FR1420041010050500013M02606",
      hint: "27 characters, starting with FR. It is on the recipient's bank statement.",
    });
    expect(requirement("EUR", "GF").fields[0].example).toBe(registry.ibans.FR);
  });

  test("the account type offers checking and savings", () => {
    expect(requirement("USD").fields.find((f) => f.key === "account_type")?.options).toEqual([
      { value: "checking", label: "Checking" },
      { value: "savings", label: "Savings" },
    ]);
  });
});

describe("the rules in the browser", () => {
  const LIB = new URL("../../lib/bank-details/", import.meta.url);

  test("lib/bank-details imports no server, database or route code, so an island can use it", () => {
    const imports = readdirSync(LIB).flatMap((name) =>
      [...readFileSync(new URL(name, LIB), "utf8").matchAll(/from\s+["']([^"']+)["']/g)].map((m) => m[1])
    );
    expect(imports.filter((path) => /(^|\/)(server|db|routes)\//.test(path))).toEqual([]);
  });

  test("the typing-time checks an island imports stay under 8 KB of gzip JavaScript", async () => {
    const bundle = await rolldown({
      input: new URL("checks.ts", LIB).pathname,
      platform: "browser",
      logLevel: "silent",
    });
    const { output: [chunk] } = await bundle.generate({ format: "esm", minify: true });
    await bundle.close();
    expect(chunk.moduleIds.some((id) => id.includes("ibantools"))).toBe(true);
    expect(gzipSync(chunk.code, { level: 9 }).length).toBeLessThan(8 * 1024);
  });
});
