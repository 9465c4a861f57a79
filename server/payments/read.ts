import { and, asc, count, desc, eq, type SQL } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { paymentEvents, payments } from "../../db/schema-payments.ts";
import type { PaymentStatus } from "../../lib/payments/statuses.ts";
import { NotFound } from "../errors.ts";
import { columnList, fromColumns, rowOf, rowsOf, type Tx } from "../../db/sql.ts";
import {
  eventAnswer,
  paymentAnswer,
  type PaymentRow,
  recipientGone,
  type RecipientNote,
  type Viewer,
} from "./answer.ts";
import { onBehalfWords } from "../accounts/members.ts";
import { peopleByIds, type Person, personOr } from "./people.ts";

/** What the account's people read of its payments: lists, one with its timeline, the pending ones. */

async function answers(db: Database, rows: PaymentRow[], viewer: Viewer) {
  const [people, departed, notes] = await Promise.all([
    peopleByIds(db, rows.flatMap((r) => [r.createdBy, r.approvedBy])),
    departedCreators(db, rows),
    recipientNotes(db, rows),
  ]);
  return rows.map((row) => paymentAnswer(row, people, viewer, departed, notes));
}

/**
 * Of these recipients, those with their bank details now (not deleted), whether a payment to those
 * details was let go (approved, or beyond, as the approval rule reads it), and who added the
 * recipient or last changed their bank details (and our administrator, when it was done on the
 * customer's behalf), and when.
 */
const RECIPIENTS_NOW = (count: number) =>
  `SELECT r.id, r.deleted_at IS NOT NULL AS deleted, r.details,
    EXISTS (SELECT 1 FROM payments p WHERE p.recipient_id = r.id AND p.created_at >= r.details_changed_at
      AND p.status IN ('approved', 'submitted', 'completed', 'failed')) AS paid,
    c.kind, c.changed_by, c.on_behalf_admin_id, c.changed_at
  FROM recipients r
  LEFT JOIN recipient_changes c ON c.id = (SELECT MAX(id) FROM recipient_changes
    WHERE recipient_id = r.id AND kind IN ('created', 'details'))
  WHERE r.id IN (${Array(count).fill("?").join(", ")})`;

interface RecipientNow {
  id: number;
  deleted: number;
  details: string;
  paid: number;
  kind: string | null;
  changed_by: number | null;
  on_behalf_admin_id: number | null;
  changed_at: number | null;
}

/**
 * What the approver is told of each waiting payment's recipient (server/payments/answer.ts): deleted,
 * or bank details changed since it was prepared (it cannot be approved), or bank details that no
 * payment has been approved to yet, with who gave them and when. Only waiting payments are asked
 * about; none waiting, no read.
 */
export async function recipientNotes(
  executor: Database | Tx,
  rows: PaymentRow[],
): Promise<Map<number, RecipientNote>> {
  const waiting = rows.filter((r) => r.status === "pending_approval");
  const notes = new Map<number, RecipientNote>();
  if (!waiting.length) return notes;
  const ids = [...new Set(waiting.map((r) => r.recipientId))];
  const now = new Map(
    (await rowsOf<RecipientNow>(executor, RECIPIENTS_NOW(ids.length), ids)).map((r) => [r.id, r]),
  );
  const unproven = [...now.values()].filter((r) => !r.paid && r.changed_by !== null);
  const people = await peopleByIds(executor, unproven.flatMap((r) => [r.changed_by, r.on_behalf_admin_id]));
  for (const row of waiting) {
    const current = now.get(row.recipientId);
    if (!current) continue;
    const gone = recipientGone(row.recipient.details, {
      deleted: Boolean(current.deleted),
      details: JSON.parse(current.details) as Record<string, string>,
    });
    if (gone) notes.set(row.id, { kind: gone });
    else if (!current.paid && current.changed_by !== null && current.changed_at !== null) {
      notes.set(row.id, {
        kind: "unproven",
        added: current.kind === "created",
        at: new Date(current.changed_at),
        // Given by our team on the customer's behalf (a phone call, the fraud's other way in): said so,
        // as the recipient's history and the payment's timeline say it.
        by: current.on_behalf_admin_id === null ? personOr(people, current.changed_by).name : onBehalfWords(
          personOr(people, current.on_behalf_admin_id).name,
          personOr(people, current.changed_by).name,
        ),
      });
    }
  }
  return notes;
}

const MEMBERS_AMONG = (count: number) =>
  `SELECT user_id FROM account_members WHERE account_id = ? AND user_id IN (${Array(count).fill("?").join(", ")})`;

/**
 * The payments waiting for approval whose creator is no longer a user of their account (removed
 * after preparing them): the approver is told before deciding (server/payments/answer.ts). Only
 * waiting payments are asked about, and the rows are one account's; none waiting, no read.
 */
