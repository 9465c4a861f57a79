import { largePaymentThreshold } from "../../server/alerts/threshold.ts";
import { alertIfLargePayment } from "../../server/alerts/triggers.ts";
import { Hono } from "hono";
import type { Context } from "hono";
import type { AnswerOf } from "../../lib/contracts/define.ts";
import * as calls from "../../lib/contracts/payments.ts";
import { currentAccount, customerOf } from "../../server/accounts/current.ts";
import type { AppEnv } from "../../server/env.ts";
import { type AnswerWithEffect, route } from "../../server/http/route.ts";
import { accountFeeOverrides } from "../../server/money/fee-overrides.ts";
import { latestNotifications, markRead } from "../../server/notifications/inbox.ts";
import { paymentAnswer, type PaymentRow, type Viewer } from "../../server/payments/answer.ts";
import type { Person } from "../../server/payments/people.ts";
import type { Tx } from "../../db/sql.ts";
import { approvalRuleAnswer, setApprovalRule } from "../../server/payments/approval-rules.ts";
import { createPayment } from "../../server/payments/create.ts";
import { holdPaymentQuote } from "../../server/payments/quotes.ts";
import {
  allPendingPayments,
  listPayments,
  paymentWithTimeline,
  pendingPaymentsPage,
  timelineOf,
} from "../../server/payments/read.ts";
import { approvePayment, cancelPayment, rejectPayment } from "../../server/payments/transitions.ts";
import { Refused } from "../../server/errors.ts";
import { paymentActorOf } from "../payment-actor.ts";

/** Payments to recipients, their approval, and the notifications about them (docs/API.md "Payments"). */

const now = (c: Context<AppEnv>) => new Date(c.get("services").now());

/** Notifications were written with the change: their emails go out soon, off this request. */
const mailSoon = (c: Context<AppEnv>) => c.get("services").emailOutbox.kick();

type PaymentWithTimeline = AnswerOf<typeof calls.approvePendingPayment>;

/**
 * A status change's answer, the payment with its timeline, read inside the change's transaction
 * and stored there under the request's Idempotency-Key (decision 025): it commits with the change,
 * so a retry after a crash between the COMMIT and the reply is told what happened.
 */
function withTimeline(answer: AnswerWithEffect<PaymentWithTimeline>, viewer: Viewer, known: Person[]) {
  let made: PaymentWithTimeline | undefined;
  return {
    alongside: async (tx: Tx, row: PaymentRow) => {
      made = await timelineOf(tx, row, viewer, known);
      await answer.storeWith(tx, made);
    },
    answer: () => made!,
  };
}

export const paymentCalls = new Hono<AppEnv>();

/** Every write of these calls is in the transaction that stores their answer: their key is claimed there (decision 053). */
const WITH_EFFECT = { claimsKeyWithEffect: true };

route(paymentCalls, calls.holdPaymentQuote, async (c, { body }) => {
  const { accountId, customer } = await currentAccount(c);
  return await holdPaymentQuote(
    c.get("db"),
    {
      recipientId: body.recipient_id,
      amount: body.amount,
      fixed: body.fixed,
      sellCurrency: body.sell_currency,
      priority: body.priority,
    },
    // The account holder's overrides, whoever of its members asks (decision 064).
    { accountId, userId: customer.id, overrides: await accountFeeOverrides(c.get("db"), accountId) },
    now(c),
    c.get("config").quoteValiditySeconds * 1000,
  );
});

route(paymentCalls, calls.makePayment, async (c, { body }, answer) => {
  const { actor, viewer, known } = await paymentActorOf(c);
  const people = new Map(known.map((p) => [p.id, p]));
  // The answer commits with the payment: a retry after a crash still learns it was made.
  let made: AnswerOf<typeof calls.makePayment> | undefined;
  await createPayment(
    c.get("db"),
    actor,
    { quoteId: body.quote_id, reference: body.reference },
    now(c),
    async (tx, payment) => {
      made = paymentAnswer(payment, people, viewer);
      await answer.storeWith(tx, made);
      const threshold = await largePaymentThreshold(tx, c.get("config").alertPaymentGbp);
      await alertIfLargePayment(tx, payment, threshold, now(c), actor.onBehalfAdminId);
    },
  );
  mailSoon(c);
  return made!;
}, WITH_EFFECT);

