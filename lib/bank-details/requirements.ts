/**
 * Which bank details a recipient needs, by the currency they receive and their bank's country:
 * one table, read by GET account/recipients/requirements (the form is drawn from its answer) and
 * by the checks of every recipient the server saves (STYLE.md, "Wise's account requirements").
 * Decision 019 explains the choices.
 */
import {
  COUNTRIES_NOT_PAID,
  COUNTRY_CODES,
  countryName,
  EEA_COUNTRIES,
  ibanPrefix,
  isCountryCode,
  SEPA_COUNTRIES,
  usesIban,
} from "./countries.ts";
import { ACCOUNT_TYPES, type DetailKey, detailPattern, type RuleName } from "./formats.ts";
import { IBAN_EXAMPLES } from "./iban-examples.ts";

/**
 * How a payment reaches the recipient's bank: the names of db/schema-payments.ts's payout rails
 * where it has them. SWIFT payments are the payout desk's /console/transfer, the others its
 * /console/local.
 */
export const SCHEMES = ["sepa", "faster_payments", "ach", "local_iban", "imps", "becs", "eft", "swift"] as const;
export type Scheme = typeof SCHEMES[number];

export interface RequirementField {
  key: DetailKey;
  /** The rule the value is checked with (lib/bank-details/formats.ts). */
  rule: RuleName;
  label: string;
  example: string;
  hint: string;
  required: boolean;
  /** What the tidied value (spaces and dashes out, letters capitalised) must match, unanchored. */
  pattern: string;
  /** The choices, for a field that has a fixed set of them. */
  options?: { value: string; label: string }[];
}

export interface BankDetailsRequirement {
  currency: string;
  /** The recipient's bank's country. */
  country: string;
  scheme: Scheme;
  /** The scheme in the customer's words ("SEPA transfer"). */
  scheme_name: string;
  /** Every bank country this currency can be paid to. */
  countries: string[];
  fields: RequirementField[];
}

export type RequirementLookup =
  | { ok: true; requirement: BankDetailsRequirement }
  | { ok: false; field: "currency" | "country"; message: string };

interface CurrencyRoute {
  /** The scheme that pays a bank in one of the currency's home countries. */
  home: Scheme;
  /** Those countries, the default first. */
  countries: readonly string[];
  /** Whether banks elsewhere can be paid in it, by SWIFT. */
  worldwide: boolean;
}

const at = (home: Scheme, countries: readonly string[], worldwide = false): CurrencyRoute => ({
  home,
  countries,
  worldwide,
});

/**
 * Every currency the portal holds (server/money/currencies.ts; a test keeps the two lists equal).
 * EUR, GBP and USD are paid worldwide; the others only at home, through local partners.
 */
const ROUTES: Readonly<Record<string, CurrencyRoute>> = {
  AED: at("local_iban", ["AE"]),
  AUD: at("becs", ["AU"]),
  BHD: at("local_iban", ["BH"]),
  CAD: at("eft", ["CA"]),
  CHF: at("local_iban", ["CH", "LI"]),
  CZK: at("local_iban", ["CZ"]),
  DKK: at("local_iban", ["DK", "FO", "GL"]),
  EUR: at("sepa", ["DE", ...SEPA_COUNTRIES.filter((c) => c !== "DE")], true),
  GBP: at("faster_payments", ["GB", "GG", "JE", "IM"], true),
  HKD: at("swift", ["HK"]),
  HUF: at("local_iban", ["HU"]),
  INR: at("imps", ["IN"]),
  JPY: at("swift", ["JP"]),
  KWD: at("local_iban", ["KW"]),
  NOK: at("local_iban", ["NO"]),
  NZD: at("swift", ["NZ"]),
  PLN: at("local_iban", ["PL"]),
  SEK: at("local_iban", ["SE"]),
  SGD: at("swift", ["SG"]),
  USD: at("ach", ["US", "PR", "GU", "VI", "AS", "MP"], true),
  ZAR: at("swift", ["ZA"]),
};

