import { and, asc, count, desc, eq, inArray, isNotNull, type SQL } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import type { Tx } from "../../db/sql.ts";
import { accounts } from "../../db/schema.ts";
import { receipts } from "../../db/schema-money.ts";
import { consoleAlerts } from "../../db/schema-console.ts";
import { payments } from "../../db/schema-payments.ts";
import { payoutReturnAlertKey } from "../alerts/triggers.ts";
import { formatAmount } from "../money/amounts.ts";
import { DESK_STATUSES, type DeskStatus, type PayoutQueue } from "../../lib/contracts/payouts.ts";
import { type Rail, RAILS } from "../../lib/payments/rails.ts";
import { NotFound } from "../errors.ts";
import { peopleByIds } from "../payments/people.ts";
import { type Payout, payoutAnswer } from "./answer.ts";
import { restrictedPayments } from "./restricted.ts";
import { SIMULATED_RAIL_NOTE } from "./simulated-rail.ts";

/** The payout desk's queues (/console/local and /console/transfer), and payments by id for its answers. */

/** The most payments a queue answers at once; `total` says how many match. */
export const QUEUE_LIMIT = 200;

const railsOf = (queue: PayoutQueue) => (Object.keys(RAILS) as Rail[]).filter((rail) => RAILS[rail].kind === queue);

/** Work in hand when no status is asked for: payments to send, and payments sent and not yet arrived. */
const OPEN: DeskStatus[] = ["approved", "submitted"];

export interface QueueFilter {
  queue: PayoutQueue;
  status?: DeskStatus;
  /** The payout currency (what the recipient receives). */
  currency?: string;
  /** One payment only, the desk's row that an audit entry about it links to. */
  payment?: number;
  /** Only payments the bank sent back whose return waits (decision 093), in any status unless asked. */
  returned?: boolean;
}

/**
 * A queue: payments on its rails, of the status asked for (else approved and submitted), in the
 * payout currency asked for. Work to do comes oldest first (first in, first out); payments that
 * ended (completed, failed) newest first.
 */
export async function payoutQueue(
  db: Database,
  filter: QueueFilter,
  debtorIban?: string,
): Promise<{ items: Payout[]; total: number }> {
  // One payment asked for is shown whatever became of it (an audit entry names it after it ended).
  // So is one the bank sent back: a return of a payment marked arrived waits with it (decision 093).
  const statuses = filter.status ? [filter.status] : filter.payment || filter.returned ? [...DESK_STATUSES] : OPEN;
  const where = and(
    inArray(payments.status, statuses),
    inArray(payments.rail, railsOf(filter.queue)),
    filter.currency ? eq(payments.buyCurrency, filter.currency) : undefined,
    filter.payment ? eq(payments.id, filter.payment) : undefined,
    filter.returned
      ? inArray(
        payments.id,
        db.select({ id: receipts.returnsPaymentId }).from(receipts)
          .where(and(isNotNull(receipts.returnsPaymentId), eq(receipts.status, "unmatched"))),
      )
      : undefined,
  );
  const order = statuses.every((s) => OPEN.includes(s)) ? asc(payments.id) : desc(payments.id);
  const [[{ total }], items] = await Promise.all([
    db.select({ total: count() }).from(payments).where(where),
    payoutsWhere(db, where, order, QUEUE_LIMIT, debtorIban),
  ]);
  return { items, total };
}

/** A queue as the desk's call and page answer it: its payments, the time, and where Submit sends them. */
export async function deskQueue(db: Database, filter: QueueFilter, now: Date, debtorIban?: string) {
  return {
    ...await payoutQueue(db, filter, debtorIban),
    as_of: now.toISOString(),
    rail_note: filter.queue === "local"
      ? `SEPA payments go out in SEPA files ("Export SEPA file"). ${SIMULATED_RAIL_NOTE}`
      : SIMULATED_RAIL_NOTE,
  };
}

/**
 * Where the console shows each of these payments: its row on the payout desk of its rail
 * (/console/local or /console/transfer), filtered to it. The console has no page of one payment.
 */
