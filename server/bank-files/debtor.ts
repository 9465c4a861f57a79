import { electronicFormatIBAN, isValidBIC, isValidIBAN } from "ibantools";
import type { Config } from "../config.ts";
import { Conflict } from "../errors.ts";
import { companyBankDetails } from "../money/funding.ts";
import { debtorOutsideEea, ibanCountry, isSepaCountry } from "./sepa-countries.ts";
import { toSepaText } from "./sepa-text.ts";

/** The company's account that SEPA payouts are paid from: the debtor of every credit-transfer file. */
export interface SepaDebtor {
  /** The bank's name (COMPANY_BANK_NAME), for people; the file names the bank by its BIC. */
  readonly bankName: string;
  /** The account holder's name as the bank knows it (COMPANY_BANK_ACCOUNT_NAME), in SEPA characters. */
  readonly name: string;
  /** Electronic format, no spaces. */
  readonly iban: string;
  readonly bic: string;
  /** True outside production when any detail is the built-in, fictitious test account. */
  readonly testDetails: boolean;
}

const SETTINGS = [
  ["COMPANY_BANK_NAME", "name"],
  ["COMPANY_BANK_ACCOUNT_NAME", "account_name"],
  ["COMPANY_BANK_IBAN", "iban"],
  ["COMPANY_BANK_BIC", "bic"],
] as const;

/**
 * The debtor from the COMPANY_BANK_* settings (the same ones customers are told to pay into, see
 * server/money/funding.ts). In production a file is never made with the built-in test details: a
 * bank would reject it, or worse, a test IBAN could belong to someone. Details that cannot go into
 * a SEPA file (an invalid IBAN or BIC, an IBAN outside SEPA) are refused too, naming the setting.
 */
export function sepaDebtorFromSettings(
  env: Record<string, string | undefined>,
  appEnv: Config["appEnv"],
): SepaDebtor {
  const given = companyBankDetails(env);
  const builtIn = companyBankDetails({});
  const unset = SETTINGS.filter(([, key]) => given[key] === builtIn[key]).map(([name]) => name);
  if (unset.length > 0 && appEnv === "production") {
    throw new Conflict(
      `No SEPA file was made: ${unset.join(", ")} ${
        unset.length === 1 ? "is" : "are"
      } the built-in test details, and this is production. Set the company's real bank account in ${
        unset.length === 1 ? "that setting" : "those settings"
      } first.`,
    );
  }
  const iban = electronicFormatIBAN(given.iban) ?? "";
  if (!isValidIBAN(iban)) {
    throw new Conflict(`No SEPA file was made: COMPANY_BANK_IBAN "${given.iban}" is not a valid IBAN.`);
  }
  if (!isSepaCountry(ibanCountry(iban))) {
    throw new Conflict(
      `No SEPA file was made: COMPANY_BANK_IBAN is an account in ${ibanCountry(iban)}, which is outside SEPA.`,
    );
  }
  const bic = given.bic.replace(/\s+/g, "").toUpperCase();
  if (!isValidBIC(bic)) {
    throw new Conflict(`No SEPA file was made: COMPANY_BANK_BIC "${given.bic}" is not a valid BIC.`);
  }
  const name = toSepaText(given.account_name, 70).text;
  if (name === "") {
    throw new Conflict(
      "No SEPA file was made: COMPANY_BANK_ACCOUNT_NAME has no letters that a SEPA file can carry.",
    );
  }
  return { bankName: given.name, name, iban, bic, testDetails: unset.length > 0 };
}

/**
 * Whether a SEPA recipient needs a BIC because of where the company pays from (COMPANY_BANK_IBAN
 * outside the EEA, the rule the SEPA file writer applies: decision 066). Read by the recipients'
 * requirements and checks, so a recipient saved is one a SEPA file can pay.
 */
export function sepaBicAlwaysNeeded(env: Record<string, string | undefined>): boolean {
  return debtorOutsideEea(companyBankDetails(env).iban);
}
