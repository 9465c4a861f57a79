/**
 * How bank details and moments read on the recipients screen: an IBAN in groups of four, a sort
 * code as 60-16-13, each detail under its label. Times are written in UTC, so the page the server
 * renders and the page the browser hydrates say the same.
 */
import type { DetailKey } from "../../lib/bank-details/formats.ts";
import { countryName } from "../../lib/bank-details/country-name.ts";

export const DETAIL_LABELS: Readonly<Record<DetailKey, string>> = {
  iban: "IBAN",
  bic: "BIC (SWIFT code)",
  sort_code: "Sort code",
  account_number: "Account number",
  routing_number: "ACH routing number",
  account_type: "Account type",
  ifsc: "IFSC code",
  bsb: "BSB code",
  transit_number: "Transit number",
  institution_number: "Institution number",
};

/** The order details are listed in, whatever order they were stored in. */
const ORDER: readonly DetailKey[] = Object.keys(DETAIL_LABELS) as DetailKey[];

/** "GB29NWBK60161331926819" → "GB29 NWBK 6016 1331 9268 19". */
export const ibanInGroups = (iban: string): string => iban.replace(/(.{4})(?=.)/g, "$1 ");

/** A stored detail as people write it. */
export function shownDetail(key: DetailKey, value: string): string {
  switch (key) {
    case "iban":
      return ibanInGroups(value);
    case "sort_code":
      return value.replace(/^(\d{2})(\d{2})(\d{2})$/, "$1-$2-$3");
    case "bsb":
      return value.replace(/^(\d{3})(\d{3})$/, "$1-$2");
    case "account_type":
      return value === "savings" ? "Savings" : value === "checking" ? "Checking" : value;
    default:
      return value;
  }
}

/** Stored details as [label, value as written] pairs, in a fixed order. */
export function detailLines(
  details: Partial<Record<DetailKey, string>>,
): [key: DetailKey, label: string, value: string][] {
  return ORDER.filter((key) => details[key]).map((key) => [key, DETAIL_LABELS[key], shownDetail(key, details[key]!)]);
}

/** One line that tells recipients apart in a list: an IBAN in groups, or "08-99-99 · 66374958". */
export function detailSummary(details: Partial<Record<DetailKey, string>>): string {
  if (details.iban) return ibanInGroups(details.iban);
  const bank = details.sort_code
    ? shownDetail("sort_code", details.sort_code)
    : details.bsb
    ? shownDetail("bsb", details.bsb)
    : details.routing_number ?? details.ifsc ?? details.transit_number ?? details.bic;
  return [bank, details.account_number].filter(Boolean).join(" · ");
}

const MOMENT = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });

/** "2 Mar 2026, 09:05 UTC". */
export const moment = (iso: string): string => `${MOMENT.format(new Date(iso))} UTC`;

/** "Germany (DE)". */
export const countryLabel = (code: string): string => `${countryName(code)} (${code})`;
