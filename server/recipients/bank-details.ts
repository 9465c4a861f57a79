/**
 * The server's word on a recipient's bank details: the requirements table's rules again (the same
 * ones the contract and the browser run), then what only the server can check, the UK modulus
 * check against Vocalink's tables. The recipients service calls this before it saves anything.
 */
import { type BankDetails, checkBankDetails } from "../../lib/bank-details/checks.ts";
import {
  type BankDetailsRequirement,
  type RequirementOptions,
  requirementsFor,
} from "../../lib/bank-details/requirements.ts";
import { InvalidInput } from "../errors.ts";
import { ukAccountPassesModulusCheck } from "./uk-modulus.ts";

export const SORT_CODE_MISMATCH = "The sort code and account number do not match: check both.";
export const UK_IBAN_MISMATCH = "The account number inside this IBAN does not match its sort code: check the IBAN.";

/**
 * What a currency and bank country require (the currency's home country when none is given), for
 * GET account/recipients/requirements; a pair we cannot pay is refused naming the input at fault.
 */
export function recipientRequirements(
  currency: string,
  country?: string,
  options: RequirementOptions = {},
): BankDetailsRequirement {
  const found = requirementsFor(currency, country, options);
  if (!found.ok) throw new InvalidInput(found.message, found.field);
  return found.requirement;
}

/** Sort code and account number inside a UK IBAN: GBkk BBBB SSSSSS AAAAAAAA. */
const UK_IBAN = /^GB[0-9]{2}[A-Z]{4}([0-9]{6})([0-9]{8})$/;

/**
 * The recipient's bank details tidied, as they are to be stored, or an InvalidInput naming the
 * first refused field ("details.account_number"). Runs in well under a millisecond.
 */
export function validateBankDetails(
  currency: string,
  country: string,
  typed: Readonly<Record<string, unknown>>,
  options: RequirementOptions = {},
): BankDetails {
  const requirement = recipientRequirements(currency, country, options);
  const { details, problems } = checkBankDetails(requirement, typed);
  const [refused] = Object.entries(problems);
  if (refused) throw new InvalidInput(refused[1], `details.${refused[0]}`);
  if (details.sort_code && details.account_number) {
    if (!ukAccountPassesModulusCheck(details.sort_code, details.account_number)) {
      throw new InvalidInput(SORT_CODE_MISMATCH, "details.account_number");
    }
  }
  const ukIban = details.iban?.match(UK_IBAN);
  if (ukIban && !ukAccountPassesModulusCheck(ukIban[1], ukIban[2])) {
    throw new InvalidInput(UK_IBAN_MISMATCH, "details.iban");
  }
  return details;
}
