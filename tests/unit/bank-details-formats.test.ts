import { describe, expect, test } from "vitest";
import { requirementsFor } from "../../lib/bank-details/requirements.ts";
import { checkBankDetails } from "../../lib/bank-details/checks.ts";
import { detailProblem, tidyDetail } from "../../lib/bank-details/formats.ts";
import formats from "../fixtures/bank-formats.json" with { type: "json" };

/** The checks of a currency and country's requirement on these details. */
function check(currency: string, country: string, details: Record<string, string>) {
  const found = requirementsFor(currency, country);
  if (!found.ok) throw new Error(found.message);
  return checkBankDetails(found.requirement, details);
}

describe("US: ACH routing number, account number and account type", () => {
  test.each(formats.routing_numbers.valid)("routing number %s, which a bank publishes, is accepted", (number) => {
    expect(detailProblem("routing_number", number, "US")).toBeNull();
  });

  test.each(Object.entries(formats.routing_numbers.invalid))("routing number %s (%s) is refused", (number) => {
    expect(detailProblem("routing_number", number, "US")).toMatch(
      /^(Enter the 9-digit|This routing number is not valid)/,
    );
  });

  test("a complete set is accepted and stored tidied; the account type is checking or savings", () => {
    expect(check("USD", "US", { routing_number: "021 000 021", account_number: "12345678", account_type: "Savings" }))
      .toEqual({
        details: { routing_number: "021000021", account_number: "12345678", account_type: "savings" },
        problems: {},
      });
    expect(check("USD", "US", { routing_number: "021000021", account_number: "123", account_type: "current" }).problems)
      .toEqual({
        account_number: "Enter the account number: 4 to 17 digits.",
        account_type: "Choose checking or savings.",
      });
  });

  test("every field is required", () => {
    expect(check("USD", "US", {}).problems).toEqual({
      routing_number: "Enter the ACH routing number.",
      account_number: "Enter the account number.",
      account_type: "Choose checking or savings.",
    });
  });
});

describe("India: IFSC and account number", () => {
  test.each(formats.ifsc.valid)("IFSC %s is accepted", (code) => {
    expect(detailProblem("ifsc", code, "IN")).toBeNull();
  });

  test.each(Object.entries(formats.ifsc.invalid))("IFSC %s (%s) is refused, saying what an IFSC looks like", (code) => {
    expect(detailProblem("ifsc", code, "IN")).toBe(
      "Enter the 11-character IFSC code: 4 letters for the bank, a zero, then 6 letters or digits for the branch.",
    );
  });

  test("the account number has 9 to 18 digits", () => {
    expect(check("INR", "IN", { ifsc: "sbin0005943", account_number: "123456789" })).toEqual({
      details: { ifsc: "SBIN0005943", account_number: "123456789" },
      problems: {},
    });
    expect(check("INR", "IN", { ifsc: "SBIN0005943", account_number: "12345678" }).problems).toEqual({
      account_number: "Enter the account number: 9 to 18 digits.",
    });
  });
});

describe("Australia: BSB and account number", () => {
  test.each(formats.bsb.valid)("BSB %s is accepted", (bsb) => {
    expect(detailProblem("bsb", bsb, "AU")).toBeNull();
  });

  test.each(Object.entries(formats.bsb.invalid))("BSB %s (%s) is refused", (bsb) => {
    expect(detailProblem("bsb", bsb, "AU")).toBe("Enter the 6-digit BSB code, for example 062-000.");
  });

  test("the BSB is stored without its dash; the account number has 5 to 9 digits", () => {
    expect(check("AUD", "AU", { bsb: "062-000", account_number: "12345678" }).details).toEqual({
      bsb: "062000",
      account_number: "12345678",
    });
    expect(check("AUD", "AU", { bsb: "062-000", account_number: "1234567890" }).problems).toEqual({
      account_number: "Enter the account number: 5 to 9 digits.",
    });
  });
});

describe("Canada: institution, transit and account numbers", () => {
  const { institution_numbers, transit_numbers, account_numbers } = formats.canada;

  test("the published institution numbers, 5-digit transit numbers and 7 to 12-digit account numbers are accepted", () => {
    for (const n of institution_numbers.valid) expect(detailProblem("institution_number", n, "CA")).toBeNull();
    for (const n of transit_numbers.valid) expect(detailProblem("transit_number", n, "CA")).toBeNull();
    for (const n of account_numbers.valid) expect(detailProblem("ca_account_number", n, "CA")).toBeNull();
  });

  test("other lengths and letters are refused, each saying what to enter", () => {
    for (const n of institution_numbers.invalid) {
      expect(detailProblem("institution_number", n, "CA")).toBe(
        "Enter the 3-digit institution number, for example 004.",
      );
    }
    for (const n of transit_numbers.invalid) {
      expect(detailProblem("transit_number", n, "CA")).toBe("Enter the 5-digit transit number.");
    }
    for (const n of account_numbers.invalid) {
      expect(detailProblem("ca_account_number", n, "CA")).toBe("Enter the account number: 7 to 12 digits.");
    }
  });

  test("a complete set is accepted", () => {
    expect(check("CAD", "CA", { institution_number: "004", transit_number: "12345", account_number: "1234567" }))
      .toEqual({
        details: { institution_number: "004", transit_number: "12345", account_number: "1234567" },
        problems: {},
      });
  });
});

describe("BIC (SWIFT code)", () => {
  test.each(Object.entries(formats.bic.valid))("%s is accepted for a bank in %s", (bic, country) => {
    expect(detailProblem("bic", bic, country)).toBeNull();
    expect(tidyDetail("bic", bic)).toMatch(/^[A-Z0-9]{8}([A-Z0-9]{3})?$/);
  });

  test.each(Object.entries(formats.bic.invalid))("%s (%s) is refused", (bic) => {
    expect(detailProblem("bic", bic, "DE")).toMatch(/^(Enter the 8- or 11-character BIC|This is a test BIC)/);
  });

  test("a BIC of a bank in another country than the recipient's bank is refused, naming both", () => {
    expect(detailProblem("bic", "DEUTDEFF", "FR")).toBe(
      "This BIC is for a bank in Germany, not France: check the BIC or the bank's country.",
    );
  });
});

describe("SWIFT elsewhere: BIC and account number, or IBAN where the country uses IBANs", () => {
  test("USD to a bank in Japan: BIC and account number", () => {
    expect(check("USD", "JP", { bic: "BOTKJPJT", account_number: "1234567" })).toEqual({
      details: { bic: "BOTKJPJT", account_number: "1234567" },
      problems: {},
    });
    expect(check("USD", "JP", { bic: "", account_number: "12" }).problems).toEqual({
      bic: "Enter the BIC (SWIFT code).",
      account_number: "Enter the account number: 4 to 34 letters or digits.",
    });
  });

  test("USD to a bank in Turkey, which uses IBANs: BIC and IBAN", () => {
    expect(check("USD", "TR", { bic: "TGBATRIS", iban: "TR33 0006 1005 1978 6457 8413 26" }).problems).toEqual({});
    expect(check("USD", "TR", { bic: "TGBATRIS", account_number: "12345678" }).problems).toEqual({
      iban: "Enter the IBAN.",
    });
  });
});
