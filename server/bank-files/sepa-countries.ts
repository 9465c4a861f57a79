import { isSEPACountry } from "ibantools";

/**
 * SEPA countries outside the EEA (EPC409-09, the EPC's list of SEPA countries). A transfer to or
 * from an account there must name the creditor's bank by BIC: the IBAN alone is not enough for
 * the interbank message. Jersey, Guernsey and the Isle of Man use GB IBANs.
 */
const OUTSIDE_EEA = new Set(["AD", "CH", "GB", "GI", "MC", "SM", "VA"]);

/** The country of an IBAN in electronic format. */
export function ibanCountry(iban: string): string {
  return iban.slice(0, 2);
}

/** True for a country whose accounts SEPA credit transfers reach (ibantools' list). */
export function isSepaCountry(country: string): boolean {
  return isSEPACountry(country);
}

/**
 * The SEPA country outside the EEA that a transfer between the two accounts involves, if any: then
 * the creditor bank's BIC is needed.
 */
export function countryOutsideEea(debtorIban: string, creditorIban: string): string | null {
  return [ibanCountry(debtorIban), ibanCountry(creditorIban)].find((c) => OUTSIDE_EEA.has(c)) ?? null;
}

/**
 * True when the company's account (the debtor of every SEPA file) is in a SEPA country outside the
 * EEA: then every transfer from it needs the creditor bank's BIC, whatever the creditor's country.
 */
export function debtorOutsideEea(debtorIban: string): boolean {
  return OUTSIDE_EEA.has(ibanCountry(debtorIban.replace(/\s+/g, "").toUpperCase()));
}
