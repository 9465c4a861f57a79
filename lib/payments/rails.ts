/**
 * Payout rails (decision 030): which rail a payment takes for the recipient's currency and bank
 * country (the scheme of the bank-details table, lib/bank-details/requirements.ts: one table for
 * what a recipient needs and how they are paid). Each rail's rules are ./rail-rules.ts.
 */
import { requirementsFor, SCHEMES } from "../bank-details/requirements.ts";
import type { Rail } from "./rail-rules.ts";

export * from "./rail-rules.ts";

/** Every payout rail: the recipients' bank-detail schemes (payments.rail in db/schema-payments.ts). */
export const PAYOUT_RAILS = SCHEMES;

/**
 * The rail of a payment in `currency` (the recipient's) to a bank in `country` (ISO 3166 alpha-2):
 * the scheme the bank-details table pays that pair with (EUR to a SEPA country by SEPA, GBP to the
 * UK by Faster Payments, USD to the US by ACH, ... anything else by SWIFT), or why that pair cannot
 * be paid (a country we do not pay, a currency paid only at home).
 */
export function railFor(currency: string, country: string): RailLookup {
  const key = `${currency.toUpperCase()}:${country.toUpperCase()}`;
  let found = looked.get(key);
  if (!found) {
    const requirement = requirementsFor(currency.toUpperCase(), country.toUpperCase());
    found = requirement.ok
      ? { ok: true, rail: requirement.requirement.scheme }
      : { ok: false, message: requirement.message };
    looked.set(key, found);
  }
  return found;
}

type RailLookup = { ok: true; rail: Rail } | { ok: false; message: string };

/** The table is fixed while the process runs, and every payment made asks: each pair is looked up once. */
const looked = new Map<string, RailLookup>();
