/**
 * Who hears about a payment, and what they are told (issue 8 item 6): the approvers when it needs
 * approval; its creator and the account's owners when it is approved, rejected, sent, arrived or
 * failed; its creator when someone else cancels it; and, when it is rejected or cancelled while it
 * waited, whoever was asked to approve it (decision 030, amended 2026-11-28). Never the person who
 * did it. Each gets an in-app notification, written in the caller's transaction with the status
 * change that causes it, so one is never without the other; the email follows from it
 * (server/notifications/email-outbox.ts), after the commit and off the request.
 */
import type { Database } from "../../db/client.ts";
import { rowsOf, run, type Tx } from "../../db/sql.ts";
import type { PaymentStatus } from "../../lib/payments/statuses.ts";
import type { AccountRole } from "../../lib/permissions.ts";
import { approveOrRejectBy } from "../../lib/payments/approval-notes.ts";
import { formatAmount } from "../money/amounts.ts";
import { type PaymentRow, rateHeldUntil } from "./answer.ts";

export const PAYMENT_NOTICES = [
  "approval_needed",
  "approved",
  "rejected",
  "cancelled",
  "sent",
  "arrived",
  "failed",
] as const;
export type PaymentNotice = (typeof PAYMENT_NOTICES)[number];

/** The notification kind of each notice (notifications.kind), and the email template it becomes. */
export const noticeKind = (notice: PaymentNotice) => `payment_${notice}`;

const APPROVERS: readonly AccountRole[] = ["owner", "admin", "approver"];

type NoticePayment = Pick<
  PaymentRow,
  | "id"
  | "accountId"
  | "createdBy"
  | "sellCurrency"
  | "sellMinor"
  | "buyCurrency"
  | "buyMinor"
  | "recipient"
  | "reason"
  | "approvedAt"
  | "createdAt"
>;

export interface NoticeOptions {
  /**
   * Who did it (not told); null for the portal itself, or for our team acting on a customer's behalf
   * (the customer did not do it, and is told like anyone else: decision 030, amended).
   */
  actorId: number | null;
  /** Their name, for the words ("Ada Lovelace approved..."). */
  actorName?: string | null;
  now: Date;
}

/** Where a payment's notification leads: its page. */
export const paymentLink = (paymentId: number) => `/account/pendingpayments/${paymentId}`;

/**
 * SQL that is true when the notification `n` asks for an action its payment no longer needs: an
 * "approval needed" whose payment is not waiting for approval any more (rejected, approved or
 * cancelled a moment after it was prepared). The notice is written when the payment is made, but
 * the email outbox and the notification queue show it later: they drop such a notice (and mark it
 * handled) instead of asking someone to approve what was already decided. Its payment is its
 * `payment_id` (the link is only where it leads).
 */
export const noticeSupersededSql = (n: string) =>
  `(${noLongerWaitingSql(n)} OR (${n}.kind = '${noticeKind("approval_needed")}' AND NOT ${stillMemberSql(n)}))`;

/** SQL: `n` is an "approval needed" whose payment no longer waits for approval. */
const noLongerWaitingSql = (n: string) =>
  `(${n}.kind = '${noticeKind("approval_needed")}' AND NOT EXISTS (SELECT 1 FROM payments sp
     WHERE sp.id = ${n}.payment_id AND sp.account_id = ${n}.account_id AND sp.status = 'pending_approval'))`;

/**
 * SQL that is true when the notification `n` is not to be shown or emailed any more: it asks for an
 * action its payment no longer needs (noticeSupersededSql), or its reader was removed from the
 * account it is about after it was written and before it reached them (stillMemberSql): someone
 * removed is not told what became of the account's payments, nor of its rate alerts. The queue and
 * the outbox mark it handled without showing or emailing it.
 */
export const noticeWithdrawnSql = (n: string) => `(${noLongerWaitingSql(n)} OR NOT ${stillMemberSql(n)})`;