/** The currencies the table covers, in alphabetical order. */
export const PAYABLE_CURRENCIES: readonly string[] = Object.freeze(Object.keys(ROUTES).sort());

const SCHEME_NAMES: Readonly<Record<Scheme, string>> = {
  sepa: "SEPA transfer",
  faster_payments: "UK bank transfer (Faster Payments)",
  ach: "ACH transfer",
  local_iban: "Local bank transfer",
  imps: "Indian bank transfer (IMPS/NEFT)",
  becs: "Australian bank transfer",
  eft: "Canadian bank transfer (EFT)",
  swift: "International transfer (SWIFT)",
};

/** Known BICs shown as examples; elsewhere the example shows the shape with the country's code. */
const BIC_EXAMPLES: Readonly<Record<string, string>> = {
  DE: "DEUTDEFF",
  FR: "BNPAFRPP",
  GB: "BARCGB22",
  HK: "HSBCHKHH",
  JP: "BOTKJPJT",
  NZ: "ANZBNZ22",
  SG: "DBSSSGSG",
  US: "CHASUS33",
  ZA: "SBZAZAJJ",
};

type FieldText = Pick<RequirementField, "label" | "example" | "hint">;

/** Label, example and hint of each rule, for a bank in this country. */
const TEXTS: Readonly<Record<RuleName, (country: string, required: boolean) => FieldText>> = {
  iban: (country) => {
    const prefix = ibanPrefix(country) ?? country;
    const length = IBAN_EXAMPLES[prefix]?.length ?? 0;
    return {
      label: "IBAN",
      example: IBAN_EXAMPLES[prefix] ?? "",
      hint: `${length} characters, starting with ${prefix}. It is on the recipient's bank statement.`,
    };
  },
  bic: (country, required) => ({
    label: "BIC (SWIFT code)",
    example: BIC_EXAMPLES[country] ?? `BANK${country}22`,
    hint: required
      ? "8 or 11 letters and digits. The recipient's bank gives it on statements and its website."
      : "Optional: a SEPA payment to a bank in the European Economic Area needs only the IBAN.",
  }),
  sort_code: () => ({ label: "Sort code", example: "60-16-13", hint: "6 digits, on the recipient's bank card." }),
  uk_account_number: () => ({ label: "Account number", example: "31926819", hint: "8 digits." }),
  routing_number: () => ({
    label: "ACH routing number",
    example: "026009593",
    hint: "9 digits, at the bottom left of a check. Banks may have a different one for wires: use the ACH one.",
  }),
  us_account_number: () => ({ label: "Account number", example: "123456789", hint: "4 to 17 digits." }),
  account_type: () => ({ label: "Account type", example: "checking", hint: "Checking or savings." }),
  ifsc: () => ({
    label: "IFSC code",
    example: "SBIN0005943",
    hint: "11 characters, on the recipient's cheque book or their bank's website.",
  }),
  in_account_number: () => ({ label: "Account number", example: "123456789012", hint: "9 to 18 digits." }),
  bsb: () => ({ label: "BSB code", example: "062-000", hint: "6 digits: the bank and its branch." }),
  au_account_number: () => ({ label: "Account number", example: "12345678", hint: "5 to 9 digits." }),
  institution_number: () => ({ label: "Institution number", example: "004", hint: "3 digits: the bank." }),
  transit_number: () => ({ label: "Transit number", example: "12345", hint: "5 digits: the branch." }),
  ca_account_number: () => ({ label: "Account number", example: "1234567", hint: "7 to 12 digits." }),
  account_number: () => ({
    label: "Account number",
    example: "12345678",
    hint: "As the recipient's bank writes it: 4 to 34 letters or digits.",
  }),
};

/** What the server knows of the company that pays the recipient. */
export interface RequirementOptions {
  /**
   * The company's own bank is outside the EEA (server/bank-files/debtor.ts sepaBicAlwaysNeeded):
   * every SEPA payment from it names the recipient's bank by BIC.
   */
  sepaBicAlways?: boolean;
}

