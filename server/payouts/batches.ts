/**
 * SEPA files (issue 8 item 7; decisions 020 and 031): every approved EUR SEPA payment in no file
 * yet goes into one pain.001.001.03 file, and a payment is never in two. In ONE transaction the
 * batch is recorded, each payment is marked with it (conditionally: `batch_id IS NULL`) and paid
 * out in the ledger, and the file is written from those payments and stored on the batch: a batch
 * exists only with its file and its payments, whatever happens to the process.
 */
import { RESTRICTED_PAYOUT } from "../../lib/restriction.ts";
import { andList } from "../../lib/contracts/messages.ts";
import { restrictedPayments } from "./restricted.ts";
import { and, asc, desc, eq, isNull } from "drizzle-orm";
import type { z } from "zod";
import type { Database } from "../../db/client.ts";
import type { createdPayoutBatch } from "../../lib/contracts/payouts.ts";
import { payments, payoutBatches } from "../../db/schema-payments.ts";
import { fromColumns, rowOf, run, type Tx } from "../../db/sql.ts";
import { audit } from "../audit.ts";
import type { SepaDebtor } from "../bank-files/debtor.ts";
import { Conflict, NotFound } from "../errors.ts";
import { formatAmount } from "../money/amounts.ts";
import type { PaymentRow } from "../payments/answer.ts";
import { peopleByIds, personOr } from "../payments/people.ts";
import { submitPayment } from "../payments/transitions.ts";
import { endToEndIdOf, messageIdOf, SepaFileRail } from "./sepa-file-rail.ts";
import { payoutsByIds } from "./queue.ts";
import { BY_THE_RAIL, noBicForFile } from "./answer.ts";
import { RailRefused } from "./rail.ts";

/**
 * The most payments in one file. Banks limit a file's size (commonly a few thousand transactions or
 * some megabytes); the rest wait for the next file.
 */
export const MAX_FILE_PAYMENTS = 5_000;

type BatchRow = typeof payoutBatches.$inferSelect;

/** A new SEPA file as POST console/payouts/batches answers it. */
export type CreatedBatch = z.output<typeof createdPayoutBatch>;

const fileNameOf = (batch: Pick<BatchRow, "messageId">) => `${batch.messageId}.xml`;

/** Every approved EUR SEPA payment in no file, oldest first. */
const WAITING = and(
  eq(payments.status, "approved"),
  eq(payments.rail, "sepa"),
  eq(payments.buyCurrency, "EUR"),
  isNull(payments.batchId),
);

/**
 * Makes a SEPA file of the approved EUR SEPA payments in no file yet. Payments the file cannot
 * carry (an IBAN the writer refuses, a BIC missing for a transfer outside the EEA) are left out,
 * with why, and stay approved. A Conflict when no payment waits, or none can go.
 */