export async function deskPagesOf(db: Database, ids: readonly number[]): Promise<Map<number, string>> {
  if (!ids.length) return new Map();
  const rows = await db.select({ id: payments.id, rail: payments.rail }).from(payments)
    .where(inArray(payments.id, [...ids]));
  return new Map(rows.map((r) => [r.id, `/console/${RAILS[r.rail as Rail].kind}?payment=${r.id}`]));
}

/**
 * Payments by id, in that order, as the desk answers them. `debtorIban`: the company's account
 * SEPA files pay from, which decides whether a SEPA payment without a BIC can go in one.
 */
export async function payoutsByIds(db: Database | Tx, ids: readonly number[], debtorIban?: string): Promise<Payout[]> {
  if (!ids.length) return [];
  const found = await payoutsWhere(db, inArray(payments.id, [...ids]), asc(payments.id), undefined, debtorIban);
  const byId = new Map(found.map((p) => [p.id, p]));
  return ids.map((id) => byId.get(id)!).filter(Boolean);
}

export async function payoutById(db: Database | Tx, id: number, debtorIban?: string): Promise<Payout> {
  const [found] = await payoutsByIds(db, [id], debtorIban);
  if (!found) throw new NotFound(`There is no payment ${id}.`);
  return found;
}

async function payoutsWhere(
  db: Database | Tx,
  where: SQL | undefined,
  order: SQL,
  limit?: number,
  debtorIban?: string,
): Promise<Payout[]> {
  const query = db.select({ payment: payments, accountRef: accounts.accountRef, accountName: accounts.name })
    .from(payments).innerJoin(accounts, eq(accounts.id, payments.accountId)).where(where).orderBy(order);
  const rows = limit === undefined ? await query : await query.limit(limit);
  const [people, restricted, returned] = await Promise.all([
    peopleByIds(db, rows.map((r) => r.payment.createdBy)),
    restrictedPayments(db, rows.map((r) => r.payment)),
    returnsOf(db, rows.map((r) => r.payment.id)),
  ]);
  return rows.map((r) =>
    payoutAnswer(
      r.payment,
      { accountRef: r.accountRef, name: r.accountName, restricted: restricted.has(r.payment.id) },
      people,
      debtorIban,
      returned.get(r.payment.id) ?? null,
    )
  );
}

/**
 * The return of each of these payments that came back from the beneficiary's bank (decision 093):
 * its receipt, and the bank's reason as its alert keeps it. A payment comes back once; were there
 * two receipts, the one still waiting is the one the desk must act on.
 */
async function returnsOf(db: Database | Tx, ids: readonly number[]): Promise<Map<number, Payout["returned"]>> {
  const found = new Map<number, Payout["returned"]>();
  if (!ids.length) return found;
  const rows = await db.select({
    id: receipts.id,
    paymentId: receipts.returnsPaymentId,
    amountMinor: receipts.amountMinor,
    currency: receipts.currency,
    status: receipts.status,
  }).from(receipts).where(inArray(receipts.returnsPaymentId, [...ids])).orderBy(asc(receipts.id));
  if (!rows.length) return found;
  const alerts = await db.select({ key: consoleAlerts.dedupeKey, subject: consoleAlerts.subject }).from(consoleAlerts)
    .where(inArray(consoleAlerts.dedupeKey, rows.map((r) => payoutReturnAlertKey(r.id))));
  const reasons = new Map(alerts.map((a) => [a.key, a.subject.reason]));
  for (const r of rows) {
    const settled = r.status !== "unmatched";
    if (found.get(r.paymentId!)?.settled === false) continue;
    const reason = reasons.get(payoutReturnAlertKey(r.id));
    found.set(r.paymentId!, {
      receipt_id: r.id,
      amount: formatAmount(r.currency, r.amountMinor),
      currency: r.currency,
      reason: typeof reason === "string" ? reason : null,
      settled,
    });
  }
  return found;
}
