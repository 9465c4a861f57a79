// @ts-types="../../server/recipients/uk-modulus-checking.d.ts"
import UkModulusChecking from "uk-modulus-checking";
import { composeIBAN } from "ibantools";
import { describe, expect, test } from "vitest";
import { detailProblem } from "../../lib/bank-details/formats.ts";
import { InvalidInput } from "../../server/errors.ts";
import { SORT_CODE_MISMATCH, UK_IBAN_MISMATCH, validateBankDetails } from "../../server/recipients/bank-details.ts";
import { ukAccountPassesModulusCheck } from "../../server/recipients/uk-modulus.ts";
import vocalink from "../fixtures/vocalink-modulus-cases.json" with { type: "json" };

const CASES = vocalink.cases.map((c) => [c.no, c.description, c.sort_code, c.account_number, c.valid] as const);

/** The InvalidInput that validateBankDetails throws (failing the test when it throws nothing or something else). */
function refusal(fn: () => unknown): InvalidInput {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidInput);
    return e as InvalidInput;
  }
  throw new Error("expected an InvalidInput, nothing was thrown");
}

describe("the UK modulus check (Vocalink's published test cases)", () => {
  test("all 34 of Vocalink's test cases are in the fixture, 26 valid and 8 not", () => {
    expect(CASES.length).toBe(34);
    expect(CASES.filter((c) => c[4]).length).toBe(26);
  });

  test.each(CASES)("case %i: %s (%s %s)", (_no, _description, sortCode, accountNumber, valid) => {
    expect(ukAccountPassesModulusCheck(sortCode, accountNumber)).toBe(valid);
  });

  test("the check runs on Vocalink's current weight table, not the 2020 one the package ships", () => {
    // Sort code 040006 got weights of its own after 2020 (version 8.50 splits 040005-040006).
    const stock = (accountNumber: string) => new UkModulusChecking({ sortCode: "040006", accountNumber }).isValid();
    expect(ukAccountPassesModulusCheck("040006", "10000042")).toBe(true);
    expect(stock("10000042")).toBe(false);
    expect(ukAccountPassesModulusCheck("040006", "20000126")).toBe(false);
    expect(stock("20000126")).toBe(true);
  });

  test("a sort code that no range of the table covers is presumed valid, as Vocalink says", () => {
    expect(ukAccountPassesModulusCheck("000000", "12345678")).toBe(true);
  });
});

describe("UK bank details on the server", () => {
  test("a valid pair is accepted and stored without dashes or spaces", () => {
    expect(validateBankDetails("GBP", "GB", { sort_code: "08-99-99", account_number: "6637 4958" })).toEqual({
      sort_code: "089999",
      account_number: "66374958",
    });
  });

  test.each(CASES.filter((c) => !c[4]))(
    "case %i refused: the customer is told the sort code and account number do not match",
    (_no, _description, sortCode, accountNumber) => {
      const e = refusal(() => validateBankDetails("GBP", "GB", { sort_code: sortCode, account_number: accountNumber }));
      expect(e.message).toBe(SORT_CODE_MISMATCH);
      expect(e.message).toBe("The sort code and account number do not match: check both.");
      expect(e.field).toBe("details.account_number");
    },
  );

  test("banks in Jersey, Guernsey and the Isle of Man are paid in GBP by sort code, with the same check", () => {
    for (const country of ["JE", "GG", "IM"]) {
      expect(validateBankDetails("GBP", country, { sort_code: "089999", account_number: "66374958" })).toEqual({
        sort_code: "089999",
        account_number: "66374958",
      });
      expect(
        refusal(() => validateBankDetails("GBP", country, { sort_code: "089999", account_number: "66374959" })).field,
      )
        .toBe("details.account_number");
    }
  });

  test("a UK IBAN whose sort code and account number do not match is refused, even when its check digits add up", () => {
    // GB29 NWBK 601613 31926819 is the registry's example; the same account with one digit changed
    // and the IBAN's check digits recomputed passes the IBAN check but not the modulus check.
    expect(validateBankDetails("EUR", "GB", { iban: "GB29NWBK60161331926819", bic: "NWBKGB2L" })).toEqual({
      iban: "GB29NWBK60161331926819",
      bic: "NWBKGB2L",
    });
    const changed = composeIBAN({ countryCode: "GB", bban: "NWBK60161331926818" })!;
    expect(detailProblem("iban", changed, "GB")).toBeNull();
    const e = refusal(() => validateBankDetails("EUR", "GB", { iban: changed, bic: "NWBKGB2L" }));
    expect(e.message).toBe(UK_IBAN_MISMATCH);
    expect(e.field).toBe("details.iban");
  });

  test("formats are checked before the modulus check, with what to type", () => {
    expect(refusal(() => validateBankDetails("GBP", "GB", { sort_code: "08999", account_number: "66374958" })))
      .toMatchObject({ field: "details.sort_code", message: "Enter the 6-digit sort code, for example 60-16-13." });
    expect(refusal(() => validateBankDetails("GBP", "GB", { sort_code: "089999", account_number: "6637495" })))
      .toMatchObject({
        field: "details.account_number",
        message: "Enter the 8-digit account number. If it has 6 or 7 digits, add zeros at the start.",
      });
  });
});
