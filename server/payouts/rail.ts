/**
 * Payout rails (decision 031): where the payout desk sends a payment. A rail is an adapter in
 * front of whatever moves the money: a payments provider's API, a bank's file upload, or, by
 * default, a simulated rail. The desk pays the payment out in the ledger first and asks the rail
 * after (server/payouts/desk.ts), so a rail must answer the same way when asked twice about one
 * payment: a retry after a crash between the two asks again.
 */
import type { PaymentRow } from "../payments/answer.ts";

export interface PayoutRail {
  /** The rail's name for the desk and the timeline ("simulated rail", "SEPA file"). */
  readonly name: string;
  /**
   * Hands the payment to the rail. Answers the rail's reference for it (the same reference every
   * time for one payment), or throws RailRefused when the rail refuses it at once. Any other error
   * means the rail's answer is unknown: the payment stays sent, and the desk asks again.
   */
  submit(payment: PaymentRow): Promise<{ railReference: string }>;
}

/** The rail refused the payment at once: it will never pay it, so the payment fails. */
export class RailRefused extends Error {
  override name = "RailRefused";
  constructor(readonly reasons: readonly string[]) {
    super(reasons.join(" "));
  }
}
