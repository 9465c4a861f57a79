/**
 * Payments to recipients (issue 8; decisions 027 and 030): payment quotes with the full cost,
 * payments, the approval rule, pending payments (SPEC.md section 7's paths, exactly) and the
 * in-app notifications that tell people about them.
 */
import { z } from "zod";
import { PAYOUT_RAILS } from "../payments/rails.ts";
import { PAYMENT_EVENTS, PAYMENT_STATUSES } from "../payments/statuses.ts";
import {
  amountText,
  currencyCode,
  currencyInput,
  idText,
  idValue,
  pageOf,
  pageQuery,
  rateText,
  text,
  timestamp,
} from "./common.ts";
import { defineCall } from "./define.ts";
import { CUSTOMER_GUARDS } from "./guards.ts";

/** Someone of the account (or an administrator) as a payment's timeline names them. */
export const person = z.object({ id: z.number(), name: z.string(), email: z.string() });

/** What the full cost says, for a quote and for the payment made from it. */
const cost = {
  sell_currency: currencyCode,
  /** Everything debited from the balance, the transfer fee included. */
  sell_amount: amountText,
  buy_currency: currencyCode,
  /** What arrives. */
  buy_amount: amountText,
  /** The transfer fee, in fee_currency (the currency paid from). */
  fee: amountText,
  fee_currency: currencyCode,
  /** Null when the payment is in the balance's own currency: nothing is converted. */
  mid_rate: rateText.nullable(),
  rate: rateText.nullable(),
  /** What the rate's markup costs, in the currency paid from; null when nothing is converted. */
  markup: amountText.nullable(),
  priority: z.boolean(),
  rail: z.enum(PAYOUT_RAILS),
  /** local: a local scheme (SEPA, Faster Payments, ACH); transfer: an international (SWIFT) transfer. */
  rail_kind: z.enum(["local", "transfer"]),
  /** The rail in the customer's words. */
  rail_name: z.string(),
  expected_arrival: timestamp,
};

export const paymentQuote = z.object({
  id: z.string(),
  recipient_id: z.number(),
  ...cost,
  /** The longest reference the rail carries. */
  reference_max: z.number(),
  expires_at: timestamp,
});

export const paymentEvent = z.object({
  event: z.enum(PAYMENT_EVENTS),
  at: timestamp,
  /** Who did it: someone of the account, or the payout desk's administrator; null for the portal itself. */
  actor: person.nullable(),
  /** The administrator who acted on the customer's behalf, when one did. */
  on_behalf_admin: person.nullable(),
  note: z.string().nullable(),
});

export const payment = z.object({
  id: z.number(),
  status: z.enum(PAYMENT_STATUSES),
  recipient_id: z.number(),
  /** The recipient as paid, whatever the recipient became later. */
  recipient: z.object({
    name: z.string(),
    type: z.enum(["person", "business"]),
    currency: currencyCode,
    country: z.string(),
    details: z.record(z.string(), z.string()),
  }),
  ...cost,
  reference: z.string(),
  created_by: person,
  created_at: timestamp,
  /** While it waits for approval, until when its rate is guaranteed (decision 092): it cannot be approved after; null when nothing is converted or it no longer waits. */
  rate_held_until: timestamp.nullable(),
  /** Who approved it; null when it needed no approval or is not approved. */
  approved_by: person.nullable(),
  approved_at: timestamp.nullable(),
  /** Why it was rejected, cancelled or failed. */
  reason: z.string().nullable(),
  rail_reference: z.string().nullable(),
  /** What the person asking may do with it now; the note says why not when they may not approve, or what to know before approving (its preparer was removed from the account since). */
  actions: z.object({
    approve: z.boolean(),
    reject: z.boolean(),
    cancel: z.boolean(),
    note: z.string().nullable(),
  }),
});

export const paymentWithTimeline = payment.extend({ events: z.array(paymentEvent) });

export const approvalRule = z.object({
  mode: z.enum(["none", "all", "above"]),
  /** Currency → the amount from which a payment needs approval (mode "above"). */
  thresholds: z.record(z.string(), amountText),
  new_recipient: z.boolean(),
  updated_by: person.nullable(),
  updated_at: timestamp.nullable(),
});

export const notification = z.object({
  id: z.number(),
  kind: z.string(),
  title: z.string(),
  body: z.string(),
  link: z.string().nullable(),
  /** The account it is about: one person may belong to several (null: about none). */
  account_ref: z.string().nullable(),
  created_at: timestamp,
  read: z.boolean(),
});

/** A payment addressed by `?id=` (SPEC.md section 7's pending payment calls). */
const byQueryId = z.object({ id: idText });

export const holdPaymentQuote = defineCall({
  method: "POST",
  path: "/account/payments/quote",
  summary: "The full cost of a payment to a recipient, held until expires_at.",
  guards: CUSTOMER_GUARDS,
  movesMoney: true,
  permission: "payments.prepare",
  body: z.object({
    recipient_id: idValue("Choose the recipient."),
    amount: text({ label: "The amount", max: 64, missing: "Enter an amount." }),
    fixed: z.enum(["send", "receive"], { error: "fixed is send or receive." }),
    sell_currency: currencyInput("Choose the balance to pay from."),
    priority: z.boolean({ error: "priority is true or false." }).default(false),
  }),
  answer: paymentQuote,
});

