/**
 * The rule of each bank-detail field: how a typed value is tidied (spaces and dashes out, letters
 * capitalised), the pattern it must match, and the checks a library does on it, each failure in
 * the customer's words. Browser-safe: islands run these while the customer types, and the server
 * runs them again (plus the UK modulus check, server/recipients/uk-modulus.ts).
 *
 * IBANs and BICs are checked by ibantools (registry lengths and formats, ISO 7064 check digits,
 * national check digits, country codes), US routing numbers by abavalidator (the ABA checksum).
 * IFSC, BSB and Canadian transit and institution numbers have no maintained library: they are
 * checked against the formats their schemes publish (decision 019).
 */
import { validate as isAbaChecksumValid } from "abavalidator";
import { extractBIC, validateBIC, validateIBAN, ValidationErrorsIBAN } from "ibantools";
import { bbanPattern, countryName, ibanLength, ibanPrefix } from "./countries.ts";

/** The bank-detail fields a recipient can have, as the API names them. */
export const DETAIL_KEYS = [
  "iban",
  "bic",
  "sort_code",
  "account_number",
  "routing_number",
  "account_type",
  "ifsc",
  "bsb",
  "transit_number",
  "institution_number",
] as const;

export type DetailKey = typeof DETAIL_KEYS[number];

/** The rules by name; account numbers differ by scheme, so each has its own. */
export const RULE_NAMES = [
  "iban",
  "bic",
  "sort_code",
  "uk_account_number",
  "routing_number",
  "us_account_number",
  "account_type",
  "ifsc",
  "in_account_number",
  "bsb",
  "au_account_number",
  "transit_number",
  "institution_number",
  "ca_account_number",
  "account_number",
] as const;

export type RuleName = typeof RULE_NAMES[number];

/** The US account types an ACH payment names. */
export const ACCOUNT_TYPES = ["checking", "savings"] as const;

interface Rule {
  /** What the customer is asked for when the field is empty. */
  missing: string;
  /** The value as stored: separators out, letters capitalised. */
  tidy: (typed: string) => string;
  /** The pattern of a tidied value, without anchors (a browser may use it as an input's pattern). */
  pattern: (country: string) => string;
  /** Why a tidied value is refused, or null when it is accepted. */
  problem: (value: string, country: string) => string | null;
}

/**
 * Spaces and dashes, and the invisible characters a PDF or web page puts between an IBAN's groups
 * when it is copied (zero-width space, zero-width joiners, word joiner, soft hyphen): the customer
 * sees none of them, so none may make a pasted value "the wrong length".
 */
const withoutSeparators = (typed: string) => typed.replace(/[\s\-\u00AD\u200B-\u200D\u2060]+/g, "");
const upperWithoutSeparators = (typed: string) => withoutSeparators(typed).toUpperCase();

/** A rule that is a published format: digits (or letters) in a fixed shape. */
function format(missing: string, pattern: string, wrong: string, tidy = withoutSeparators): Rule {
  const whole = new RegExp(`^(?:${pattern})$`);
  return { missing, tidy, pattern: () => pattern, problem: (value) => whole.test(value) ? null : wrong };
}

/** The countries a BIC of a bank in this country may name: its own, or the one whose IBANs it uses. */
const bicCountries = (country: string) => [...new Set([country, ibanPrefix(country) ?? country])];

/** A choice of country codes in a pattern: "GB", or "(?:JE|GB)". */
const oneOf = (codes: readonly string[]) => codes.length === 1 ? codes[0] : `(?:${codes.join("|")})`;

function ibanProblem(iban: string, country: string): string | null {
  const expected = ibanPrefix(country);
  if (expected === undefined) return `Banks in ${countryName(country)} do not use IBANs.`;
  const shape = `Enter the ${ibanLength(expected)}-character IBAN: it starts with ${expected}.`;
  const prefix = iban.slice(0, 2);
  if (!/^[A-Z]{2}[0-9]{2}/.test(iban)) return shape;
  if (prefix !== expected) {
    return ibanLength(prefix)
      ? `This IBAN is for a bank in ${countryName(prefix)}, not ${
        countryName(country)
      }: check the IBAN or the bank's country.`
      : shape;
  }
  const errors = validateIBAN(iban, { allowQRIBAN: false }).errorCodes;
  if (errors.includes(ValidationErrorsIBAN.WrongBBANLength)) return shape;
  if (errors.includes(ValidationErrorsIBAN.WrongBBANFormat)) {
    return "This IBAN has a letter or digit in the wrong place: check it against the recipient's bank details.";
  }
  if (errors.includes(ValidationErrorsIBAN.WrongIBANChecksum)) {
    return "This IBAN is not valid: look for a mistyped or swapped character.";
  }
  if (errors.includes(ValidationErrorsIBAN.WrongAccountBankBranchChecksum)) {
    return "The account number inside this IBAN is not valid: check the IBAN with the recipient.";
  }
  if (errors.includes(ValidationErrorsIBAN.QRIBANNotAllowed)) {
    return "This is a QR-IBAN, which only takes QR-bill payments: ask the recipient for their account's IBAN.";
  }
  return errors.length ? shape : null;
}

