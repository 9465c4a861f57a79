/** The payment calls the customer's islands make, typed by their contracts (lib/contracts/payments.ts). */
import type * as payments from "../../lib/contracts/payments.ts";
import { type AnswerOf, type BodyOf, call } from "../lib/api.ts";
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
export const getApprovalRule = call<typeof payments.getApprovalRule>("GET", "/account/approvals");
export const setApprovalRule = call<typeof payments.setApprovalRule>("PUT", "/account/approvals");

export type PaymentQuote = AnswerOf<typeof payments.holdPaymentQuote>;
export type Payment = AnswerOf<typeof payments.makePayment>;
export type PaymentWithTimeline = AnswerOf<typeof payments.onePendingPayment>;
export type PaymentPage = AnswerOf<typeof payments.listPayments>;
export type ApprovalRule = AnswerOf<typeof payments.getApprovalRule>;
/** What the customer fixes: what they send, or what the recipient receives. */
export type PaymentFixed = BodyOf<typeof payments.holdPaymentQuote>["fixed"];

/** What a payment's money or state changes: refreshed after any payment is made or decided. */
export const PAYMENT_CHANGES = [paymentKeys.all, pendingPaymentKeys.all] as const;