route(paymentCalls, calls.listPayments, async (c, { query }) => {
  const { actor, viewer } = await paymentActorOf(c);
  return await listPayments(
    c.get("db"),
    actor.accountId,
    { status: query.status, page: query.page, perPage: query.per_page },
    viewer,
  );
});

route(paymentCalls, calls.getPayment, async (c, { params }) => {
  const { actor, viewer } = await paymentActorOf(c);
  return await paymentWithTimeline(c.get("db"), actor.accountId, params.id, viewer);
});

route(paymentCalls, calls.cancelPayment, async (c, { params, body }, answer) => {
  const { actor, viewer, known } = await paymentActorOf(c);
  const made = withTimeline(answer, viewer, known);
  await cancelPayment(c.get("db"), actor, params.id, body.reason ?? null, now(c), made.alongside);
  mailSoon(c);
  return made.answer();
}, WITH_EFFECT);

route(paymentCalls, calls.getApprovalRule, async (c) => {
  const { accountId } = await currentAccount(c);
  return await approvalRuleAnswer(c.get("db"), accountId);
});

route(paymentCalls, calls.setApprovalRule, async (c, { body }) => {
  const { accountId, customer } = await currentAccount(c);
  const onBehalfAdminId = c.get("onBehalf") ? c.get("user")!.id : null;
  await setApprovalRule(c.get("db"), accountId, body, { userId: customer.id, onBehalfAdminId }, now(c));
  return await approvalRuleAnswer(c.get("db"), accountId);
});

route(paymentCalls, calls.allPendingPayments, async (c) => {
  const { actor, viewer } = await paymentActorOf(c);
  return await allPendingPayments(c.get("db"), actor.accountId, viewer);
});

route(paymentCalls, calls.onePendingPayment, async (c, { query }) => {
  const { actor, viewer } = await paymentActorOf(c);
  return await paymentWithTimeline(c.get("db"), actor.accountId, query.id, viewer);
});

route(paymentCalls, calls.approvePendingPayment, async (c, { query }, answer) => {
  const { actor, viewer, known } = await paymentActorOf(c);
  const made = withTimeline(answer, viewer, known);
  await approvePayment(c.get("db"), actor, query.id, now(c), made.alongside);
  mailSoon(c);
  return made.answer();
}, WITH_EFFECT);

route(paymentCalls, calls.rejectPendingPayment, async (c, { query, body }, answer) => {
  const { actor, viewer, known } = await paymentActorOf(c);
  const made = withTimeline(answer, viewer, known);
  await rejectPayment(c.get("db"), actor, query.id, body.reason ?? null, now(c), made.alongside);
  mailSoon(c);
  return made.answer();
}, WITH_EFFECT);

route(paymentCalls, calls.pagedPendingPayments, async (c, { query }) => {
  const { actor, viewer } = await paymentActorOf(c);
  return await pendingPaymentsPage(c.get("db"), actor.accountId, query.page, query.per_page, viewer);
});

route(paymentCalls, calls.listNotifications, async (c) => {
  return await latestNotifications(c.get("db"), customerOf(c)!.id);
});

route(paymentCalls, calls.readNotifications, async (c, { body }) => {
  // Whether a customer has read something is theirs to say, not an administrator's on their behalf.
  if (c.get("onBehalf")) throw new Refused("Only the customer can mark their notifications read.");
  return { read: await markRead(c.get("db"), c.get("user")!.id, body.ids, now(c)) };
});
