/** The account's payments as the list reads them (GET account/payments), a page at a time. */
import type { PaymentStatus } from "../../lib/payments/statuses.ts";
import { read } from "../lib/query-client.tsx";
import { paymentKeys } from "../lib/query-keys.ts";
import { listPayments } from "./calls.ts";

export const PAYMENTS_PER_PAGE = 20;

/** A page of the account's payments, newest first, of one status ("" for every status). */
export const paymentsQuery = (accountRef: string, status: PaymentStatus | "", page: number) =>
  read(paymentKeys.list(accountRef, status, page), listPayments, {
    query: { ...(status ? { status } : {}), page: String(page), per_page: String(PAYMENTS_PER_PAGE) },
  });