export async function createSepaBatch(
  db: Database,
  options: { adminId: number; debtor: SepaDebtor; now: Date; onMade?: (tx: Tx, batch: CreatedBatch) => Promise<void> },
): Promise<CreatedBatch> {
  const { adminId, debtor, now } = options;
  const rail = new SepaFileRail(debtor, now);
  return await db.transaction(async (tx) => {
    const waiting = await tx.select().from(payments).where(WAITING).orderBy(asc(payments.id)).limit(MAX_FILE_PAYMENTS);
    if (!waiting.length) throw new Conflict("No approved SEPA payment is waiting for a file.");
    const going: { payment: PaymentRow; railReference: string }[] = [];
    const leftOut: { payment_id: number; problems: string[] }[] = [];
    const restricted = await restrictedPayments(tx, waiting);
    for (const payment of waiting) {
      // A restricted customer's payment stays approved, out of the file, until compliance decides.
      if (restricted.has(payment.id)) {
        leftOut.push({ payment_id: payment.id, problems: [RESTRICTED_PAYOUT] });
        continue;
      }
      try {
        going.push({ payment, ...await rail.submit(payment) });
      } catch (error) {
        if (!(error instanceof RailRefused)) throw error;
        // One the file cannot carry for want of a BIC goes by the desk's rail instead (decision 066).
        const byRail = noBicForFile(payment, debtor.iban) ? [BY_THE_RAIL] : [];
        leftOut.push({ payment_id: payment.id, problems: [...error.reasons, ...byRail] });
      }
    }
    if (!going.length) {
      throw new Conflict(
        `No SEPA file was made: none of the ${waiting.length} approved SEPA payments can go into one. ${
          whyLeftOut(leftOut)
        }`,
      );
    }
    const batch = await rowOf<{ id: number }>(
      tx,
      `INSERT INTO payout_batches (scheme, message_id, currency, payment_count, total_minor, file, created_by, created_at)
       VALUES ('sepa', ?, 'EUR', 0, 0, '', ?, ?) RETURNING id`,
      [`making:${crypto.randomUUID()}`, adminId, now.getTime()],
    );
    const batchId = batch!.id;
    const sent: PaymentRow[] = [];
    for (const { payment, railReference } of going) {
      sent.push(await submitPayment(tx, { paymentId: payment.id, adminId, now, batchId, railReference }));
    }
    const messageId = messageIdOf(batchId, now);
    const file = rail.file(messageId, sent);
    const total = sent.reduce((sum, p) => sum + p.buyMinor, 0);
    await run(
      tx,
      "UPDATE payout_batches SET message_id = ?, payment_count = ?, total_minor = ?, file = ? WHERE id = ?",
      [messageId, sent.length, total, file.xml, batchId],
    );
    const paymentIds = sent.map((p) => p.id);
    // The audit entry and the answer commit with the file: a retry after a crash learns of this
    // very file (the answer is stored under its Idempotency-Key by onMade), never makes another.
    await audit(tx, {
      actor: adminId,
      action: "payout.batch",
      before: { payment_ids: paymentIds, status: "approved" },
      after: {
        batch_id: batchId,
        payment_ids: paymentIds,
        status: "submitted",
        left_out: leftOut.map((l) => l.payment_id),
      },
    }, now);
    // Each customer finds the file in their own trail (decision 026: subject and account): one
    // entry per customer and account whose payments went into it, beside the file's entry above.
    const theirs = Map.groupBy(sent, (p) => `${p.createdBy}:${p.accountId}`);
    for (const own of theirs.values()) {
      const ids = own.map((p) => p.id);
      await audit(tx, {
        actor: adminId,
        subject: own[0].createdBy,
        account: own[0].accountId,
        action: "payout.batch",
        before: { batch_id: batchId, payment_ids: ids, status: "approved" },
        after: { batch_id: batchId, payment_ids: ids, status: "submitted" },
      }, now);
    }
    const byEndToEnd = new Map(sent.map((p) => [endToEndIdOf(p), p.id]));
    const made: CreatedBatch = {
      ...await batchById(tx, batchId),
      payments: await payoutsByIds(tx, paymentIds, debtor.iban),
      left_out: leftOut,
      changes: file.changes.map((c) => ({
        payment_id: byEndToEnd.get(c.endToEndId)!,
        field: c.field,
        given: c.given,
        written: c.written,
      })),
      test_details: debtor.testDetails,
    };
    await options.onMade?.(tx, made);
    return made;
  });
}

/** The most payment ids a refusal names for one reason; the rest are counted. */
const IDS_NAMED = 10;

/**
 * Why payments were left out of a file, each distinct reason once with the payments it applies to
 * ("Payments #4 and #5: The customer is restricted: …"): a reason repeated per payment told staff
 * nothing more, and named no payment to look at.
 */
export function whyLeftOut(leftOut: { payment_id: number; problems: string[] }[]): string {
  const byReason = Map.groupBy(leftOut, (l) => l.problems.join(" "));
  return [...byReason].map(([reason, them]) => {
    const ids = them.slice(0, IDS_NAMED).map((l) => `#${l.payment_id}`);
    const more = them.length - ids.length;
    const named = more > 0 ? `${ids.join(", ")} and ${more} more` : andList(ids);
    return `${them.length > 1 ? "Payments" : "Payment"} ${named}: ${reason}`;
  }).join(" ");
}

/** The latest 100 files, newest first. */
export async function listBatches(db: Database) {
  const rows = await db.select().from(payoutBatches).orderBy(desc(payoutBatches.id)).limit(100);
  return await batchAnswers(db, rows);
}

async function batchById(db: Database | Tx, id: number) {
  const [row] = await db.select().from(payoutBatches).where(eq(payoutBatches.id, id));
  if (!row) throw new NotFound(`There is no payout file ${id}.`);
  return (await batchAnswers(db, [row]))[0];
}

/** A batch's file, as stored when it was made: downloading it again gives the same bytes. */
export async function batchFile(db: Database, id: number): Promise<{ name: string; xml: string }> {
  const row = await rowOf<Record<string, unknown>>(db, "SELECT * FROM payout_batches WHERE id = ?", [id]);
  if (!row) throw new NotFound(`There is no payout file ${id}.`);
  const batch = fromColumns(payoutBatches, row);
  return { name: fileNameOf(batch), xml: batch.file };
}

async function batchAnswers(db: Database | Tx, rows: BatchRow[]) {
  const people = await peopleByIds(db, rows.map((r) => r.createdBy));
  return rows.map((r) => ({
    id: r.id,
    scheme: r.scheme,
    message_id: r.messageId,
    currency: r.currency,
    payment_count: r.paymentCount,
    total: formatAmount(r.currency, r.totalMinor),
    created_by: personOr(people, r.createdBy),
    created_at: r.createdAt.toISOString(),
    file_name: fileNameOf(r),
  }));
}
