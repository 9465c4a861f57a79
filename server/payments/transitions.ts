/**
 * A payment's status changes (decision 027; PAYMENTS.md "States"). Each is ONE database
 * transaction: a conditional update on the status it expects (so two people acting at once change
 * it once: the second gets a Conflict), the ledger movement that goes with it, the timeline event,
 * and the notifications. Nothing of it happens unless all of it does.
 *
 *   pending_approval ─approve─▶ approved ─submit─▶ submitted ─complete─▶ completed
 *        │ reject ▶ rejected       │ cancel ▶ cancelled   │ fail ▶ failed (refund)
 *        │ cancel ▶ cancelled      │ fail ▶ failed (release)
 *
 * The customer's (approve, reject, cancel) run in the group commit, like payments being made; the
 * payout desk's (submit, complete, fail) take a database or the caller's transaction, so that a
 * batch can change many payments in one.
 */
import type { Database } from "../../db/client.ts";
import { groupedTransaction } from "../../db/group-commit.ts";
import { payments } from "../../db/schema-payments.ts";
import { fromColumns, rowOf, run, type Tx } from "../../db/sql.ts";
import { expectedArrival } from "../../lib/payments/rails.ts";
import { type PaymentEvent, STATUS_SENTENCES } from "../../lib/payments/statuses.ts";
import { type AccountRole, may } from "../../lib/permissions.ts";
import { alertPayoutFailed } from "../alerts/triggers.ts";
import { Conflict, InvalidInput, NotFound, Refused } from "../errors.ts";
import { type Executor, inTransaction } from "../ledger/ledger.ts";
import { type PaymentMoney, payoutPayment, refundPayment, releasePayment, settlePayment } from "../ledger/movements.ts";
import {
  mayCancel,
  NOT_ON_BEHALF,
  NOT_ONE_S_OWN,
  type PaymentRow,
  rateExpired,
  rateExpiredText,
  recipientGone,
  recipientGoneText,
} from "./answer.ts";
import { actedByWords } from "../accounts/members.ts";
import { notifyPayment, type PaymentNotice } from "./notify.ts";

/** Someone of the account acting on one of its payments. */
export interface PaymentActor {
  accountId: number;
  userId: number;
  /** Their name, for the notifications' words. */
  name: string;
  role: AccountRole;
  /** The administrator, when one acts on the customer's behalf. */
  onBehalfAdminId: number | null;
}

/**
 * Work that commits with a customer's change, in its transaction: the call's answer stored under its
 * Idempotency-Key (server/http/route.ts, decision 025), so a retry learns what happened even when
 * the process died between the COMMIT and the reply.
 */
export type Alongside = (tx: Tx, payment: PaymentRow) => Promise<void>;

/** An administrator of the payout desk. */
export interface DeskAction {
  paymentId: number;
  adminId: number;
  now: Date;
}

const NO_SUCH_PAYMENT = "There is no such payment on this account.";
const MAX_REASON = 500;

/** The money of a payment, for its ledger movements; `by` is who caused the movement. */
export function paymentMoney(p: PaymentRow, by: number | null): PaymentMoney {
  return {
    paymentId: p.id,
    accountId: p.accountId,
    sellCurrency: p.sellCurrency,
    sellAmount: p.sellMinor,
    buyCurrency: p.buyCurrency,
    buyAmount: p.buyMinor,
    feeAmount: p.feeMinor,
    createdBy: by,
  };
}

/** Runs one conditional UPDATE … RETURNING * of a payment; undefined when its condition failed. */
async function changed(tx: Executor, sql: string, args: (string | number | null)[]): Promise<PaymentRow | undefined> {
  const row = await rowOf<Record<string, unknown>>(tx, sql, args);
  return row ? fromColumns(payments, row) : undefined;
}

/** Adds events to a payment's timeline, in the caller's transaction. */
export async function recordEvents(
  tx: Executor,
  paymentId: number,
  events: readonly PaymentEvent[],
  actor: { actorId: number | null; onBehalfAdminId?: number | null; note?: string | null; now: Date },
): Promise<void> {
  await run(
    tx,
    `INSERT INTO payment_events (payment_id, event, actor_id, on_behalf_admin_id, note, at) VALUES ${
      events.map(() => "(?, ?, ?, ?, ?, ?)").join(", ")
    }`,
    events.flatMap((event) => [
      paymentId,
      event,
      actor.actorId,
      actor.onBehalfAdminId ?? null,
      actor.note ?? null,
      actor.now.getTime(),
    ]),
  );
}

