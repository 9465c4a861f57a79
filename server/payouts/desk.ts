/**
 * What the payout desk does with one payment (issue 8 item 7; decision 031): send it to its rail,
 * mark it arrived, or fail it. The status change and its ledger movement are the payments'
 * transitions (server/payments/transitions.ts: one transaction each, conditional on the status
 * they expect, so two administrators at once change a payment once); this adds the rail, and runs
 * each change in a transaction with its audit entry and the call's stored answer.
 */
import type { Database } from "../../db/client.ts";
import { payments } from "../../db/schema-payments.ts";
import { fromColumns, rowOf, type Tx } from "../../db/sql.ts";
import { STATUS_SENTENCES } from "../../lib/payments/statuses.ts";
import { audit } from "../audit.ts";
import type { AuditAction } from "../../lib/audit.ts";
import { Conflict, NotFound } from "../errors.ts";
import type { PaymentRow } from "../payments/answer.ts";
import {
  acceptedByRail,
  completePayment,
  type DeskAction,
  failPayment,
  submitPayment,
} from "../payments/transitions.ts";
import { awaitsRail, IN_A_FILE, noBicForFile, RAIL_UNCONFIRMED } from "./answer.ts";
import { type PayoutRail, RailRefused } from "./rail.ts";
import { restrictedPayments } from "./restricted.ts";
import { settleReturns, waitingReturnOf } from "../money/receipts.ts";
import { RESTRICTED_PAYOUT } from "../../lib/restriction.ts";

export interface DeskOutcome {
  payment: PaymentRow;
  /** The rail's words when it refused the payment at once (the payment then failed). */
  refused: string | null;
}

/**
 * Work that commits with the desk's last change: the call's answer stored under its
 * Idempotency-Key (decision 025), so a retry after a crash is told what happened.
 */
export type Alongside = (tx: Tx, outcome: DeskOutcome) => Promise<void>;

async function paymentRow(db: Database | Tx, id: number): Promise<PaymentRow> {
  const row = await rowOf<Record<string, unknown>>(db, "SELECT * FROM payments WHERE id = ?", [id]);
  if (!row) throw new NotFound(`There is no payment ${id}.`);
  return fromColumns(payments, row);
}

const isNow = (row: PaymentRow) => STATUS_SENTENCES[row.status];

/**
 * Sends an approved payment to `rail`: first, in one transaction, its status becomes submitted and
 * its held money is paid out; then the rail is asked. Its timeline says "sent" and the customer is
 * told it is on its way when the rail has accepted it: a payment the rail refused never went on
 * its way, so its timeline goes from approved to failed and its customer is told only that it
 * failed and that the money is back (one notice, not "sent" then "failed"). The audit trail keeps
 * both of the desk's steps (payout.submit, then payout.refused): the money was paid out, then back. The
 * order means a crash in between leaves a payment the company has paid out and the rail may not
 * have: never one paid twice. Such a payment (submitted, no rail reference) is sent again by this
 * same call, and rails answer the same payment the same way. A rail that refuses the payment at
 * once fails it: the payout is reversed and the customer has all their money back, fee included.
 */
export async function submitPayout(
  db: Database,
  rail: PayoutRail,
  action: DeskAction,
  alongside?: Alongside,
  debtorIban?: string,
): Promise<DeskOutcome> {
  const found = await paymentRow(db, action.paymentId);
  let row = found;
  const was = row.status;
  // A SEPA payment goes in a file, unless the file cannot carry it for want of a BIC (decision 066):
  // then the rail sends it. Submitted here, it is no longer approved, so no file ever takes it.
  if (row.rail === "sepa" && noBicForFile(row, debtorIban) === null) throw new Conflict(IN_A_FILE);
  if (row.status === "approved") {
    // Paid out and audited in one transaction: the change cannot commit without its record.
    row = await db.transaction(async (tx) => {
      // Asked in the write's own turn, as a SEPA file asks it: a customer restricted while this
      // waited for it is held back, not paid out.
      if ((await restrictedPayments(tx, [found])).size) throw new Conflict(RESTRICTED_PAYOUT);
      const sent = await submitPayment(tx, { ...action, untilAccepted: true });
      await record(tx, action, "payout.submit", was, sent, { rail: rail.name });
      return sent;
    });
  } else if (!awaitsRail(row)) {
    throw new Conflict(`Payment ${row.id} cannot be sent: ${isNow(row)}${row.railReference ? " already" : ""}.`);
  }
  let railReference: string;
  try {
    ({ railReference } = await rail.submit(row));
  } catch (error) {
    if (!(error instanceof RailRefused)) throw error;
    const refusal = error.message;
    return await db.transaction(async (tx) => {
      const failed = await failPayment(tx, {
        ...action,
        reason: `Refused by the ${rail.name}: ${refusal}`,
        byRail: true,
      });
      await record(tx, action, "payout.refused", "submitted", failed, { rail: rail.name, refusal });
      return await finish(tx, { payment: failed, refused: refusal }, alongside);
    });
  }
  return await db.transaction(async (tx) => {
    const confirmed = await rowOf<Record<string, unknown>>(
      tx,
      `UPDATE payments SET rail_reference = ? WHERE id = ? AND status = 'submitted' AND rail_reference IS NULL
       RETURNING *`,
      [railReference, row.id],
    );
    // Another administrator's retry recorded the same answer first (and its timeline and notices).
    const payment = confirmed ? fromColumns(payments, confirmed) : await paymentRow(tx, row.id);
    if (confirmed) await acceptedByRail(tx, payment, action);
    await record(tx, action, "payout.sent", "submitted", payment, { rail: rail.name, rail_reference: railReference });
    return await finish(tx, { payment, refused: null }, alongside);
  });
}

