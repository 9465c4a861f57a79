import Big from "big.js";
import { and, eq, lt } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "../../db/client.ts";
import { receipts } from "../../db/schema-money.ts";
import type { Tx } from "../../db/sql.ts";
import { defineJob } from "../jobs/define.ts";
import { defineSchedule } from "../jobs/schedules.ts";
import { formatAmount } from "../money/amounts.ts";
import { crossValue } from "../money/rates.ts";
import { latestRates } from "../money/pricing-inputs.ts";
import { raiseAlert } from "./alerts.ts";

/**
 * What raises the console's alerts by itself (issue 11, decision 045). Each is raised in the
 * transaction of its event where there is one, and carries a dedupe key (kind and subject), so a
 * retried call, a repeated webhook or the next run of the daily job raises nothing twice.
 */

/** A receipt unmatched this long needs a person: the customer is waiting for their money. */
export const UNMATCHED_RECEIPT_MS = 24 * 60 * 60 * 1000;

/** A payment worth more than `thresholdGbp` pounds (at the current rates) gets a second look. */
export async function alertIfLargePayment(
  tx: Database | Tx,
  payment: {
    id: number;
    accountId: number;
    sellCurrency: string;
    sellMinor: number;
    createdBy: number;
  },
  thresholdGbp: number,
  now: Date,
): Promise<void> {
  // Fixed SQL, its rates parsed once per table (pricing-inputs.ts): this runs for every payment made.
  const table = await latestRates(tx);
  const amount = formatAmount(payment.sellCurrency, payment.sellMinor);
  const pounds = crossValue(table, payment.sellCurrency, "GBP", amount, 2, Big.roundHalfEven);
  if (!pounds.gt(thresholdGbp)) return;
  await raiseAlert(tx, {
    kind: "large_payment",
    severity: "warning",
    subject: { payment_id: payment.id, account_id: payment.accountId, user_id: payment.createdBy },
    message: `Payment ${payment.id} of ${amount} ${payment.sellCurrency} is above the ${thresholdGbp} GBP ` +
      `that needs a second look.`,
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
    message: `Customer ${userId}'s identity check ${what}${comment ? `: ${comment}` : "."}`,
    // One per verdict: a webhook delivered twice raises once; a later attempt's verdict is new.
    dedupeKey: `identity_check:${userId}:${status}:${reviewedAt?.getTime() ?? "-"}`,
  }, now);
}

/** A payment that failed (the rail refused it, or an administrator failed it): the customer must hear why. */
export async function alertPayoutFailed(
  tx: Database | Tx,
  payment: { id: number; accountId: number; createdBy: number },
  reason: string,
  now: Date,
): Promise<void> {
  await raiseAlert(tx, {
    kind: "payout_failed",
    severity: "critical",
    subject: { payment_id: payment.id, account_id: payment.accountId, user_id: payment.createdBy },
    message: `Payment ${payment.id} failed: ${reason}`,
    dedupeKey: `payout_failed:${payment.id}`,
  }, now);
}

/** A customer waiting for a compliance decision before their account opens. */
export async function alertComplianceReview(db: Database | Tx, userId: number, now: Date): Promise<void> {
  await raiseAlert(db, {
    kind: "compliance_review",
    severity: "warning",
    subject: { user_id: userId },
    message: `Customer ${userId} is waiting for a compliance review before their account opens.`,
    dedupeKey: `compliance_review:${userId}`,
  }, now);
}

/** Raises an alert for each receipt unmatched for more than a day; answers how many were new. */
export async function alertUnmatchedReceipts(db: Database, now: Date): Promise<number> {
  const old = await db.select().from(receipts).where(
    and(eq(receipts.status, "unmatched"), lt(receipts.createdAt, new Date(now.getTime() - UNMATCHED_RECEIPT_MS))),
  );
  let raised = 0;
  for (const r of old) {
    const id = await raiseAlert(db, {
      kind: "unmatched_receipt",
      severity: "warning",
      subject: { receipt_id: r.id },
      message: `A receipt of ${formatAmount(r.currency, r.amountMinor)} ${r.currency} from ${r.payerName} ` +
        `(${r.reference}) has matched no account for more than a day: allocate it.`,
      dedupeKey: `unmatched_receipt:${r.id}`,
    }, now);
    if (id !== null) raised++;
  }
  return raised;
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
