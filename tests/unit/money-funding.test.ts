import { describe, expect, test } from "vitest";
import { deploymentCheck } from "../../server/config.ts";
import { companyBankDetails } from "../../server/money/funding.ts";

const REAL = {
  COMPANY_BANK_NAME: "Commerzbank",
  COMPANY_BANK_ACCOUNT_NAME: "Example Payments Ltd Client Account",
  COMPANY_BANK_IBAN: "DE89370400440532013000",
  COMPANY_BANK_BIC: "COBADEFFXXX",
  COMPANY_BANK_SORT_CODE: "40-47-84",
  COMPANY_BANK_ACCOUNT_NUMBER: "70872490",
};

describe("the bank details customers fund their account with", () => {
  test("the built-in test details are marked test, and name no setting: that is the operator's business", () => {
    const details = companyBankDetails({});
    expect(details.test).toBe(true);
    expect(JSON.stringify(details)).not.toMatch(/COMPANY_BANK|production|set /i);
    // The operator is told at start-up which settings to set.
    expect(deploymentCheck({}).warnings.join("\n")).toMatch(/TEST bank details.*Set COMPANY_BANK_\*/s);
  });

  test("any one setting left out still shows a test detail: marked test", () => {
    const { COMPANY_BANK_SORT_CODE: _, ...withoutSortCode } = REAL;
    expect(companyBankDetails(withoutSortCode).test).toBe(true);
  });

  test("all six set: the company's account, not marked", () => {
    expect(companyBankDetails(REAL)).toEqual({
      name: "Commerzbank",
      account_name: "Example Payments Ltd Client Account",
      iban: "DE89370400440532013000",
      bic: "COBADEFFXXX",
      sort_code: "40-47-84",
      account_number: "70872490",
      test: false,
    });
  });
});