/** Why a customer's change did not apply: the payment is not theirs, or not in that state. */
async function whyNot(
  tx: Executor,
  paymentId: number,
  accountId: number,
): Promise<{ status: PaymentRow["status"]; createdBy: number }> {
  const row = await rowOf<{ status: PaymentRow["status"]; created_by: number }>(
    tx,
    "SELECT status, created_by FROM payments WHERE id = ? AND account_id = ?",
    [paymentId, accountId],
  );
  if (!row) throw new NotFound(NO_SUCH_PAYMENT);
  return { status: row.status, createdBy: row.created_by };
}

const isNow = (status: PaymentRow["status"]) => STATUS_SENTENCES[status];

function reasonOf(reason: string | null | undefined, required: string | null): string | null {
  const text = reason?.trim() || null;
  if (!text && required) throw new InvalidInput(required, "reason");
  if (text && [...text].length > MAX_REASON) {
    throw new InvalidInput(`The reason has at most ${MAX_REASON} characters.`, "reason");
  }
  return text;
}

/** Approvers decide; administrators acting on behalf and the payment's own creator do not. */
function assertMayDecide(actor: PaymentActor): void {
  if (actor.onBehalfAdminId !== null) throw new Refused(NOT_ON_BEHALF);
  if (!may(actor.role, "payments.approve")) {
    throw new Refused("Your role on this account does not allow approving or rejecting payments.");
  }
}

async function told(
  tx: Executor,
  p: PaymentRow,
  notice: PaymentNotice,
  actorId: number | null,
  now: Date,
  name?: string,
) {
  await notifyPayment(tx, p, notice, { actorId, actorName: name ?? null, now });
}

/**
 * Approves a payment waiting for approval. Refused for its own creator and for an administrator on
 * behalf; a Conflict when it is no longer pending (two approvers at once: the second).
 */
export function approvePayment(
  db: Database,
  actor: PaymentActor,
  paymentId: number,
  now: Date,
  alongside?: Alongside,
): Promise<PaymentRow> {
  assertMayDecide(actor);
  const at = now.getTime();
  return groupedTransaction(db, async (tx) => {
    // It could not go before it was approved: its arrival counts from now, not from its quote. Its
    // rail and priority never change, so they are read first and the approval is one write.
    const how = await rowOf<
      {
        rail: PaymentRow["rail"];
        priority: number;
        status: string;
        created_by: number;
        recipient: string;
        deleted: number;
        details: string;
        sell_currency: string;
        buy_currency: string;
        created_at: number;
      }
    >(
      tx,
      `SELECT p.rail, p.priority, p.status, p.created_by, p.recipient, r.deleted_at IS NOT NULL AS deleted, r.details,
         p.sell_currency, p.buy_currency, p.created_at
       FROM payments p JOIN recipients r ON r.id = p.recipient_id WHERE p.id = ? AND p.account_id = ?`,
      [paymentId, actor.accountId],
    );
    // A recipient deleted, or whose bank details changed, since the payment was prepared: approving
    // would pay someone the account no longer pays, or details it no longer holds (./answer.ts).
    if (how?.status === "pending_approval" && how.created_by !== actor.userId) {
      const snapshot = JSON.parse(how.recipient) as PaymentRow["recipient"];
      const gone = recipientGone(snapshot.details, { deleted: Boolean(how.deleted), details: JSON.parse(how.details) });
      if (gone) {
        const code = gone === "deleted" ? "recipient_deleted" : "details_changed";
        throw new Conflict(recipientGoneText(snapshot.name, gone), { code });
      }
      // Its rate is held only so long (decision 092): approving later would pay out at a rate the
      // market has left, which the account could choose to do only when it moved its way.
      const expiredAt = rateExpired(
        { sellCurrency: how.sell_currency, buyCurrency: how.buy_currency, createdAt: new Date(how.created_at) },
        now,
      );
      if (expiredAt) throw new Conflict(rateExpiredText(expiredAt), { code: "rate_expired" });
    }
    const approved = how && await changed(
      tx,
      `UPDATE payments SET status = 'approved', approved_by = ?, approved_at = ?, updated_at = ?, expected_arrival = ?
       WHERE id = ? AND account_id = ? AND status = 'pending_approval' AND created_by <> ? RETURNING *`,
      [
        actor.userId,
        at,
        at,
        expectedArrival(how.rail, Boolean(how.priority), now).getTime(),
        paymentId,
        actor.accountId,
        actor.userId,
      ],
    );
    if (!approved) {
      const found = await whyNot(tx, paymentId, actor.accountId);
      if (found.createdBy === actor.userId) throw new Refused(NOT_ONE_S_OWN);
      throw new Conflict(`This payment is no longer waiting for approval: ${isNow(found.status)}.`);
    }
    await recordEvents(tx, approved.id, ["approved"], { actorId: actor.userId, now });
    await told(tx, approved, "approved", actor.userId, now, actor.name);
    await alongside?.(tx, approved);
    return approved;
  });
}