/**
 * Whether the notice's reader is still a user of the account it is about (or it is about none):
 * someone removed is asked for nothing there any more, and is not told what became of its payments.
 */
export const stillMemberSql = (n: string) =>
  `(${n}.account_id IS NULL OR EXISTS (SELECT 1 FROM account_members sm
     WHERE sm.account_id = ${n}.account_id AND sm.user_id = ${n}.user_id))`;

/** What an "approval needed" notice asks of its reader, last in its text. */
const APPROVE_OR_REJECT = "Approve or reject it";

/**
 * What an approver is asked: for a payment converted on the way, by when, since its rate is held
 * only so long (decision 092) and an approval after that is refused.
 */
function approveOrReject(p: NoticePayment): string {
  const until = rateHeldUntil(p);
  return until ? approveOrRejectBy(until) : `${APPROVE_OR_REJECT}.`;
}

/**
 * An "approval needed" notice as a list of past notices shows it once its payment was decided
 * (noticeSupersededSql; `status` is the payment's now): kept, as what happened, but asking for
 * nothing. Its text says what became of the payment instead of "Approve or reject it". A payment
 * sent, arrived or failed was approved first (it fails only once approved).
 */
export function decidedNoticeText(body: string, status: PaymentStatus | null, member = true) {
  const became = !member
    ? "You are no longer a user of this account"
    : status === "rejected" || status === "cancelled"
    ? `It was ${status}`
    : status && status !== "pending_approval"
    ? "It was approved"
    : "It no longer needs approval";
  const asked = body.lastIndexOf(APPROVE_OR_REJECT);
  const told = asked > 0 ? body.slice(0, asked).trimEnd() : body;
  return { title: "A payment needed your approval", body: `${told} ${became}: nothing for you to do.` };
}

const money = (currency: string, minor: number) => `${formatAmount(currency, minor)} ${currency}`;

/**
 * The title and text of a notice about a payment; `asked` when its reader is told only because they
 * were asked to approve it (a cancellation is then no longer theirs to approve, rather than theirs).
 */
export function noticeText(
  p: NoticePayment,
  notice: PaymentNotice,
  actorName: string | null | undefined,
  asked = false,
) {
  const to = p.recipient.name;
  const paid = money(p.buyCurrency, p.buyMinor);
  const debited = money(p.sellCurrency, p.sellMinor);
  const who = actorName?.trim() || null;
  const why = p.reason ? `: ${p.reason}${/[.!?]$/.test(p.reason) ? "" : "."}` : ".";
  switch (notice) {
    case "approval_needed":
      return {
        title: "A payment needs your approval",
        body: `${who ?? "Someone on your account"} prepared a payment of ${paid} to ${to} (${debited} debited). ` +
          approveOrReject(p),
      };
    case "cancelled":
      return {
        title: "Payment cancelled",
        body: asked
          ? `${who ?? "Someone on your account"} cancelled the payment of ${paid} to ${to}${why} ` +
            "It no longer needs your approval."
          : `${who ?? "Someone on your account"} cancelled your payment of ${paid} to ${to}${why} ` +
            `The ${debited} held for it is back in your balance.`,
      };
    case "approved":
      return { title: "Payment approved", body: `${who ?? "An approver"} approved the payment of ${paid} to ${to}.` };
    case "rejected":
      return {
        title: "Payment rejected",
        body: `${who ?? "An approver"} rejected the payment of ${paid} to ${to}${why} ` +
          `The ${debited} held for it is back in your balance.`,
      };
    case "sent":
      return { title: "Payment sent", body: `The payment of ${paid} to ${to} is on its way to their bank.` };
    case "arrived":
      return { title: "Payment arrived", body: `The payment of ${paid} reached ${to}'s bank.` };
    case "failed":
      return {
        title: "Payment failed",
        body: `The payment of ${paid} to ${to} could not be made${why} ${debited} is back in your balance.`,
      };
  }
}

