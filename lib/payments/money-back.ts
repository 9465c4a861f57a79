/**
 * What became of the money of a payment that ended without reaching its recipient (rejected,
 * cancelled, failed), in the words of the email that tells the customer: the payment's page and the
 * transaction detail of its movements say the same. A payment that failed after it was sent was
 * refunded; any other was released, never sent.
 */
import type { PaymentEvent, PaymentStatus } from "./statuses.ts";
import { UNPAID_STATUSES } from "./statuses.ts";

export const isUnpaid = (status: string): boolean => (UNPAID_STATUSES as readonly string[]).includes(status);

/** Whether it left for its rail (sent, or exported in a file) before it ended. */
export const wasSent = (events: readonly { event: PaymentEvent | string }[]): boolean =>
  events.some((e) => e.event === "submitted" || e.event === "exported");

/** The sentence, or null for a payment still on its way or arrived. */
export function moneyBackText(
  payment: {
    status: PaymentStatus | string;
    sell_amount: string;
    sell_currency: string;
    events: readonly { event: string }[];
  },
): string | null {
  const back = `${payment.sell_amount} ${payment.sell_currency} is back in your balance`;
  switch (payment.status) {
    case "failed":
      return wasSent(payment.events)
        ? `The payment failed after it was sent and was refunded: ${back}.`
        : `The payment failed before it was sent, so nothing was sent: ${back}.`;
    case "rejected":
      return `The payment was rejected, so it was never sent: ${back}.`;
    case "cancelled":
      return `The payment was cancelled before it was sent: ${back}.`;
    default:
      return null;
  }
}

/** The cost's two totals, as they are, or as they would have been for a payment that was not paid. */
export const costLabels = (status: string) =>
  isUnpaid(status)
    ? { debited: "Would have been debited", arrives: "The recipient would have got" }
    : { debited: "Total debited", arrives: "The recipient gets" };