export async function departedCreators(executor: Database | Tx, rows: PaymentRow[]): Promise<Set<number>> {
  const waiting = rows.filter((r) => r.status === "pending_approval");
  if (!waiting.length) return new Set();
  const creators = [...new Set(waiting.map((r) => r.createdBy))];
  const members = new Set(
    (await rowsOf<{ user_id: number }>(executor, MEMBERS_AMONG(creators.length), [waiting[0].accountId, ...creators]))
      .map((m) => m.user_id),
  );
  return new Set(waiting.filter((r) => !members.has(r.createdBy)).map((r) => r.id));
}

async function page(
  db: Database,
  where: SQL | undefined,
  order: SQL,
  pageNumber: number,
  perPage: number,
  viewer: Viewer,
) {
  const [{ total }] = await db.select({ total: count() }).from(payments).where(where);
  const rows = await db.select().from(payments).where(where).orderBy(order).limit(perPage)
    .offset((pageNumber - 1) * perPage);
  return { items: await answers(db, rows, viewer), page: pageNumber, per_page: perPage, total };
}

/** The account's payments, newest first, optionally of one status. */
export function listPayments(
  db: Database,
  accountId: number,
  filter: { status?: PaymentStatus; page: number; perPage: number },
  viewer: Viewer,
) {
  const where = and(eq(payments.accountId, accountId), filter.status ? eq(payments.status, filter.status) : undefined);
  return page(db, where, desc(payments.id), filter.page, filter.perPage, viewer);
}

const pending = (accountId: number) => and(eq(payments.accountId, accountId), eq(payments.status, "pending_approval"));

const ALL_PENDING = `SELECT ${columnList(payments)} FROM payments
  WHERE account_id = ? AND status = 'pending_approval' ORDER BY id`;

/** Every payment of the account waiting for approval, oldest first (the order they were asked in). */
export async function allPendingPayments(db: Database, accountId: number, viewer: Viewer) {
  // Fixed SQL (db/sql.ts): every dashboard asks, and the query builder's select of the payment's
  // columns was a sixth of a dashboard's CPU (docs/PERFORMANCE.md, "Kept pages at the front door").
  const rows = (await rowsOf<Record<string, unknown>>(db, ALL_PENDING, [accountId]))
    .map((row) => fromColumns(payments, row));
  return await answers(db, rows, viewer);
}

const ANY_PENDING = "SELECT 1 AS found FROM payments WHERE account_id = ? AND status = 'pending_approval' LIMIT 1";

/** Whether any payment of the account waits for approval. */
export async function somethingWaitsForApproval(db: Database, accountId: number): Promise<boolean> {
  return Boolean(await rowOf(db, ANY_PENDING, [accountId]));
}

/** A page of them. */
export function pendingPaymentsPage(
  db: Database,
  accountId: number,
  pageNumber: number,
  perPage: number,
  viewer: Viewer,
) {
  return page(db, pending(accountId), asc(payments.id), pageNumber, perPage, viewer);
}

/** A payment of the account with its timeline (404 for any other), whatever its status. */
export async function paymentWithTimeline(db: Database, accountId: number, paymentId: number, viewer: Viewer) {
  const [row] = await db.select().from(payments).where(
    and(eq(payments.id, paymentId), eq(payments.accountId, accountId)),
  );
  if (!row) throw new NotFound("There is no such payment on this account.");
  return await timelineOf(db, row, viewer);
}

const EVENTS = "SELECT * FROM payment_events WHERE payment_id = ? ORDER BY id";

/**
 * A payment with its timeline; `known` may name people already at hand (the signed-in customer).
 * Fixed SQL: approving answers it, and approvals are frequent.
 */
export async function timelineOf(
  executor: Database | Tx,
  row: PaymentRow,
  viewer: Viewer,
  known: Person[] = [],
) {
  const events = (await rowsOf<Record<string, unknown>>(executor, EVENTS, [row.id]))
    .map((e) => fromColumns(paymentEvents, e));
  const wanted = [row.createdBy, row.approvedBy, ...events.flatMap((e) => [e.actorId, e.onBehalfAdminId])];
  const people = new Map(known.map((p) => [p.id, p]));
  for (const [id, p] of await peopleByIds(executor, wanted.filter((id) => id === null || !people.has(id)))) {
    people.set(id, p);
  }
  const [departed, notes] = await Promise.all([departedCreators(executor, [row]), recipientNotes(executor, [row])]);
  return {
    ...paymentAnswer(row, people, viewer, departed, notes),
    events: events.map((e) => eventAnswer(e, people)),
  };
}
