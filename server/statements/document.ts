import type { Config } from "../config.ts";
import { companyBankDetails } from "../money/funding.ts";
import { CURRENCIES, type CurrencyCode, isCurrency } from "../../lib/money/currencies.ts";
import { formatMinor } from "../../lib/money/amounts.ts";
import type { StatementSection } from "./lines.ts";

/** Everything a statement file shows (decision 037): who issues it, whose it is, and its sections. */
export interface StatementDocument {
  company: { name: string; details: string[] };
  account: { ref: string; name: string };
  /** The period as asked, YYYY-MM-DD, both days included. */
  from: string;
  to: string;
  /** When the closing balances are taken. */
  closingAt: Date;
  generatedAt: Date;
  sections: StatementSection[];
}

/** The company as a statement names it: the portal's name and the bank account customers pay into. */
export function companyOnStatement(config: Pick<Config, "mailFrom" | "companyBank" | "supportEmail" | "publicUrl">) {
  const bank = companyBankDetails(config.companyBank);
  const name = /^\s*"?([^"<]+?)"?\s*</.exec(config.mailFrom)?.[1] ?? "Portal";
  return {
    name,
    details: [
      bank.account_name,
      bank.name,
      `IBAN ${bank.iban}, BIC ${bank.bic}`,
      `Sort code ${bank.sort_code}, account number ${bank.account_number}`,
      `${config.supportEmail} · ${config.publicUrl}`,
    ],
  };
}

/** Minor units as a plain decimal ("-1234.56"): what a spreadsheet reads. */
export function plainAmount(currency: string, minor: number): string {
  if (isCurrency(currency)) return formatMinor(currency as CurrencyCode, minor);
  return String(minor);
}

/** Minor units grouped for reading ("-1,234.56"). */
export function readableAmount(currency: string, minor: number): string {
  const plain = plainAmount(currency, minor);
  const [whole, fraction] = plain.replace("-", "").split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${minor < 0 ? "-" : ""}${grouped}${fraction === undefined ? "" : `.${fraction}`}`;
}

/** A moment as a statement shows it: UTC, to the minute ("2026-11-27 14:05"). */
export function statementTime(at: Date): string {
  return at.toISOString().slice(0, 16).replace("T", " ");
}

export const currencyName = (code: string) => isCurrency(code) ? CURRENCIES[code as CurrencyCode].name : code;
