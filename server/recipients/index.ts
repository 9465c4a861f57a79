/**
 * Recipients as the rest of the server reads them (payments, the payout desk): one recipient of an
 * account, and the snapshot a payment keeps of it. The calls' service is ./service.ts.
 */
import type { Database } from "../../db/client.ts";
import { type payments, recipients } from "../../db/schema-payments.ts";
import { columnList, fromColumns, rowOf, type Tx } from "../../db/sql.ts";
import { NotFound } from "../errors.ts";

export type Recipient = typeof recipients.$inferSelect;

/** What a payment records of its recipient: what is paid out, whatever the recipient becomes later. */
export type RecipientSnapshot = (typeof payments.$inferSelect)["recipient"];

export const NO_SUCH_RECIPIENT = "There is no such recipient.";

// Read on every payment made: fixed SQL (db/sql.ts). Another account's recipient and a deleted one
// are the same answer as none: the caller learns nothing of recipients it cannot use.
const OF_ACCOUNT = `SELECT ${columnList(recipients)} FROM recipients
  WHERE id = ? AND account_id = ? AND deleted_at IS NULL`;

/**
 * A recipient of the account that has not been deleted, or NotFound (404). Inside a transaction,
 * pass the transaction so the read is part of it.
 */
export async function recipientFor(executor: Database | Tx, accountId: number, id: number): Promise<Recipient> {
  const row = await rowOf<Record<string, unknown>>(executor, OF_ACCOUNT, [id, accountId]);
  if (!row) throw new NotFound(NO_SUCH_RECIPIENT);
  return fromColumns(recipients, row);
}

/** The recipient as a payment keeps it: name, type, currency, country, email and bank details. */
export function recipientSnapshot(recipient: Recipient): RecipientSnapshot {
  return {
    name: recipient.name,
    type: recipient.type,
    currency: recipient.currency,
    country: recipient.country,
    email: recipient.email,
    details: { ...recipient.details },
  };
}