export const makePayment = defineCall({
  method: "POST",
  path: "/account/payments",
  summary: "Makes a payment from a held quote: its money is held at once; it waits for approval when the rule says so.",
  guards: CUSTOMER_GUARDS,
  movesMoney: true,
  permission: "payments.prepare",
  body: z.object({
    quote_id: text({ label: "The quote", max: 64, missing: "Give the quote to pay by." }),
    reference: text({
      label: "The reference",
      max: 500,
      min: 0,
      missing: "Enter a reference for the recipient.",
      tooLong: "The reference is too long.",
    }),
  }),
  answer: payment,
  status: 201,
});

export const listPayments = defineCall({
  method: "GET",
  path: "/account/payments",
  summary: "The account's payments, newest first, optionally of one status.",
  guards: CUSTOMER_GUARDS,
  permission: "account.view",
  query: z.object({
    status: z.enum(PAYMENT_STATUSES, { error: `status is one of ${PAYMENT_STATUSES.join(", ")}.` }).optional(),
    ...pageQuery,
  }),
  answer: pageOf(payment),
});

export const getPayment = defineCall({
  method: "GET",
  path: "/account/payments/:id",
  summary: "A payment of the account with its timeline: who did what and when, on whose behalf.",
  guards: CUSTOMER_GUARDS,
  permission: "account.view",
  params: z.object({ id: idText }),
  answer: paymentWithTimeline,
});

export const cancelPayment = defineCall({
  method: "POST",
  path: "/account/payments/:id/cancel",
  summary: "Cancels a payment not yet sent (its creator, an owner or an admin); the held money returns.",
  guards: CUSTOMER_GUARDS,
  movesMoney: false,
  // Any user of the account reaches it; the service lets only its creator (whatever their role
  // now), an owner or an admin cancel (server/payments/answer.ts mayCancel, decision 076).
  permission: "account.view",
  params: z.object({ id: idText }),
  body: z.object({
    reason: text({ label: "The reason", max: 500, min: 0, tooLong: "The reason has at most 500 characters." })
      .optional(),
  }),
  answer: paymentWithTimeline,
});

export const getApprovalRule = defineCall({
  method: "GET",
  path: "/account/approvals",
  summary: "The account's approval rule: which payments need a second person's approval.",
  guards: CUSTOMER_GUARDS,
  permission: "account.view",
  answer: approvalRule,
});

export const setApprovalRule = defineCall({
  method: "PUT",
  path: "/account/approvals",
  summary: "Sets the approval rule; refused when nobody else on the account could approve.",
  guards: CUSTOMER_GUARDS,
  movesMoney: false,
  permission: "approvals.manage",
  body: z.object({
    mode: z.enum(["none", "all", "above"], { error: "mode is none, all or above." }),
    thresholds: z.record(
      currencyInput("A threshold's currency is a currency code."),
      text({ label: "A threshold", max: 64, wrong: "A threshold is an amount such as 1000.00." }),
    ).default({}),
    new_recipient: z.boolean({ error: "new_recipient is true or false." }).default(false),
  }),
  answer: approvalRule,
});

export const allPendingPayments = defineCall({
  method: "GET",
  path: "/account/pendingpayments/all",
  summary: "Every payment of the account waiting for approval, oldest first.",
  guards: CUSTOMER_GUARDS,
  permission: "account.view",
  answer: z.array(payment),
});

export const onePendingPayment = defineCall({
  method: "GET",
  path: "/account/pendingpayments/one",
  summary: "A payment of the account with its timeline, whatever its status now.",
  guards: CUSTOMER_GUARDS,
  permission: "account.view",
  query: byQueryId,
  answer: paymentWithTimeline,
});

export const approvePendingPayment = defineCall({
  method: "PUT",
  path: "/account/pendingpayments/update",
  summary: "Approves a pending payment (empty body). Never one's own; 409 when it is no longer pending, or when its " +
    "recipient was deleted, or their bank details changed, since it was prepared (it can only be rejected).",
  guards: CUSTOMER_GUARDS,
  movesMoney: true,
  permission: "payments.approve",
  query: byQueryId,
  answer: paymentWithTimeline,
});

export const rejectPendingPayment = defineCall({
  method: "DELETE",
  path: "/account/pendingpayments/one",
  summary: "Rejects a pending payment, with an optional reason in a JSON body; the held money returns.",
  guards: CUSTOMER_GUARDS,
  movesMoney: false,
  permission: "payments.approve",
  query: byQueryId,
  body: z.object({
    reason: text({
      label: "The reason",
      max: 500,
      min: 0,
      wrong: "The reason is text.",
      tooLong: "The reason has at most 500 characters.",
    }).optional(),
  }),
  answer: paymentWithTimeline,
});

export const pagedPendingPayments = defineCall({
  method: "GET",
  path: "/account/pendingpayments/paginated",
  summary: "The account's payments waiting for approval, a page at a time, oldest first.",
  guards: CUSTOMER_GUARDS,
  permission: "account.view",
  query: z.object(pageQuery),
  answer: pageOf(payment),
});

export const listNotifications = defineCall({
  method: "GET",
  path: "/account/notifications",
  summary: "The latest in-app notifications of the person signed in (or acted for), newest first.",
  guards: CUSTOMER_GUARDS,
  answer: z.array(notification),
});

export const readNotifications = defineCall({
  method: "POST",
  path: "/account/notifications/read",
  summary: "Marks notifications of the person signed in as read.",
  guards: CUSTOMER_GUARDS,
  movesMoney: false,
  body: z.object({
    ids: z.array(z.number().int().positive(), { error: "ids is a list of notification ids." }).max(100),
  }),
  answer: z.object({ read: z.number() }),
});
