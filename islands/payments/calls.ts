/** The payment calls the customer's islands make, typed by their contracts (lib/contracts/payments.ts). */
import type * as payments from "../../lib/contracts/payments.ts";
import { type AnswerOf, type BodyOf, call } from "../lib/api.ts";
import { onBehalfStore } from "../lib/on-behalf.ts";
import { read } from "../lib/query-client.tsx";
import { paymentKeys, pendingPaymentKeys } from "../lib/query-keys.ts";

export const holdPaymentQuote = call<typeof payments.holdPaymentQuote>("POST", "/account/payments/quote");
export const makePayment = call<typeof payments.makePayment>("POST", "/account/payments");
export const listPayments = call<typeof payments.listPayments>("GET", "/account/payments");
export const cancelPayment = call<typeof payments.cancelPayment>("POST", "/account/payments/:id/cancel");
export const allPendingPayments = call<typeof payments.allPendingPayments>("GET", "/account/pendingpayments/all");
export const onePendingPayment = call<typeof payments.onePendingPayment>("GET", "/account/pendingpayments/one");
export const approvePendingPayment = call<typeof payments.approvePendingPayment>(
  "PUT",
  "/account/pendingpayments/update",
);
export const rejectPendingPayment = call<typeof payments.rejectPendingPayment>(
  "DELETE",
  "/account/pendingpayments/one",
);

export type PaymentQuote = AnswerOf<typeof payments.holdPaymentQuote>;
export type Payment = AnswerOf<typeof payments.makePayment>;
export type PaymentWithTimeline = AnswerOf<typeof payments.onePendingPayment>;
export type PaymentPage = AnswerOf<typeof payments.listPayments>;
/** What the customer fixes: what they send, or what the recipient receives. */
export type PaymentFixed = BodyOf<typeof payments.holdPaymentQuote>["fixed"];

/**
 * Whether a page's payments are still its viewer's to read. SPEC.md section 4 reloads pending
 * payments when on-behalf mode is set or cleared; a page an administrator was shown on a customer's
 * behalf is not read again once that mode is cleared (or is another customer's): the banner leaves
 * the page, and the customer's payments are no longer the administrator's to fetch.
 */
const readable = (actingFor: number | null) => () =>
  actingFor === null || (onBehalfStore.get()?.id ?? null) === actingFor;

/** The account's payments waiting for approval: the pending list and the dashboard read it. */
export const pendingQuery = (accountRef: string, actingFor: number | null) => ({
  ...read(pendingPaymentKeys.list(accountRef), allPendingPayments),
  enabled: readable(actingFor),
});

/** One payment with its timeline, for its page. */
export const paymentQuery = (accountRef: string, id: number, actingFor: number | null) => ({
  ...read(pendingPaymentKeys.one(accountRef, id), onePendingPayment, { query: { id: String(id) } }),
  enabled: readable(actingFor),
});

/** The account's latest payments. */
export const latestPaymentsQuery = (accountRef: string) =>
  read(paymentKeys.latest(accountRef), listPayments, { query: { per_page: "10" } });

/** What a payment's money or state changes: refreshed after any payment is made or decided. */
export const PAYMENT_CHANGES = [paymentKeys.all, pendingPaymentKeys.all] as const;
