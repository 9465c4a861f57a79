import { describe, expect, test } from "vitest";
import { sepaDebtorFromSettings } from "../../server/bank-files/debtor.ts";
import { Conflict } from "../../server/errors.ts";

const REAL = {
  COMPANY_BANK_NAME: "Commerzbank",
  COMPANY_BANK_ACCOUNT_NAME: "Example Payments Ltd Client Account",
  COMPANY_BANK_IBAN: "DE89 3704 0044 0532 0130 00",
  COMPANY_BANK_BIC: "cobadeffxxx",
};

function conflict(fn: () => unknown): Conflict {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(Conflict);
    return e as Conflict;
  }
  throw new Error("expected a Conflict, nothing was thrown");
}

describe("the debtor of SEPA files, from the COMPANY_BANK_* settings", () => {
  test("the company's account as configured, in the form a file needs", () => {
    expect(sepaDebtorFromSettings(REAL, "production")).toEqual({
      bankName: "Commerzbank",
      name: "Example Payments Ltd Client Account",
      iban: "DE89370400440532013000",
      bic: "COBADEFFXXX",
      testDetails: false,
    });
  });

  test("in production, no file is made with the built-in test details, and the error says which settings", () => {
    expect(conflict(() => sepaDebtorFromSettings({}, "production")).message).toBe(
      "No SEPA file was made: COMPANY_BANK_NAME, COMPANY_BANK_ACCOUNT_NAME, COMPANY_BANK_IBAN, COMPANY_BANK_BIC are the built-in test details, and this is production. Set the company's real bank account in those settings first.",
    );
    // Half-configured is refused too: a real IBAN under the test account's name would mislead the bank.
    const { COMPANY_BANK_ACCOUNT_NAME: _, ...withoutName } = REAL;
    expect(conflict(() => sepaDebtorFromSettings(withoutName, "production")).message).toMatch(
      /^No SEPA file was made: COMPANY_BANK_ACCOUNT_NAME is the built-in test details, and this is production\./,
    );
    // Setting a variable to the test value is the same as leaving it unset.
    expect(
      conflict(() => sepaDebtorFromSettings({ ...REAL, COMPANY_BANK_IBAN: "GB33BUKB20201555555555" }, "production"))
        .message,
    ).toMatch(/COMPANY_BANK_IBAN is the built-in test details/);
  });

  test("outside production the test details make a file, marked as such", () => {
    for (const appEnv of ["development", "test"] as const) {
      expect(sepaDebtorFromSettings({}, appEnv)).toMatchObject({
        iban: "GB33BUKB20201555555555",
        bic: "BUKBGB22",
        name: "Portal Client Money Account",
        testDetails: true,
      });
    }
  });

  test("details that cannot go into a SEPA file are refused, naming the setting", () => {
    expect(
      conflict(() => sepaDebtorFromSettings({ ...REAL, COMPANY_BANK_IBAN: "DE89370400440532013001" }, "production"))
        .message,
    ).toBe('No SEPA file was made: COMPANY_BANK_IBAN "DE89370400440532013001" is not a valid IBAN.');
    expect(
      conflict(() =>
        sepaDebtorFromSettings({ ...REAL, COMPANY_BANK_IBAN: "BR1800360305000010009795493C1" }, "production")
      )
        .message,
    ).toBe("No SEPA file was made: COMPANY_BANK_IBAN is an account in BR, which is outside SEPA.");
    expect(conflict(() => sepaDebtorFromSettings({ ...REAL, COMPANY_BANK_BIC: "COBA" }, "production")).message).toBe(
      'No SEPA file was made: COMPANY_BANK_BIC "COBA" is not a valid BIC.',
    );
    expect(
      conflict(() => sepaDebtorFromSettings({ ...REAL, COMPANY_BANK_ACCOUNT_NAME: "株式会社" }, "production")).message,
    )
      .toBe("No SEPA file was made: COMPANY_BANK_ACCOUNT_NAME has no letters that a SEPA file can carry.");
  });

  test("an account name outside the SEPA set is written in it", () => {
    expect(
      sepaDebtorFromSettings({ ...REAL, COMPANY_BANK_ACCOUNT_NAME: "Zahlungsdienste München GmbH" }, "production").name,
    )
      .toBe("Zahlungsdienste Muenchen GmbH");
  });
});