/** Rejects a payment waiting for approval, with an optional reason; its held money returns at once. */
export function rejectPayment(
  db: Database,
  actor: PaymentActor,
  paymentId: number,
  reason: string | null,
  now: Date,
  alongside?: Alongside,
): Promise<PaymentRow> {
  assertMayDecide(actor);
  const why = reasonOf(reason, null);
  const at = now.getTime();
  return groupedTransaction(db, async (tx) => {
    const row = await changed(
      tx,
      `UPDATE payments SET status = 'rejected', reason = ?, updated_at = ?
       WHERE id = ? AND account_id = ? AND status = 'pending_approval' AND created_by <> ? RETURNING *`,
      [why, at, paymentId, actor.accountId, actor.userId],
    );
    if (!row) {
      const found = await whyNot(tx, paymentId, actor.accountId);
      if (found.createdBy === actor.userId) {
        throw new Refused("You prepared this payment: cancel it instead of rejecting it.");
      }
      throw new Conflict(`This payment is no longer waiting for approval: ${isNow(found.status)}.`);
    }
    await releasePayment(tx, paymentMoney(row, actor.userId));
    await recordEvents(tx, row.id, ["rejected"], { actorId: actor.userId, note: why, now });
    await told(tx, row, "rejected", actor.userId, now, actor.name);
    await alongside?.(tx, row);
    return row;
  });
}

/**
 * Cancels a payment before it is sent (pending approval or approved): its creator (whatever their
 * role now), an owner or an admin of the account may, an administrator on behalf too (recorded as
 * such). The held money returns at once; its creator, when someone else cancelled it (our team on
 * their own behalf included), and whoever was asked to approve it are told.
 */
export function cancelPayment(
  db: Database,
  actor: PaymentActor,
  paymentId: number,
  reason: string | null,
  now: Date,
  alongside?: Alongside,
): Promise<PaymentRow> {
  const why = reasonOf(reason, null);
  const at = now.getTime();
  const viewer = { userId: actor.userId, role: actor.role, onBehalf: actor.onBehalfAdminId !== null };
  const anyones = actor.role === "owner" || actor.role === "admin";
  return groupedTransaction(db, async (tx) => {
    const row = await changed(
      tx,
      `UPDATE payments SET status = 'cancelled', reason = ?, updated_at = ?
       WHERE id = ? AND account_id = ? AND status IN ('pending_approval', 'approved') AND (created_by = ? OR ?)
       RETURNING *`,
      [why, at, paymentId, actor.accountId, actor.userId, anyones ? 1 : 0],
    );
    if (!row) {
      const found = await whyNot(tx, paymentId, actor.accountId);
      if (!mayCancel(found, viewer)) {
        throw new Refused("Only the person who prepared a payment, an owner or an admin can cancel it.");
      }
      throw new Conflict(`This payment can no longer be cancelled: ${isNow(found.status)}.`);
    }
    await releasePayment(tx, paymentMoney(row, actor.userId));
    await recordEvents(tx, row.id, ["cancelled"], {
      actorId: actor.userId,
      onBehalfAdminId: actor.onBehalfAdminId,
      note: why,
      now,
    });
    // Its creator is told when someone else cancelled it; while it waited for approval, those asked
    // to approve it are told it no longer waits for them (notifyPayment). On a customer's behalf it
    // is our team who cancelled it, not the customer: they are told too, even of their own payment,
    // as they are told when anyone else stops what they expected to go.
    const who = actor.onBehalfAdminId === null ? actor.userId : null;
    await told(tx, row, "cancelled", who, now, await actedByWords(tx, actor));
    await alongside?.(tx, row);
    return row;
  });
}

/**
 * The payout desk sent an approved payment to its rail (or exported it in a batch file, with
 * `batchId`: then only a payment in no batch yet). Its held money is paid out in the ledger; its
 * timeline says it was sent (or exported) and its creator and the owners are told it is on its
 * way, unless `untilAccepted`: a rail that answers at once may refuse it, and then it never went on
 * its way (its timeline goes from approved to failed, and the customer is told only that it
 * failed), so the caller says both with `acceptedByRail` once the rail has accepted it.
 */
