import { rowsOf } from "../../db/sql.ts";
import { type Rail, railFor, RAILS, referenceRules } from "../../lib/payments/rails.ts";
import type { ReferenceRules } from "../../lib/payments/reference.ts";
import type { Database } from "../../db/client.ts";

/** A recipient as the payment screen offers it: how they are paid and what reference fits. */
export interface RecipientChoice {
  id: number;
  name: string;
  currency: string;
  country: string;
  rail: Rail;
  rail_name: string;
  reference_max: number;
  /** The rail's reference rules, for the screen's check before anything is sent. */
  reference: ReferenceRules;
  /**
   * The last 4 characters of the account number or IBAN, what tells two recipients of one name
   * apart in the screen's list (shown masked, "••••3000"); never the whole number. Null without one.
   */
  account_ending: string | null;
}

/** The last 4 characters of the recipient's IBAN, else of their account number. */
export function accountEnding(details: Record<string, string>): string | null {
  const number = details.iban || details.account_number;
  return number ? number.slice(-4) : null;
}

/** The account's recipients that can be paid now, by name (those whose pair we no longer pay are left out). */
export async function recipientChoices(db: Database, accountId: number): Promise<RecipientChoice[]> {
  const rows = await rowsOf<{ id: number; name: string; currency: string; country: string; details: string }>(
    db,
    `SELECT id, name, currency, country, details FROM recipients WHERE account_id = ? AND deleted_at IS NULL
      ORDER BY name, id`,
    [accountId],
  );
  return rows.flatMap(({ details, ...r }) => {
    const route = railFor(r.currency, r.country);
    if (!route.ok) return [];
    const rules = RAILS[route.rail];
    return [{
      ...r,
      account_ending: accountEnding(JSON.parse(details) as Record<string, string>),
      rail: route.rail,
      rail_name: rules.name,
      reference_max: rules.referenceMax,
      reference: referenceRules(route.rail),
    }];
  });
}
