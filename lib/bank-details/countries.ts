/**
 * What the bank-detail rules need to know about countries: which use IBANs (and under whose
 * prefix), which SEPA reaches and which of those are outside the EEA, and where we do not pay.
 * Pure data and functions, so an island can use them while the customer types.
 */
import { getCountrySpecifications } from "ibantools";

export { countryName } from "./country-name.ts";

const SPECS = getCountrySpecifications();

/** ISO 3166-1 alpha-2 codes (and XK, Kosovo, which banks use) that ibantools knows. */
export const COUNTRY_CODES: readonly string[] = Object.freeze(Object.keys(SPECS).sort());

const KNOWN: ReadonlySet<string> = new Set(COUNTRY_CODES);

/** True for a country code we know ("GB"; not "gb", "UK" or "XX"). */
export function isCountryCode(code: string): boolean {
  return KNOWN.has(code);
}

/**
 * Territories whose banks' IBANs carry another country's prefix (the IBAN registry's "country
 * code includes other countries/territories"): an account in Jersey has a GB IBAN.
 */
const IBAN_PARENT: Readonly<Record<string, string>> = {
  AX: "FI",
  GF: "FR",
  GP: "FR",
  MQ: "FR",
  RE: "FR",
  PF: "FR",
  TF: "FR",
  YT: "FR",
  NC: "FR",
  BL: "FR",
  MF: "FR",
  PM: "FR",
  WF: "FR",
  IM: "GB",
  JE: "GB",
  GG: "GB",
};

/**
 * The countries of SWIFT's IBAN registry (release 100). ibantools knows every one's format, but its
 * own registry flag lags (4.5.4 leaves out Burundi, Djibouti, the Falklands and Honduras).
 */
const IBAN_REGISTRY: ReadonlySet<string> = new Set(
  "AD AE AL AT AZ BA BE BG BH BI BR BY CH CR CY CZ DE DJ DK DO EE EG ES FI FK FO FR GB GE GI GL GR GT HN HR HU IE IL IQ IS IT JO KW KZ LB LC LI LT LU LV LY MC MD ME MK MN MR MT MU NI NL NO OM PK PL PS PT QA RO RS RU SA SC SD SE SI SK SM SO ST SV TL TN TR UA VA VG XK YE"
    .split(" "),
);

const isRegistryIbanCountry = (code: string) => IBAN_REGISTRY.has(code) && Boolean(SPECS[code]?.chars);

/**
 * The prefix of the IBANs of banks in this country ("GB" for Jersey), or undefined when the country
 * does not use IBANs (the US, India, ...). Only countries in SWIFT's IBAN registry count: the
 * "experimental" formats some other countries publish are not what their banks give out.
 */
export function ibanPrefix(country: string): string | undefined {
  const prefix = IBAN_PARENT[country] ?? country;
  return isRegistryIbanCountry(prefix) ? prefix : undefined;
}

/** True when a bank in this country is paid by IBAN. */
export function usesIban(country: string): boolean {
  return ibanPrefix(country) !== undefined;
}

/** The length of an IBAN with this prefix. */
export function ibanLength(prefix: string): number {
  return SPECS[prefix]?.chars ?? 0;
}

/** The BBAN's format of an IBAN with this prefix, as a regular expression without anchors. */
export function bbanPattern(prefix: string): string {
  return (SPECS[prefix]?.bban_regexp ?? "").replace(/^\^/, "").replace(/\$$/, "");
}

/**
 * The European Economic Area: the EU, Iceland, Liechtenstein and Norway, with the EU's outermost
 * regions and Åland, which have codes of their own. A SEPA payment inside it needs only the IBAN.
 */
export const EEA_COUNTRIES: ReadonlySet<string> = new Set([
  "AT",
  "BE",
  "BG",
  "CY",
  "CZ",
  "DE",
  "DK",
  "EE",
  "ES",
  "FI",
  "FR",
  "GR",
  "HR",
  "HU",
  "IE",
  "IT",
  "LT",
  "LU",
  "LV",
  "MT",
  "NL",
  "PL",
  "PT",
  "RO",
  "SE",
  "SI",
  "SK",
  "IS",
  "LI",
  "NO",
  "AX",
  "GF",
  "GP",
  "MQ",
  "RE",
  "YT",
  "MF",
]);

/**
 * Where our SEPA payments reach: the EEA and the long-standing non-EEA members of the SEPA
 * schemes (the EPC's register of countries and territories). Payments there carry the BIC too.
 * The 2024-2025 joiners (Albania, Moldova, Montenegro, North Macedonia, Serbia) are paid by SWIFT
 * until our bank confirms it reaches them (decision 019).
 */
export const SEPA_OUTSIDE_EEA: ReadonlySet<string> = new Set([
  "CH",
  "GB",
  "GI",
  "GG",
  "JE",
  "IM",
  "MC",
  "SM",
  "VA",
  "AD",
  "PM",
  "BL",
]);

export const SEPA_COUNTRIES: readonly string[] = Object.freeze([...EEA_COUNTRIES, ...SEPA_OUTSIDE_EEA].sort());

/**
 * Countries we do not pay, whatever the currency: comprehensive sanctions, or no banking partner
 * of ours clears payments there. The compliance team owns this list (decision 019).
 */
export const COUNTRIES_NOT_PAID: ReadonlySet<string> = new Set(["BY", "CU", "IR", "KP", "RU", "SY"]);
