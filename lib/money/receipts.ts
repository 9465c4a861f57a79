/**
 * What a receipt can be (server/money/receipts.ts), shared by the schema, the contracts and the
 * console:
 * - matched: its reference named one open account, which was credited;
 * - unmatched: booked to the house's unallocated funds, waiting for a person to allocate it;
 * - allocated: an unmatched receipt a person credited to an account;
 * - awaiting_approval: above the approval amount (itself, its bank entry, or with the receipts credited
 *   to its account without approval in 24 hours), waiting for a second administrator (not booked);
 * - held_duplicate: the same reference, amount, currency and date as an earlier receipt, held for a
 *   second administrator to release, or for anyone to discard (not booked);
 * - declined, discarded: closed without being booked (from awaiting_approval, held_duplicate);
 * - reversed: booked, then taken back out with reversing entries.
 */
export const RECEIPT_STATUSES = [
  "matched",
  "unmatched",
  "allocated",
  "awaiting_approval",
  "held_duplicate",
  "declined",
  "discarded",
  "reversed",
] as const;
export type ReceiptStatus = (typeof RECEIPT_STATUSES)[number];

/** The statuses of a receipt that is not booked in the ledger (its transfer_id is null). */
export const UNBOOKED_RECEIPT_STATUSES = ["awaiting_approval", "held_duplicate", "declined", "discarded"] as const;
