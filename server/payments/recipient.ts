import { rowOf, type Tx } from "../../db/sql.ts";
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
