/**
 * The pending payments' queries, apart from ./calls.ts: they read the on-behalf mode, whose module
 * travels with the on-behalf banner (vite.config.ts), and the payment form needs neither.
 */
import { onBehalfStore } from "../lib/on-behalf.ts";
import { read } from "../lib/query-client.tsx";
import { pendingPaymentKeys } from "../lib/query-keys.ts";
import { allPendingPayments, onePendingPayment } from "./calls.ts";

/**
 * Whether a page's payments are still its viewer's to read. SPEC.md section 4 reloads pending
 * payments when on-behalf mode is set or cleared; a page an administrator was shown on a customer's
 * behalf is not read again once that mode is cleared (or is another customer's): the banner leaves
 * the page, and the customer's payments are no longer the administrator's to fetch.
 */
export const readable = (actingFor: number | null) => () =>
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