/**
 * The money reached the recipient's bank: the payout settles. Only once the rail has the payment,
 * and never once the bank has sent it back.
 */
export async function completePayout(db: Database, action: DeskAction, alongside?: Alongside): Promise<DeskOutcome> {
  const asked = await paymentRow(db, action.paymentId);
  return await db.transaction(async (tx) => {
    const before = await asItWas(tx, asked);
    // The bank sent it back (decision 093): it did not arrive, and a completed payment cannot be failed.
    // Only a payment still submitted is told to fail instead: one already marked arrived (its return
    // came after) cannot be failed, and is answered as any payment not submitted is.
    const returned = before.status === "submitted" ? await waitingReturnOf(tx, action.paymentId) : undefined;
    if (returned) {
      throw new Conflict(
        `Payment ${action.paymentId} came back from the beneficiary's bank (receipt ${returned.id}): it did not ` +
          "arrive and cannot be marked arrived. Fail it to refund its customer; the receipt is then settled " +
          "against it. Nothing was changed.",
      );
    }
    const payment = await completePayment(tx, action);
    await record(tx, action, "payout.complete", before.status, payment, {});
    return await finish(tx, { payment, refused: null }, alongside);
  });
}

/**
 * The payment will not be made: before it was sent its hold is released, after it the payout is
 * reversed to the customer's balance (fee included). Not while the rail's answer is unknown: the
 * rail may be paying it. The bank's return of it, when a statement brought one, is settled against
 * it in the same transaction (decision 093): the refund is the customer's money back, once.
 */
export async function failPayout(
  db: Database,
  action: DeskAction & { reason: string },
  alongside?: Alongside,
): Promise<DeskOutcome> {
  const asked = await paymentRow(db, action.paymentId);
  return await db.transaction(async (tx) => {
    const before = await asItWas(tx, asked);
    const payment = await failPayment(tx, action);
    await settleReturns(tx, payment.id, action.adminId, action.now);
    await record(tx, action, "payout.fail", before.status, payment, { reason: action.reason });
    return await finish(tx, { payment, refused: null }, alongside);
  });
}

/**
 * The payment as it is in the desk's own write transaction, which the request read when it came
 * (`asked`): refused while its rail has not answered, and when it was sent meanwhile (another
 * administrator's Submit, or a SEPA file). Read there, not only before: a payment read as approved
 * may be sent before this write gets its turn, and failing it then would refund a payment the rail
 * or the bank is about to pay (completing it, settle one the rail may refuse). Asked again, the
 * desk sees it sent and decides on that.
 */
async function asItWas(tx: Tx, asked: PaymentRow): Promise<PaymentRow> {
  const row = await paymentRow(tx, asked.id);
  if (awaitsRail(row)) throw new Conflict(RAIL_UNCONFIRMED);
  if (asked.status === "approved" && row.status === "submitted") {
    throw new Conflict(`Payment ${row.id} was sent while this was being asked: nothing was done. Look at it again.`);
  }
  return row;
}

async function finish(tx: Tx, outcome: DeskOutcome, alongside: Alongside | undefined): Promise<DeskOutcome> {
  await alongside?.(tx, outcome);
  return outcome;
}

/** The audit entry commits with the change it records: the payment's status before and after. */
function record(
  db: Tx,
  action: DeskAction,
  what: AuditAction,
  was: PaymentRow["status"],
  payment: PaymentRow,
  detail: Record<string, unknown>,
) {
  return audit(db, {
    actor: action.adminId,
    subject: payment.createdBy,
    account: payment.accountId,
    action: what,
    before: { payment_id: payment.id, status: was },
    after: { payment_id: payment.id, status: payment.status, ...detail },
  }, action.now);
}
