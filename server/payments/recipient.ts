import { rowOf, rowsOf, type Tx } from "../../db/sql.ts";
import { type Rail, railFor, RAILS, referenceRules, speedText } from "../../lib/payments/rails.ts";
import type { ReferenceRules } from "../../lib/payments/reference.ts";
import type { Database } from "../../db/client.ts";
import type { payments, RecipientType } from "../../db/schema-payments.ts";

/** What a payment records of its recipient: what is paid out, whatever the recipient becomes later. */
export type RecipientSnapshot = (typeof payments.$inferSelect)["recipient"];

export interface PayableRecipient {
  id: number;
  /** When its bank details last changed (creation counts): the approval rule may look at it. */
  detailsChangedAt: number;
  snapshot: RecipientSnapshot;
}

interface RecipientRow {
  id: number;
  name: string;
  type: RecipientType;
  currency: string;
  country: string;
  email: string | null;
  details: string;
  details_changed_at: number;
}

// Read on every payment made: fixed SQL (db/sql.ts).
const PAYABLE = `SELECT id, name, type, currency, country, email, details, details_changed_at FROM recipients
  WHERE id = ? AND account_id = ? AND deleted_at IS NULL`;

/**
 * A recipient of the account that can be paid (not deleted), with the snapshot a payment keeps.
 * The recipients work (server/recipients/) owns the table; this reads it the way payments need.
 */
export async function payableRecipient(
  executor: Database | Tx,
  accountId: number,
  recipientId: number,
): Promise<PayableRecipient | undefined> {
  const row = await rowOf<RecipientRow>(executor, PAYABLE, [recipientId, accountId]);
  if (!row) return undefined;
  return {
    id: row.id,
    detailsChangedAt: row.details_changed_at,
    snapshot: {
      name: row.name,
      type: row.type,
      currency: row.currency,
      country: row.country,
      email: row.email,
      details: JSON.parse(row.details) as Record<string, string>,
    },
  };
}

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
  /** When it arrives, regular and priority, in words. */
  speeds: { regular: string; priority: string };
}

/** The account's recipients that can be paid now, by name (those whose pair we no longer pay are left out). */
export async function recipientChoices(db: Database, accountId: number): Promise<RecipientChoice[]> {
  const rows = await rowsOf<{ id: number; name: string; currency: string; country: string }>(
    db,
    "SELECT id, name, currency, country FROM recipients WHERE account_id = ? AND deleted_at IS NULL ORDER BY name, id",
    [accountId],
  );
  return rows.flatMap((r) => {
    const route = railFor(r.currency, r.country);
    if (!route.ok) return [];
    const rules = RAILS[route.rail];
    return [{
      ...r,
      rail: route.rail,
      rail_name: rules.name,
      reference_max: rules.referenceMax,
      reference: referenceRules(route.rail),
      speeds: { regular: speedText(route.rail, false), priority: speedText(route.rail, true) },
    }];
  });
}
