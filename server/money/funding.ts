import process from "node:process";
import { COMPANY_BANK_SETTINGS } from "../config.ts";

/**
 * The company's bank account that customers send money to, quoting their account_ref. From the
 * environment (COMPANY_BANK_*); the defaults are a clearly fictitious test account, never real
 * details, so that a development portal cannot mislead anyone into paying it. `test` says that any of
 * them is the built-in default: the funding card then tells the customer, in their words, that these
 * details take no real money; the operator is told at start-up (server/config.ts deploymentCheck)
 * which settings to set, never the customer.
 */
export function companyBankDetails(env: Record<string, string | undefined> = process.env) {
  return {
    name: env.COMPANY_BANK_NAME || "Example Bank",
    account_name: env.COMPANY_BANK_ACCOUNT_NAME || "Portal Client Money Account",
    iban: env.COMPANY_BANK_IBAN || "GB33BUKB20201555555555",
    bic: env.COMPANY_BANK_BIC || "BUKBGB22",
    sort_code: env.COMPANY_BANK_SORT_CODE || "20-20-15",
    account_number: env.COMPANY_BANK_ACCOUNT_NUMBER || "55555555",
    test: COMPANY_BANK_SETTINGS.some((name) => !env[name]),
  };
}
