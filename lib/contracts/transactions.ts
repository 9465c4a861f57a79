/**
 * Transactions (issue 10, part 1; docs/decisions/036): every movement of the current account's
 * money, newest first, with filters and a cursor, one movement with its full cost and its
 * payment's timeline, and the same list as CSV.
 */
import { z } from "zod";
import type { PaymentStatus } from "../payments/statuses.ts";
import {
  amountText,
  calendarDay,
  currencyCode,
  currencyInput,
  idText,
  rateText,
  shownAccountQuery,
  text,
  timestamp,
} from "./common.ts";
import { defineCall } from "./define.ts";
import { describe, isCurrency } from "../money/currencies.ts";
import { CUSTOMER_GUARDS } from "./guards.ts";
import { paymentWithTimeline } from "./payments.ts";

/**
 * What a movement is, in the customer's words. One movement is one ledger transfer that touched
 * the account's balances (server/transactions/kinds.ts maps the ledger's kinds to these).
 */
export const MOVEMENT_KINDS = [
  "receipt",
  "receipt_reversal",
  "conversion",
  "payment_hold",
  "payment_release",
  "payment",
  "refund",
  "correction",
] as const;
export type MovementKind = (typeof MOVEMENT_KINDS)[number];

/** How each kind reads in a list and in the CSV. */
export const MOVEMENT_KIND_NAMES: Record<MovementKind, string> = {
  receipt: "Money received",
  receipt_reversal: "Receipt taken back",
  conversion: "Conversion",
  payment_hold: "Payment: money held",
  payment_release: "Payment: held money released",
  payment: "Payment sent",
  refund: "Payment refunded",
  correction: "Correction",
};

/**
 * A movement's status: a payment's movements carry their payment's status as it is now (a hold of
 * a payment waiting for approval is `pending_approval`); every other movement is `completed`.
 */
export const MOVEMENT_STATUSES = [
  "pending_approval",
  "approved",
  "submitted",
  "completed",
  "rejected",
  "cancelled",
  "failed",
] as const satisfies readonly PaymentStatus[];
export type MovementStatus = (typeof MOVEMENT_STATUSES)[number];

/** The most movements a page holds. */
export const MOVEMENTS_PER_PAGE_MAX = 100;

export const movementItem = z.object({
  /** The ledger transfer's id: /account/transactions/{id}. */
  id: z.number(),
  kind: z.enum(MOVEMENT_KINDS),
  status: z.enum(MOVEMENT_STATUSES),
  description: z.string(),
  created_at: timestamp,
  /** The currency the movement is about: what was sold in a conversion. */
  currency: currencyCode,
  /** What the available balance in `currency` changed by, signed ("-120.00"). */
  amount: amountText,
  /** What the money held for payments in `currency` changed by, signed ("0.00" for most). */
  held: amountText,
  /** A conversion's other side: the currency bought and what arrived; null otherwise. */
  counter_currency: currencyCode.nullable(),
  counter_amount: amountText.nullable(),
  /** The fee this movement charged (a conversion, a payment sent), or gave back, negative (a refund: "-1.00"). */
  fee: amountText.nullable(),
  fee_currency: currencyCode.nullable(),
  /** Our rate, for a conversion or a payment in another currency: 1 of `currency` in the other. */
  rate: rateText.nullable(),
  /** The payment's reference, or the bank reference a receipt quoted. */
  reference: z.string().nullable(),
  /** Who was paid (a payment's recipient) or who paid (a receipt's payer). */
  counterparty: z.string().nullable(),
  payment_id: z.number().nullable(),
});

/** The full cost of a conversion: what was sold and bought, at which rates, for what. */
export const movementCost = z.object({
  sell_currency: currencyCode,
  sell_amount: amountText,
  buy_currency: currencyCode,
  buy_amount: amountText,
  mid_rate: rateText.nullable(),
  rate: rateText.nullable(),
  /** What the rate's markup cost, in the currency sold; null when nothing was converted. */
  markup: amountText.nullable(),
  fee: amountText,
  fee_currency: currencyCode,
});

