/**
 * ISO 3166-1 alpha-2 countries with their English names, from i18n-iso-countries, for the profile
 * forms (the server passes COUNTRIES to the form island as props: islands never import server/).
 */
import countries from "i18n-iso-countries";
import en from "i18n-iso-countries/langs/en.json" with { type: "json" };

countries.registerLocale(en);

/**
 * Countries whose addresses carry no postcode, so the address form may leave it empty there
 * (after Google's address metadata and the Universal Postal Union's list). Everywhere else the
 * postcode is required.
 */
export const COUNTRIES_WITHOUT_POSTCODE: ReadonlySet<string> = new Set([
  "AE",
  "AG",
  "AO",
  "AW",
  "BF",
  "BI",
  "BJ",
  "BO",
  "BQ",
  "BS",
  "BW",
  "BZ",
  "CD",
  "CF",
  "CG",
  "CI",
  "CK",
  "CM",
  "CW",
  "DJ",
  "DM",
  "ER",
  "FJ",
  "GA",
  "GD",
  "GH",
  "GM",
  "GQ",
  "GY",
  "HK",
  "KI",
  "KM",
  "KN",
  "KP",
  "LY",
  "ML",
  "MO",
  "MR",
  "MW",
  "NR",
  "NU",
  "QA",
  "RW",
  "SB",
  "SC",
  "SL",
  "SR",
  "SS",
  "ST",
  "SX",
  "SY",
  "TD",
  "TF",
  "TG",
  "TK",
  "TL",
  "TO",
  "TV",
  "UG",
  "VU",
  "YE",
  "ZW",
]);

export interface Country {
  /** ISO 3166-1 alpha-2 code, upper case ("GB"). */
  code: string;
  /** English name ("United Kingdom"). */
  name: string;
  /** Whether addresses in this country need a postcode. */
  postcode: boolean;
}

/** Every country, sorted by English name. */
export const COUNTRIES: readonly Country[] = Object.freeze(
  Object.entries(countries.getNames("en", { select: "official" }))
    .map(([code, name]) => Object.freeze({ code, name, postcode: !COUNTRIES_WITHOUT_POSTCODE.has(code) }))
    .sort((a, b) => a.name.localeCompare(b.name, "en")),
);

const CODES: ReadonlySet<string> = new Set(COUNTRIES.map((c) => c.code));

/** True for an upper-case ISO 3166-1 alpha-2 code that names a country ("GB"; not "gb", "GBR", "XX"). */
export function isCountryCode(code: string): boolean {
  return CODES.has(code);
}
