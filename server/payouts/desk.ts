/**
 * What the payout desk does with one payment (issue 8 item 7; decision 031): send it to its rail,
 * mark it arrived, or fail it. The status change and its ledger movement are the payments'
 * transitions (server/payments/transitions.ts: one transaction each, conditional on the status
 * they expect, so two administrators at once change a payment once); this adds the rail and the
 * audit log.
 */
import type { Database } from "../../db/client.ts";
import { payments } from "../../db/schema-payments.ts";
import { fromColumns, rowOf } from "../../db/sql.ts";
import { STATUS_NAMES } from "../../lib/payments/statuses.ts";
import { audit } from "../audit.ts";
import { Conflict, NotFound } from "../errors.ts";
import type { PaymentRow } from "../payments/answer.ts";
import { completePayment, type DeskAction, failPayment, submitPayment } from "../payments/transitions.ts";
import { awaitsRail, IN_A_FILE, RAIL_UNCONFIRMED } from "./answer.ts";
import { type PayoutRail, RailRefused } from "./rail.ts";

export interface DeskOutcome {
  payment: PaymentRow;
  /** The rail's words when it refused the payment at once (the payment then failed). */
  refused: string | null;
}

async function paymentRow(db: Database, id: number): Promise<PaymentRow> {
  const row = await rowOf<Record<string, unknown>>(db, "SELECT * FROM payments WHERE id = ?", [id]);
  if (!row) throw new NotFound(`There is no payment ${id}.`);
  return fromColumns(payments, row);
}

const isNow = (row: PaymentRow) => STATUS_NAMES[row.status].toLowerCase();

/**
 * Sends an approved payment to `rail`: first, in one transaction, its status becomes submitted and
 * its held money is paid out (the customer is told it is on its way); then the rail is asked. The
 * order means a crash in between leaves a payment the company has paid out and the rail may not
 * have: never one paid twice. Such a payment (submitted, no rail reference) is sent again by this
 * same call, and rails answer the same payment the same way. A rail that refuses the payment at
 * once fails it: the payout is reversed and the customer has all their money back, fee included.
 */
export async function submitPayout(db: Database, rail: PayoutRail, action: DeskAction): Promise<DeskOutcome> {
  let row = await paymentRow(db, action.paymentId);
  if (row.rail === "sepa") throw new Conflict(IN_A_FILE);
  if (row.status === "approved") row = await submitPayment(db, action);
  else if (!awaitsRail(row)) {
    throw new Conflict(`Payment ${row.id} cannot be sent: it is ${isNow(row)}${row.railReference ? " already" : ""}.`);
  }
  let railReference: string;
  try {
    ({ railReference } = await rail.submit(row));
  } catch (error) {
    if (!(error instanceof RailRefused)) throw error;
    const failed = await failPayment(db, { ...action, reason: `Refused by the ${rail.name}: ${error.message}` });
    await record(db, action, "payout.refused", { rail: rail.name, refusal: error.message });
    return { payment: failed, refused: error.message };
  }
  const confirmed = await db.transaction((tx) =>
    rowOf<Record<string, unknown>>(
      tx,
      `UPDATE payments SET rail_reference = ? WHERE id = ? AND status = 'submitted' AND rail_reference IS NULL
       RETURNING *`,
      [railReference, row.id],
    )
  );
  // Another administrator's retry recorded the same answer first.
  const payment = confirmed ? fromColumns(payments, confirmed) : await paymentRow(db, row.id);
  await record(db, action, "payout.submit", { rail: rail.name, rail_reference: railReference });
  return { payment, refused: null };
}

/** The money reached the recipient's bank: the payout settles. Only once the rail has the payment. */
export async function completePayout(db: Database, action: DeskAction): Promise<DeskOutcome> {
  if (awaitsRail(await paymentRow(db, action.paymentId))) throw new Conflict(RAIL_UNCONFIRMED);
  const payment = await completePayment(db, action);
  await record(db, action, "payout.complete", {});
  return { payment, refused: null };
}

/**
 * The payment will not be made: before it was sent its hold is released, after it the payout is
 * reversed to the customer's balance (fee included). Not while the rail's answer is unknown: the
 * rail may be paying it.
 */
export async function failPayout(db: Database, action: DeskAction & { reason: string }): Promise<DeskOutcome> {
  if (awaitsRail(await paymentRow(db, action.paymentId))) throw new Conflict(RAIL_UNCONFIRMED);
  const payment = await failPayment(db, action);
  await record(db, action, "payout.fail", { reason: action.reason });
  return { payment, refused: null };
}

function record(db: Database, action: DeskAction, what: string, detail: Record<string, unknown>) {
  return audit(db, {
    actorId: action.adminId,
    onBehalfOfId: null,
    action: what,
    detail: { payment_id: action.paymentId, ...detail },
  }, action.now);
}