function bicProblem(bic: string, country: string): string | null {
  if (!validateBIC(bic).valid) {
    return "Enter the 8- or 11-character BIC (SWIFT code): 4 letters for the bank, " +
      `then ${country} and 2 letters or digits, and maybe 3 more for the branch.`;
  }
  const { countryCode = "", testBIC } = extractBIC(bic);
  if (!bicCountries(country).includes(countryCode)) {
    return `This BIC is for a bank in ${countryName(countryCode)}, not ${
      countryName(country)
    }: check the BIC or the bank's country.`;
  }
  if (testBIC) return "This is a test BIC, which cannot receive payments: check the BIC with the recipient.";
  return null;
}

/**
 * US routing numbers start with 00 (the US government), a Federal Reserve district (01-12), or
 * 21-32, 61-72 or 80 (thrifts, electronic and traveller's cheques).
 */
const ROUTING_PREFIX = /^(0[0-9]|1[0-2]|2[1-9]|3[0-2]|6[1-9]|7[0-2]|80)/;

function routingProblem(value: string): string | null {
  if (!/^[0-9]{9}$/.test(value)) return "Enter the 9-digit ACH routing number.";
  if (!ROUTING_PREFIX.test(value) || !isAbaChecksumValid(value)) {
    return "This routing number is not valid: check its 9 digits.";
  }
  return null;
}

const RULES: Readonly<Record<RuleName, Rule>> = {
  iban: {
    missing: "Enter the IBAN.",
    tidy: upperWithoutSeparators,
    pattern: (country) => {
      const prefix = ibanPrefix(country);
      return prefix === undefined ? "" : `${prefix}[0-9]{2}${bbanPattern(prefix)}`;
    },
    problem: ibanProblem,
  },
  bic: {
    missing: "Enter the BIC (SWIFT code).",
    tidy: upperWithoutSeparators,
    pattern: (country) => `[A-Z]{4}${oneOf(bicCountries(country))}[A-Z0-9]{2}(?:[A-Z0-9]{3})?`,
    problem: bicProblem,
  },
  sort_code: format("Enter the sort code.", "[0-9]{6}", "Enter the 6-digit sort code, for example 60-16-13."),
  uk_account_number: format(
    "Enter the account number.",
    "[0-9]{8}",
    "Enter the 8-digit account number. If it has 6 or 7 digits, add zeros at the start.",
  ),
  routing_number: {
    missing: "Enter the ACH routing number.",
    tidy: withoutSeparators,
    pattern: () => "[0-9]{9}",
    problem: routingProblem,
  },
  us_account_number: format(
    "Enter the account number.",
    "[0-9]{4,17}",
    "Enter the account number: 4 to 17 digits.",
  ),
  account_type: format(
    "Choose checking or savings.",
    ACCOUNT_TYPES.join("|"),
    "Choose checking or savings.",
    (typed) => typed.trim().toLowerCase(),
  ),
  ifsc: format(
    "Enter the IFSC code.",
    "[A-Z]{4}0[A-Z0-9]{6}",
    "Enter the 11-character IFSC code: 4 letters for the bank, a zero, then 6 letters or digits for the branch.",
    upperWithoutSeparators,
  ),
  in_account_number: format(
    "Enter the account number.",
    "[0-9]{9,18}",
    "Enter the account number: 9 to 18 digits.",
  ),
  bsb: format("Enter the BSB code.", "[0-9]{6}", "Enter the 6-digit BSB code, for example 062-000."),
  au_account_number: format(
    "Enter the account number.",
    "[0-9]{5,9}",
    "Enter the account number: 5 to 9 digits.",
  ),
  transit_number: format("Enter the transit number.", "[0-9]{5}", "Enter the 5-digit transit number."),
  institution_number: format(
    "Enter the institution number.",
    "[0-9]{3}",
    "Enter the 3-digit institution number, for example 004.",
  ),
  ca_account_number: format(
    "Enter the account number.",
    "[0-9]{7,12}",
    "Enter the account number: 7 to 12 digits.",
  ),
  account_number: format(
    "Enter the account number.",
    "[A-Z0-9]{4,34}",
    "Enter the account number: 4 to 34 letters or digits.",
    upperWithoutSeparators,
  ),
};

/** A typed value as it is checked and stored. */
export function tidyDetail(rule: RuleName, typed: string): string {
  return RULES[rule].tidy(typed);
}

/** The pattern a tidied value of this field must match, for a bank in this country. */
export function detailPattern(rule: RuleName, country: string): string {
  return RULES[rule].pattern(country);
}

/**
 * Why a typed value is refused (for a bank in this country), or null when it is accepted. An empty
 * value gets the field's "Enter the ..." message: callers skip empty optional fields.
 */
export function detailProblem(rule: RuleName, typed: string, country: string): string | null {
  const value = RULES[rule].tidy(typed);
  return value === "" ? RULES[rule].missing : RULES[rule].problem(value, country);
}
