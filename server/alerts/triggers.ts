import Big from "big.js";
import { and, eq, gt, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "../../db/client.ts";
import { receipts } from "../../db/schema-money.ts";
import { payments } from "../../db/schema-payments.ts";
import { consoleAlerts } from "../../db/schema-console.ts";
import type { Tx } from "../../db/sql.ts";
import { defineJob } from "../jobs/define.ts";
import { defineSchedule } from "../jobs/schedules.ts";
import { formatAmount } from "../money/amounts.ts";
import { crossValue } from "../money/rates.ts";
import { RAILS } from "../../lib/payments/rails.ts";
import { customerNamesByIds } from "../payments/people.ts";
import { latestRates } from "../money/pricing-inputs.ts";
import { raiseAlert } from "./alerts.ts";
import { IDENTITY_MISMATCH_TEXT } from "../../lib/compliance.ts";
import type { DocumentMismatch } from "../accounts/onboarding.ts";

/**
 * What raises the console's alerts by itself (issue 11, decision 045). Each is raised in the
 * transaction of its event where there is one, and carries a dedupe key (kind and subject), so a
 * retried call, a repeated webhook or the next run of the daily job raises nothing twice.
 */

/** The customer's display name (their email when they have no profile), or "A former customer". */
async function customerName(db: Database | Tx, userId: number): Promise<string> {
  return (await customerNamesByIds(db, [userId])).get(userId) ?? "A former customer";
}

/** What an alert about a payment needs of it to name it (decision 057). */
interface AlertedPayment {
  id: number;
  accountId: number;
  createdBy: number;
  rail?: string;
  /** The recipient as paid (JSON text when the row came from raw SQL). */
  recipient?: { name: string } | string;
}

/** The recipient's name, and the payout desk the payment is on ("local" or "transfer"). */
function paymentFacts(payment: AlertedPayment): { recipient: string | null; desk: string | null } {
  const recipient = typeof payment.recipient === "string"
    ? (JSON.parse(payment.recipient) as { name?: string }).name ?? null
    : payment.recipient?.name ?? null;
  return { recipient, desk: deskOf(payment.rail) };
}

/** The payout desk a payment's rail is worked on ("local" or "transfer"), which its alerts link to. */
function deskOf(rail: string | null | undefined): string | null {
  return rail ? (RAILS as Record<string, { kind: string }>)[rail]?.kind ?? null : null;
}

/** A receipt unmatched this long needs a person: the customer is waiting for their money. */
export const UNMATCHED_RECEIPT_MS = 24 * 60 * 60 * 1000;

/**
 * A payment worth more than `thresholdGbp` pounds (at the current rates) gets a second look. One an
 * administrator made on the customer's behalf is that administrator's action: the second look is
 * another administrator's (resolveAlert refuses the one who raised it).
 */
export async function alertIfLargePayment(
  tx: Database | Tx,
  payment: AlertedPayment & { sellCurrency: string; sellMinor: number },
  thresholdGbp: number,
  now: Date,
  onBehalfAdminId: number | null = null,
): Promise<void> {
  // Fixed SQL, its rates parsed once per table (pricing-inputs.ts): this runs for every payment made.
  const table = await latestRates(tx);
  const amount = formatAmount(payment.sellCurrency, payment.sellMinor);
  const pounds = crossValue(table, payment.sellCurrency, "GBP", amount, 2, Big.roundHalfEven);
  if (!pounds.gt(thresholdGbp)) return;
  const { recipient, desk } = paymentFacts(payment);
  await raiseAlert(tx, {
    kind: "large_payment",
    severity: "warning",
    subject: { payment_id: payment.id, account_id: payment.accountId, user_id: payment.createdBy, desk },
    message: `${await customerName(tx, payment.createdBy)} paid ${amount} ${payment.sellCurrency}` +
      `${recipient ? ` to ${recipient}` : ""}, above the ${thresholdGbp} GBP that needs a second look.`,
    createdBy: onBehalfAdminId,
    dedupeKey: `large_payment:${payment.id}`,
  }, now);
}

/** An identity check the provider failed, or asked to be tried again. */
export async function alertIdentityCheck(
  db: Database | Tx,
  userId: number,
  status: "retry" | "rejected",
  comment: string | null,
  reviewedAt: Date | null,
  now: Date,
): Promise<void> {
  const what = status === "retry" ? "must be tried again" : "failed";
  await raiseAlert(db, {
    kind: "identity_check",
    severity: status === "rejected" ? "warning" : "info",
    subject: { user_id: userId, status },
    message: `${await customerName(db, userId)}'s identity check ${what}${comment ? `: ${comment}` : "."}`,
    // One per verdict: a webhook delivered twice raises once; a later attempt's verdict is new.
    dedupeKey: `identity_check:${userId}:${status}:${reviewedAt?.getTime() ?? "-"}`,
  }, now);
}

/**
 * A payment that failed (the rail refused it, or an administrator failed it): the customer must hear
 * why. One an administrator failed is their action (`failedBy`): the alerts screen names them, and
 * another administrator resolves it (resolveAlert), as for every alert an administrator's own action
 * raises. A rail's refusal is the rail's: it names nobody.
 */
export async function alertPayoutFailed(
  tx: Database | Tx,
  payment: AlertedPayment & { sellCurrency?: string; sellMinor?: number },
  reason: string,
  now: Date,
  failedBy: number | null,
): Promise<void> {
  const { recipient, desk } = paymentFacts(payment);
  const amount = payment.sellCurrency && payment.sellMinor !== undefined
    ? ` of ${formatAmount(payment.sellCurrency, payment.sellMinor)} ${payment.sellCurrency}`
    : "";
  await raiseAlert(tx, {
    kind: "payout_failed",
    severity: "critical",
    subject: { payment_id: payment.id, account_id: payment.accountId, user_id: payment.createdBy, desk },
    message: `${await customerName(tx, payment.createdBy)}'s payment${amount}${
      recipient ? ` to ${recipient}` : ""
    } failed: ${reason}`,
    createdBy: failedBy,
    dedupeKey: `payout_failed:${payment.id}`,
  }, now);
}

/** The alert of a payout's return held as receipt `receiptId` (decision 093): one per return. */
export const payoutReturnAlertKey = (receiptId: number) => `payout_return:${receiptId}`;

/**
 * Our payout came back from the beneficiary's bank (decision 093): its money is held as receipt
 * `receiptId`, which nobody may allocate; the desk fails the payment (the refund) and the receipt
 * is settled against it. A payment already marked arrived cannot be failed: the alert says so. The
 * bank raised it, not the administrator who imported the file: anyone resolves it.
 */
export async function alertPayoutReturned(
  tx: Tx,
  payment: AlertedPayment & { status: string; buyCurrency: string; buyMinor: number },
  receiptId: number,
  why: string,
  now: Date,
): Promise<void> {
  const { recipient, desk } = paymentFacts(payment);
  const act = returnStillWaiting(payment.id, payment.status);
  await raiseAlert(tx, {
    kind: "payout_failed",
    severity: "critical",
    // The bank's reason is kept here only: the payout desk shows it on the payment's row (decision 093).
    subject: { payment_id: payment.id, receipt_id: receiptId, account_id: payment.accountId, desk, reason: why },
    message:
      `${await customerName(tx, payment.createdBy)}'s payment ${payment.id} of ${
        formatAmount(payment.buyCurrency, payment.buyMinor)
      } ${payment.buyCurrency}${recipient ? ` to ${recipient}` : ""} came back from the beneficiary's bank (${why}). ` +
      `Receipt ${receiptId} holds it and cannot be allocated: ${act}.`,
    createdBy: null,
    dedupeKey: payoutReturnAlertKey(receiptId),
  }, now);
}

/**
 * A customer waiting for a compliance decision before their account opens; with `mismatch`, the
 * identity check approved a document that is not the profile's (decision 085): the subject keeps
 * the reason and what the document said, for the review.
 */
export async function alertComplianceReview(
  db: Database | Tx,
  userId: number,
  now: Date,
  mismatch?: DocumentMismatch,
): Promise<void> {
  const why = mismatch ? ` ${IDENTITY_MISMATCH_TEXT[mismatch.reason]}.` : "";
  const subject = {
    user_id: userId,
    ...(mismatch ? { identity_mismatch: mismatch.reason, document: mismatch.document } : {}),
  };
  const message = `${await customerName(
    db,
    userId,
  )} is waiting for a compliance review before their account opens.${why}`;
  const dedupeKey = `compliance_review:${userId}`;
  const raised = await raiseAlert(
    db,
    { kind: "compliance_review", severity: "warning", subject, message, dedupeKey },
    now,
  );
  // A review already waiting (queued at an earlier approval, which the provider reopened since):
  // the document approved this time is not the profile's person, which its administrator must read
  // there, or they would open the account on the earlier document's match.
  if (raised === null && mismatch) {
    await db.update(consoleAlerts).set({ subject, message })
      .where(and(eq(consoleAlerts.dedupeKey, dedupeKey), isNull(consoleAlerts.resolvedAt)));
  }
}

/**
 * Raises an alert for each receipt unmatched for more than a day; answers how many were new. A
 * payout's return still waiting (decision 093) is reminded of again each day its alerts are all
 * resolved: resolving one does not settle it, and one whose payment was marked arrived waits until
 * someone asks the bank, with nothing else to bring it back to mind. Its key names the day, so two
 * runs at once raise it once.
 */
export async function alertUnmatchedReceipts(db: Database, now: Date): Promise<number> {
  const old = await db.select({ receipt: receipts, paymentStatus: payments.status, rail: payments.rail })
    .from(receipts)
    .leftJoin(payments, eq(payments.id, receipts.returnsPaymentId))
    .where(and(
      eq(receipts.status, "unmatched"),
      lt(receipts.createdAt, new Date(now.getTime() - UNMATCHED_RECEIPT_MS)),
    ));
  let raised = 0;
  for (const { receipt: r, paymentStatus, rail } of old) {
    const amount = `${formatAmount(r.currency, r.amountMinor)} ${r.currency}`;
    const payment = r.returnsPaymentId;
    if (payment !== null && await remindedOf(db, r.id, now)) continue;
    const id = await raiseAlert(
      db,
      payment === null
        ? {
          kind: "unmatched_receipt",
          severity: "warning",
          subject: { receipt_id: r.id },
          message: `A receipt of ${amount} from ${r.payerName} (${r.reference}) has matched no account ` +
            `for more than a day: allocate it.`,
          dedupeKey: `unmatched_receipt:${r.id}`,
        }
        : {
          kind: "unmatched_receipt",
          severity: "warning",
          // The desk, as the return's own alert has it: its link opens the payment's row there.
          subject: { receipt_id: r.id, payment_id: payment, desk: deskOf(rail) },
          message: `Receipt ${r.id} of ${amount} is payment ${payment} sent back by the beneficiary's bank, ` +
            `still not settled and not to be allocated: ${returnStillWaiting(payment, paymentStatus)}.`,
          // Once a day at most, while it waits.
          dedupeKey: `unmatched_receipt:${r.id}:${now.toISOString().slice(0, 10)}`,
        },
      now,
    );
    if (id !== null) raised++;
  }
  return raised;
}

/**
 * Whether a payout's return has an alert open, or one raised in the last day: its own (decision
 * 093) or a reminder. A reminder comes at most once a day, and only once the last is resolved.
 */
async function remindedOf(db: Database, receiptId: number, now: Date): Promise<boolean> {
  const [row] = await db.select({ id: consoleAlerts.id }).from(consoleAlerts).where(and(
    inArray(consoleAlerts.kind, ["payout_failed", "unmatched_receipt"]),
    alertAboutReceipt(receiptId),
    or(isNull(consoleAlerts.resolvedAt), gt(consoleAlerts.createdAt, new Date(now.getTime() - UNMATCHED_RECEIPT_MS))),
  )).limit(1);
  return row !== undefined;
}

/** An alert whose subject is receipt `receiptId` (a payout's return, its reminders, an unmatched receipt). */
export const alertAboutReceipt = (receiptId: number) =>
  sql`json_extract(${consoleAlerts.subject}, '$.receipt_id') = ${receiptId}`;

/** What a payout's return still waiting asks of an administrator, by its payment's status now. */
function returnStillWaiting(payment: number, status: string | null): string {
  return status === "completed"
    ? `payment ${payment} was marked arrived, so the desk cannot fail it: ` +
      "ask the bank whether the payment arrived or came back before anything is done"
    : `fail payment ${payment} on the payout desk to refund its customer; the receipt is then settled against it`;
}

/** The hourly look for receipts unmatched for more than a day (idempotent: the dedupe keys). */
export const unmatchedReceiptsJob = defineJob("alerts.unmatched_receipts", {
  payload: z.object({}),
  maxAttempts: 3,
  run: async (_payload, ctx) => ({ raised: await alertUnmatchedReceipts(ctx.db, ctx.now()) }),
});

export const unmatchedReceiptsSchedule = defineSchedule("alerts.unmatched_receipts", {
  pattern: "15 * * * *",
  job: unmatchedReceiptsJob,
  payload: () => ({}),
});