/**
 * Writes the in-app notifications of a notice about a payment, in the caller's transaction (give
 * it the transaction that changes the payment's status). Answers how many people were told.
 * Transitions (./transitions.ts) call it; call it yourself only for a status change made elsewhere.
 *
 * A payment cancelled by someone else is told to its creator (whether it waited or was approved).
 * A payment rejected or cancelled while it waited is also told to whoever was asked to approve it
 * and is still a user of the account (the others had it on their list of payments waiting, and it
 * left it): by email too if they were asked by email, else only in the portal. Someone whose
 * request was neither shown nor emailed yet (decided a moment after it was prepared) is told
 * nothing: the request itself is then dropped (noticeSupersededSql), so there is nothing to undo.
 */
export async function notifyPayment(
  executor: Database | Tx,
  payment: NoticePayment,
  notice: PaymentNotice,
  options: NoticeOptions,
): Promise<number> {
  const members = await rowsOf<{ user_id: number; role: AccountRole }>(
    executor,
    "SELECT user_id, role FROM account_members WHERE account_id = ?",
    [payment.accountId],
  );
  /** Who is told, and whether by email too. */
  const told = new Map<number, boolean>();
  /** Those of them told only because they were asked to approve it. */
  const asked = new Set<number>();
  for (const m of members) {
    const wanted = notice === "approval_needed"
      ? APPROVERS.includes(m.role) && m.user_id !== payment.createdBy
      : notice === "cancelled"
      ? m.user_id === payment.createdBy
      : m.role === "owner" || m.user_id === payment.createdBy;
    if (wanted && m.user_id !== options.actorId) told.set(m.user_id, true);
  }
  // Once approved, nothing was asked of the approvers any more.
  if (notice === "rejected" || (notice === "cancelled" && payment.approvedAt === null)) {
    const others = members.map((m) => m.user_id).filter((id) => id !== options.actorId && !told.has(id));
    for (const [id, emailed] of await askedToApprove(executor, payment.id, others)) {
      told.set(id, emailed);
      asked.add(id);
    }
  }
  if (!told.size) return 0;
  const theirs = noticeText(payment, notice, options.actorName);
  const askedOnly = noticeText(payment, notice, options.actorName, true);
  const at = options.now.getTime();
  const ids = [...told.keys()];
  await run(
    executor,
    `INSERT INTO notifications (user_id, account_id, kind, title, body, link, payment_id, created_at, emailed_at)
     VALUES ${ids.map(() => "(?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}`,
    ids.flatMap((id) => [
      id,
      payment.accountId,
      noticeKind(notice),
      ...(asked.has(id) ? [askedOnly.title, askedOnly.body] : [theirs.title, theirs.body]),
      paymentLink(payment.id),
      payment.id,
      at,
      // Not to be emailed: marked as if it had been, as the outbox marks what it leaves out.
      told.get(id) ? null : at,
    ]),
  );
  return ids.length;
}

/**
 * Among `userIds` (users of the payment's account now: someone removed is told nothing), those who
 * were asked to approve the payment and saw it asked, by id: true when the request was emailed,
 * false when it was only shown in the portal. Read through each person's notifications (the index
 * on user_id; notifications have none on payment_id): a handful of people, on a rare step.
 */
async function askedToApprove(executor: Database | Tx, paymentId: number, userIds: number[]) {
  if (!userIds.length) return new Map<number, boolean>();
  const rows = await rowsOf<{ user_id: number; emailed: number }>(
    executor,
    `SELECT n.user_id, MAX(n.emailed_at IS NOT NULL) AS emailed FROM notifications n
      WHERE n.user_id IN (${userIds.map(() => "?").join(", ")}) AND n.payment_id = ? AND n.kind = ?
        AND (n.delivered_at IS NOT NULL OR n.emailed_at IS NOT NULL)
      GROUP BY n.user_id`,
    [...userIds, paymentId, noticeKind("approval_needed")],
  );
  return new Map(rows.map((r) => [r.user_id, r.emailed === 1]));
}
