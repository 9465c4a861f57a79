import type { LedgerTransferKind } from "../../db/schema-money.ts";
import type { MovementKind } from "../../lib/contracts/transactions.ts";

/**
 * The ledger's transfer kinds as the customer reads them (docs/decisions/036). An allocation is
 * the customer's receipt reaching them later (it matched no account_ref at first): to them it is
 * money received. A payment's settlement moves only the house's money, so it is no movement of
 * theirs (the payment's status says it arrived).
 */
export const KIND_OF: Record<LedgerTransferKind, MovementKind | null> = {
  receipt: "receipt",
  allocation: "receipt",
  receipt_reversal: "receipt_reversal",
  conversion: "conversion",
  correction: "correction",
  payment_hold: "payment_hold",
  payment_release: "payment_release",
  payment_payout: "payment",
  payment_settlement: null,
  payment_refund: "refund",
};

/** The ledger kinds a movement kind stands for. */
export function ledgerKindsOf(kind: MovementKind): LedgerTransferKind[] {
  return (Object.entries(KIND_OF) as [LedgerTransferKind, MovementKind | null][])
    .filter(([, k]) => k === kind).map(([ledger]) => ledger);
}

/** A payment's transfers are referenced `payment:<id>:<step>` (decision 027): the payment's id. */
export function paymentIdOf(reference: string | null): number | null {
  const match = reference?.match(/^payment:([1-9][0-9]*):/);
  return match ? Number(match[1]) : null;
}

/** The same in SQL, over the transfer `t`, for the filters that read the payment. */
export const PAYMENT_ID_SQL = "CAST(substr(t.reference, 9, instr(substr(t.reference, 9), ':') - 1) AS INTEGER)";