export const movementDetail = movementItem.extend({
  /** A conversion's or a payment's full cost; null for other movements. */
  cost: movementCost.nullable(),
  /** The payment this movement is a step of, with its timeline; null for other movements. */
  payment: paymentWithTimeline.nullable(),
  /** The receipt this movement booked, allocated or took back; null for other movements. */
  receipt: z.object({ payer_name: z.string(), reference: z.string(), received_at: z.string() }).nullable(),
});

export const movementPage = z.object({
  items: z.array(movementItem),
  /** Give it as `cursor` for the next page; null on the last page. */
  next_cursor: z.string().nullable(),
});

const date = (field: string) => calendarDay(field).optional();

/** The filters the list and the CSV share: each narrows; none given is every movement. */
export const movementFilters = {
  /** The first day (UTC) included. */
  from: date("from"),
  /** The last day (UTC) included. */
  to: date("to"),
  // A code we do not support is refused as statements refuse it: an empty list would say "nothing
  // moved in it", which is not what the customer asked.
  currency: currencyInput("currency is a currency code such as GBP.")
    .regex(/^[A-Z]{3}$/, { error: "currency is a currency code such as GBP." })
    .refine(isCurrency, { error: (iss) => `currency: ${describe(iss.input)} is not a currency we support.` })
    .optional(),
  kind: z.enum(MOVEMENT_KINDS, { error: `kind is one of ${MOVEMENT_KINDS.join(", ")}.` }).optional(),
  status: z.enum(MOVEMENT_STATUSES, { error: `status is one of ${MOVEMENT_STATUSES.join(", ")}.` }).optional(),
  /** Text in the reference, the recipient's name, the payer's name or the description. */
  q: text({
    label: "The search",
    max: 70,
    min: 0,
    wrong: "Search with some text.",
    tooLong: "Search with at most 70 characters.",
  }).optional(),
};

const CURSOR_PROBLEM = "cursor is the next_cursor of an earlier page.";

export const listTransactions = defineCall({
  method: "GET",
  path: "/account/transactions",
  summary: "Every movement of the account's money, newest first, filtered, a page at a time by cursor.",
  guards: CUSTOMER_GUARDS,
  permission: "account.view",
  query: z.object({
    ...movementFilters,
    cursor: text({ label: "The cursor", max: 40, wrong: CURSOR_PROBLEM, missing: CURSOR_PROBLEM })
      .regex(/^[0-9]{1,15}-[1-9][0-9]{0,15}$/, { error: CURSOR_PROBLEM }).optional(),
    limit: z.string().regex(/^[1-9][0-9]{0,2}$/, { error: "limit is a whole number from 1 to 100." })
      .transform(Number).pipe(
        z.number().max(MOVEMENTS_PER_PAGE_MAX, { error: "limit is a whole number from 1 to 100." }),
      )
      .optional().default(50),
  }),
  answer: movementPage,
});

// Declared before /account/transactions/:id so that "transactions.csv" is never read as an id.
export const transactionsCsv = defineCall({
  method: "GET",
  path: "/account/transactions.csv",
  summary:
    "The filtered movements as CSV (text/csv, streamed), newest first; not JSON. account_ref: the account the linking page shows (409 account_changed when the session works on another).",
  guards: CUSTOMER_GUARDS,
  permission: "account.view",
  query: z.object({ ...movementFilters, ...shownAccountQuery }),
  answer: z.string(),
});

export const getTransaction = defineCall({
  method: "GET",
  path: "/account/transactions/:id",
  summary: "One movement with its full cost (mid rate, our rate, markup, fee) and its payment's timeline.",
  guards: CUSTOMER_GUARDS,
  permission: "account.view",
  params: z.object({ id: idText }),
  answer: movementDetail,
});