type FieldPlan = readonly [key: DetailKey, rule: RuleName, required: boolean];

/** The fields of each scheme, in the order the form asks for them. */
const FIELDS: Readonly<Record<Scheme, (country: string, options: RequirementOptions) => readonly FieldPlan[]>> = {
  // A SEPA payment needs the BIC when the recipient's bank, or the company's (the payer), is outside
  // the EEA (EPC rulebook; decision 066).
  sepa: (country, options) => [
    ["iban", "iban", true],
    ["bic", "bic", !EEA_COUNTRIES.has(country) || options.sepaBicAlways === true],
  ],
  local_iban: () => [["iban", "iban", true]],
  faster_payments: () => [["sort_code", "sort_code", true], ["account_number", "uk_account_number", true]],
  ach: () => [
    ["routing_number", "routing_number", true],
    ["account_number", "us_account_number", true],
    ["account_type", "account_type", true],
  ],
  imps: () => [["ifsc", "ifsc", true], ["account_number", "in_account_number", true]],
  becs: () => [["bsb", "bsb", true], ["account_number", "au_account_number", true]],
  eft: () => [
    ["institution_number", "institution_number", true],
    ["transit_number", "transit_number", true],
    ["account_number", "ca_account_number", true],
  ],
  swift: (country) => [
    usesIban(country) ? ["iban", "iban", true] : ["account_number", "account_number", true],
    ["bic", "bic", true],
  ],
};

const ACCOUNT_TYPE_OPTIONS = ACCOUNT_TYPES.map((value) => ({
  value,
  label: value === "checking" ? "Checking" : "Savings",
}));

const WORLDWIDE: readonly string[] = COUNTRY_CODES.filter((c) => !COUNTRIES_NOT_PAID.has(c));

/** A list of countries in words: "Denmark, Faroe Islands or Greenland". */
function countryList(codes: readonly string[]): string {
  const names = codes.map(countryName);
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
}

/**
 * The bank details a recipient needs for a currency and their bank's country (the currency's home
 * country when none is given), or why we cannot pay that pair, naming the input at fault. Codes
 * are upper case, as the contracts hand them over ("GBP", "GB").
 */
export function requirementsFor(
  currency: string,
  country?: string,
  options: RequirementOptions = {},
): RequirementLookup {
  const route = Object.hasOwn(ROUTES, currency) ? ROUTES[currency] : undefined;
  if (!route) {
    const named = /^[A-Z]{3}$/.test(currency) ? currency : "this currency";
    return { ok: false, field: "currency", message: `We cannot pay recipients in ${named}: choose another currency.` };
  }
  const bankCountry = country ?? route.countries[0];
  if (!isCountryCode(bankCountry)) {
    return { ok: false, field: "country", message: "Choose the country of the recipient's bank." };
  }
  if (COUNTRIES_NOT_PAID.has(bankCountry)) {
    return { ok: false, field: "country", message: `We cannot make payments to ${countryName(bankCountry)}.` };
  }
  const atHome = route.countries.includes(bankCountry);
  if (!atHome && !route.worldwide) {
    return {
      ok: false,
      field: "country",
      message: `We pay ${currency} only to banks in ${countryList(route.countries)}.`,
    };
  }
  const scheme = atHome ? route.home : "swift";
  const fields = FIELDS[scheme](bankCountry, options).map(([key, rule, required]): RequirementField => ({
    key,
    rule,
    ...TEXTS[rule](bankCountry, required),
    required,
    pattern: detailPattern(rule, bankCountry),
    ...(rule === "account_type" ? { options: ACCOUNT_TYPE_OPTIONS } : {}),
  }));
  return {
    ok: true,
    requirement: {
      currency,
      country: bankCountry,
      scheme,
      scheme_name: SCHEME_NAMES[scheme],
      countries: [...(route.worldwide ? WORLDWIDE : route.countries)],
      fields,
    },
  };
}