export function submitPayment(
  executor: Database | Tx,
  action: DeskAction & { railReference?: string | null; batchId?: number | null; untilAccepted?: boolean },
): Promise<PaymentRow> {
  const at = action.now.getTime();
  const batched = action.batchId !== undefined && action.batchId !== null;
  const sendable = `status = 'approved'${batched ? " AND batch_id IS NULL" : ""}`;
  return inTransaction(executor, async (tx) => {
    // Its money, rail and priority never change: read first, they give its payout and its expected
    // arrival, so that sending it is one write of its row. That write still expects it sendable;
    // should it not be, the Conflict undoes the payout with the transaction (or the savepoint).
    const found = await rowOf<Record<string, unknown>>(
      tx,
      `SELECT * FROM payments WHERE id = ? AND ${sendable}`,
      [action.paymentId],
    );
    if (!found) throw await deskConflict(tx, action.paymentId, "sent");
    const approved = fromColumns(payments, found);
    const { transferId } = await payoutPayment(tx, paymentMoney(approved, action.adminId));
    // Customers are told it arrives so many business days after it is sent: from now, then.
    const row = await changed(
      tx,
      `UPDATE payments SET status = 'submitted', updated_at = ?, rail_reference = COALESCE(?, rail_reference),
         batch_id = COALESCE(?, batch_id), payout_transfer_id = ?, expected_arrival = ?
       WHERE id = ? AND ${sendable} RETURNING *`,
      [
        at,
        action.railReference ?? null,
        action.batchId ?? null,
        transferId,
        expectedArrival(approved.rail, approved.priority, action.now).getTime(),
        action.paymentId,
      ],
    );
    if (!row) throw await deskConflict(tx, action.paymentId, "sent");
    if (!action.untilAccepted) await wentOnItsWay(tx, row, action, batched ? "exported" : "submitted");
    return row;
  });
}

/**
 * The rail accepted a payment submitted `untilAccepted`: its timeline says it was sent, and its
 * creator and the owners are told it is on its way.
 */
export async function acceptedByRail(tx: Executor, row: PaymentRow, action: DeskAction): Promise<void> {
  await wentOnItsWay(tx, row, action, "submitted");
}

async function wentOnItsWay(
  tx: Executor,
  row: PaymentRow,
  action: DeskAction & { railReference?: string | null },
  event: PaymentEvent,
) {
  const note = action.railReference ?? null;
  await recordEvents(tx, row.id, [event], { actorId: action.adminId, note, now: action.now });
  await told(tx, row, "sent", action.adminId, action.now);
}

/** The money reached the recipient's bank: the payout settles; the creator and the owners are told. */
export function completePayment(executor: Database | Tx, action: DeskAction): Promise<PaymentRow> {
  const at = action.now.getTime();
  return inTransaction(executor, async (tx) => {
    const row = await changed(
      tx,
      "UPDATE payments SET status = 'completed', updated_at = ? WHERE id = ? AND status = 'submitted' RETURNING *",
      [at, action.paymentId],
    );
    if (!row) throw await deskConflict(tx, action.paymentId, "completed");
    await settlePayment(tx, paymentMoney(row, action.adminId));
    await recordEvents(tx, row.id, ["completed"], { actorId: action.adminId, now: action.now });
    await told(tx, row, "arrived", action.adminId, action.now);
    return row;
  });
}

/**
 * The payment cannot be made (a reason is required): before it was sent its hold is released;
 * after, its payout is reversed to the customer's balance, fee included (decision 027).
 */
export function failPayment(
  executor: Database | Tx,
  action: DeskAction & {
    reason: string;
    /** The rail refused it (the administrator only sent it): nobody failed it, for its alert. */
    byRail?: boolean;
  },
): Promise<PaymentRow> {
  const why = reasonOf(action.reason, "Say why the payment failed.");
  const at = action.now.getTime();
  return inTransaction(executor, async (tx) => {
    const row = await changed(
      tx,
      `UPDATE payments SET status = 'failed', reason = ?, updated_at = ?
       WHERE id = ? AND status IN ('approved', 'submitted') RETURNING *`,
      [why, at, action.paymentId],
    );
    if (!row) throw await deskConflict(tx, action.paymentId, "failed");
    const money = paymentMoney(row, action.adminId);
    if (row.payoutTransferId === null) await releasePayment(tx, money);
    else await refundPayment(tx, money);
    await recordEvents(tx, row.id, ["failed"], { actorId: action.adminId, note: why, now: action.now });
    await told(tx, row, "failed", action.adminId, action.now);
    await alertPayoutFailed(tx, row, why ?? "no reason given", action.now, action.byRail ? null : action.adminId);
    return row;
  });
}

async function deskConflict(tx: Executor, paymentId: number, what: string): Promise<Error> {
  const row = await rowOf<{ status: PaymentRow["status"]; batch_id: number | null }>(
    tx,
    "SELECT status, batch_id FROM payments WHERE id = ?",
    [paymentId],
  );
  if (!row) return new NotFound(`There is no payment ${paymentId}.`);
  if (row.status === "approved" && row.batch_id !== null) {
    return new Conflict(`Payment ${paymentId} is already in batch ${row.batch_id}.`);
  }
  return new Conflict(`Payment ${paymentId} cannot be marked ${what}: ${isNow(row.status)}.`);
}
