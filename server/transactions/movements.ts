/**
 * The account's movements (docs/decisions/036): one movement per ledger transfer that touched the
 * account's balances (available or held), newest first by (created_at, id), read a page at a time
 * by keyset so that movements arriving meanwhile never shift a page.
 *
 * The page is found per ledger account of the account (two per currency: balance and held), each
 * walking the index ledger_entries(ledger_account_id, created_at, transfer_id) backwards from the
 * cursor and stopping after `limit + 1` matches; the union is merged, a transfer seen on two of
 * them (a hold moves balance and held) counted once. Every movement among the first n of the
 * account is among the first n of one of its ledger accounts, so n + 1 from each is enough.
 */
import type { InArgs } from "@libsql/client";
import type { z } from "zod";
import type { Database } from "../../db/client.ts";
import { likeContaining, rowOf, rowsOf } from "../../db/sql.ts";
import type { LedgerTransferKind } from "../../db/schema-money.ts";
import type {
  movementDetail as movementDetailAnswer,
  movementItem,
  MovementKind,
  MovementStatus,
} from "../../lib/contracts/transactions.ts";
import { NotFound } from "../errors.ts";
import { formatAmount } from "../money/amounts.ts";
import type { Viewer } from "../payments/answer.ts";
import { markupOf } from "../payments/pricing.ts";
import { paymentWithTimeline } from "../payments/read.ts";
import { KIND_OF, ledgerKindsOf, PAYMENT_ID_SQL, paymentIdOf } from "./kinds.ts";

export type Movement = z.infer<typeof movementItem>;

export interface MovementFilters {
  /** First day included, YYYY-MM-DD (UTC). */
  from?: string;
  /** Last day included, YYYY-MM-DD (UTC). */
  to?: string;
  currency?: string;
  kind?: MovementKind;
  status?: MovementStatus;
  q?: string;
}

/** Where a page starts: after the movement at (at, id), newest first. */
export interface Cursor {
  at: number;
  id: number;
}

export const cursorText = (c: Cursor) => `${c.at}-${c.id}`;
export function parseCursor(text: string | undefined): Cursor | null {
  if (!text) return null;
  const [at, id] = text.split("-").map(Number);
  return { at, id };
}

const DAY_MS = 86_400_000;
const dayStart = (day: string) => Date.parse(`${day}T00:00:00Z`);

/** LIKE's own characters taken literally, so "50%" finds "50%". */

const STATUS_SQL = `CASE WHEN t.kind LIKE 'payment\\_%' ESCAPE '\\'
  THEN (SELECT p.status FROM payments p WHERE p.id = ${PAYMENT_ID_SQL}) ELSE 'completed' END`;

/**
 * The account's transfers whose text matches ?1 (the account is ?2): a receipt's payer or bank
 * reference (the receipt booked, allocated or taken back), a payment's recipient or reference (each
 * step of it).
 */
const FOUND_SQL = `matched AS MATERIALIZED (
  SELECT transfer_id, allocation_transfer_id, reversal_transfer_id FROM receipts
  WHERE account_id = ?2 AND (payer_name LIKE ?1 ESCAPE '\\' OR reference LIKE ?1 ESCAPE '\\')),
found(id) AS MATERIALIZED (
  SELECT transfer_id FROM matched WHERE transfer_id IS NOT NULL
  UNION ALL SELECT allocation_transfer_id FROM matched WHERE allocation_transfer_id IS NOT NULL
  UNION ALL SELECT reversal_transfer_id FROM matched WHERE reversal_transfer_id IS NOT NULL
  UNION ALL SELECT t.id FROM payments p JOIN ledger_transfers t
    ON t.kind IN ('payment_hold', 'payment_release', 'payment_payout', 'payment_refund')
    AND t.reference = 'payment:' || p.id || ':' || substr(t.kind, 9)
  WHERE p.account_id = ?2
    AND (p.reference LIKE ?1 ESCAPE '\\' OR json_extract(p.recipient, '$.name') LIKE ?1 ESCAPE '\\'))`;

/** The same, for one transfer `t` of the account's (?1 the text). */
const TEXT_SQL = `((t.kind IN ('receipt', 'allocation', 'receipt_reversal') AND EXISTS (SELECT 1 FROM receipts r
      WHERE (r.transfer_id = t.id OR r.allocation_transfer_id = t.id OR r.reversal_transfer_id = t.id)
      AND (r.payer_name LIKE ?1 ESCAPE '\\' OR r.reference LIKE ?1 ESCAPE '\\')))
  OR (t.kind LIKE 'payment\\_%' ESCAPE '\\' AND EXISTS (SELECT 1 FROM payments p WHERE p.id = ${PAYMENT_ID_SQL}
      AND (p.reference LIKE ?1 ESCAPE '\\' OR json_extract(p.recipient, '$.name') LIKE ?1 ESCAPE '\\'))))`;

/**
 * A text search first reads this many of each ledger account's newest entries (from the cursor)
 * and checks each: a text that many movements match fills the page there. When a ledger account
 * does not fill its share of the page there, the search is made again from the matches found once.
 */
const SEARCH_WINDOW = 2000;

/**
 * The ids (and times) of the page's movements: at most `limit` of them, and whether more follow.
 * Newest first by (created_at, id).
 */
export async function movementPage(
  db: Database,
  accountId: number,
  filters: MovementFilters,
  cursor: Cursor | null,
  limit: number,
  /** How many entries a text search reads first (tests make it small to take the other way). */
  searchWindow = SEARCH_WINDOW,
): Promise<{ ids: Cursor[]; more: boolean }> {
  const accounts = await rowsOf<{ id: number }>(
    db,
    `SELECT id FROM ledger_accounts WHERE kind = 'customer' AND account_id = ?${
      filters.currency ? " AND currency = ?" : ""
    }`,
    filters.currency ? [accountId, filters.currency] : [accountId],
  );
  if (!accounts.length) return { ids: [], more: false };

  // The same conditions for every ledger account; ?1 is the text searched, when there is one.
  const args: InArgs = [];
  const onEntry: string[] = [];
  const onTransfer: string[] = [];
  if (filters.q) args.push(likeContaining(filters.q), accountId);
  // Values as parameters, so that every page of a CSV runs the same prepared statement.
  const param = (value: number | string) => `?${args.push(value)}`;
  if (filters.from) onEntry.push(`e.created_at >= ${param(dayStart(filters.from))}`);
  if (filters.to) onEntry.push(`e.created_at < ${param(dayStart(filters.to) + DAY_MS)}`);
  if (cursor) {
    const [at, id] = [param(cursor.at), param(cursor.id)];
    onEntry.push(`(e.created_at < ${at} OR (e.created_at = ${at} AND e.transfer_id < ${id}))`);
  }
  // A settlement is never on a customer's ledger account; a kind filter names the ledger kinds.
  if (filters.kind) onTransfer.push(`t.kind IN (${ledgerKindsOf(filters.kind).map((k) => `'${k}'`).join(", ")})`);
  if (filters.status) onTransfer.push(`${STATUS_SQL} = ${param(filters.status)}`);
  const and = (conditions: string[]) => conditions.map((w) => ` AND ${w}`).join("");
  const newest = "ORDER BY e.created_at DESC, e.transfer_id DESC";
  /** A ledger account's matches: its entries walked newest first, each checked. */
  const walked = (ledgerAccountId: number, extra: string[]) =>
    `SELECT * FROM (SELECT e.transfer_id AS id, e.created_at AS at, ${ledgerAccountId} AS b FROM ledger_entries e${
      onTransfer.length ? " JOIN ledger_transfers t ON t.id = e.transfer_id" : ""
    } WHERE e.ledger_account_id = ${ledgerAccountId}${and([...onEntry, ...onTransfer, ...extra])}
      ${newest} LIMIT ${limit + 1})`;
  /** A ledger account's matches among its SEARCH_WINDOW newest entries, each checked for the text. */
  const windowed = (ledgerAccountId: number) =>
    `SELECT * FROM (SELECT w.id, w.at, ${ledgerAccountId} AS b FROM (SELECT e.transfer_id AS id, e.created_at AS at
      FROM ledger_entries e WHERE e.ledger_account_id = ${ledgerAccountId}${and(onEntry)} ${newest}
      LIMIT ${searchWindow}) w JOIN ledger_transfers t ON t.id = w.id WHERE ${[...onTransfer, TEXT_SQL].join(" AND ")}
      ORDER BY w.at DESC, w.id DESC LIMIT ${limit + 1})`;
  const run = (sql: string) => rowsOf<{ id: number; at: number; b: number }>(db, sql, args);
  /** How many entries the window of a ledger account holds (id 0): fewer than SEARCH_WINDOW is all of them. */
  const windowSize = (ledgerAccountId: number) =>
    `SELECT 0 AS id, count(*) AS at, ${ledgerAccountId} AS b FROM (SELECT 1 FROM ledger_entries e
      WHERE e.ledger_account_id = ${ledgerAccountId}${and(onEntry)} LIMIT ${searchWindow})`;
  let rows = filters.q
    ? await run(accounts.flatMap((a) => [windowed(a.id), windowSize(a.id)]).join(" UNION ALL "))
    : null;
  if (rows) {
    // Each ledger account filled its share of the page, or was read to its end: the newest matches
    // are all here. Else search again, the matches found once (an ephemeral index) and each entry
    // walked looked up in it: a text that matches few walks the account's entries once, never once
    // per match.
    const complete = accounts.every((a) => {
      const mine = rows!.filter((r) => Number(r.b) === a.id);
      const size = Number(mine.find((r) => Number(r.id) === 0)?.at ?? 0);
      return mine.length - 1 > limit || size < searchWindow;
    });
    rows = complete ? rows.filter((r) => Number(r.id) !== 0) : null;
  }
  rows ??= await run(
    `${filters.q ? `WITH ${FOUND_SQL} ` : ""}${
      accounts.map((a) => walked(a.id, filters.q ? ["e.transfer_id IN found"] : [])).join(" UNION ALL ")
    }`,
  );
  rows.sort((a, b) => b.at - a.at || b.id - a.id);
  const ids: Cursor[] = [];
  for (const row of rows) {
    if (ids.length && ids[ids.length - 1].id === row.id) continue;
    ids.push({ at: Number(row.at), id: Number(row.id) });
  }
  return { ids: ids.slice(0, limit), more: ids.length > limit };
}

interface TransferRow {
  id: number;
  kind: LedgerTransferKind;
  description: string;
  reference: string | null;
  created_at: number;
}
interface EntryRow {
  transfer_id: number;
  currency: string;
  amount: number;
  account_id: number | null;
  purpose: string;
}
interface PaymentRow {
  id: number;
  status: MovementStatus;
  reference: string;
  name: string;
  rate: string;
  sell_currency: string;
  buy_currency: string;
}
interface ReceiptRow {
  transfer_id: number | null;
  allocation_transfer_id: number | null;
  reversal_transfer_id: number | null;
  payer_name: string;
  reference: string;
  received_at: string;
}

/** The movements that charge (or give back) a fee: a fee of nothing is still said. */
const CHARGES = new Set<MovementKind>(["conversion", "payment", "refund"]);

const placeholders = (n: number) => Array.from({ length: n }, () => "?").join(", ");

/**
 * The movements of these transfers as the account sees them, in the order given. A transfer that
 * did not touch the account's balances is left out (a detail of another account's is not found).
 */
export async function movementsOf(db: Database, accountId: number, transferIds: number[]): Promise<Movement[]> {
  if (!transferIds.length) return [];
  const inIds = placeholders(transferIds.length);
  const [transfers, entries] = await Promise.all([
    rowsOf<TransferRow>(
      db,
      `SELECT id, kind, description, reference, created_at FROM ledger_transfers WHERE id IN (${inIds})`,
      transferIds,
    ),
    rowsOf<EntryRow>(
      db,
      `SELECT e.transfer_id, e.currency, e.amount, a.account_id, a.purpose FROM ledger_entries e
       JOIN ledger_accounts a ON a.id = e.ledger_account_id WHERE e.transfer_id IN (${inIds})`,
      transferIds,
    ),
  ]);
  const paymentIds = [...new Set(transfers.map((t) => paymentIdOf(t.reference)).filter((id) => id !== null))];
  const receiptKinds = transfers.filter((t) => ["receipt", "allocation", "receipt_reversal"].includes(t.kind));
  const quoteIds = transfers.filter((t) => t.kind === "conversion" && t.reference?.startsWith("quote:"))
    .map((t) => t.reference!.slice("quote:".length));
  const receiptIds = receiptKinds.map((t) => t.id);
  const [payments, receipts, conversions] = await Promise.all([
    paymentIds.length
      ? rowsOf<PaymentRow>(
        db,
        `SELECT id, status, reference, json_extract(recipient, '$.name') AS name, rate, sell_currency, buy_currency
         FROM payments WHERE +account_id = ? AND id IN (${placeholders(paymentIds.length)})`,
        [accountId, ...paymentIds],
      )
      : [],
    receiptIds.length
      ? rowsOf<ReceiptRow>(
        db,
        `SELECT transfer_id, allocation_transfer_id, reversal_transfer_id, payer_name, reference, received_at
         FROM receipts WHERE transfer_id IN (${placeholders(receiptIds.length)})
         OR allocation_transfer_id IN (${placeholders(receiptIds.length)})
         OR reversal_transfer_id IN (${placeholders(receiptIds.length)})`,
        [...receiptIds, ...receiptIds, ...receiptIds],
      )
      : [],
    quoteIds.length
      ? rowsOf<{ quote_id: string; rate: string }>(
        db,
        // By the unique quote id alone: with account_id beside it, SQLite walks the account's index.
        `SELECT quote_id, rate FROM conversions WHERE +account_id = ? AND quote_id IN (${
          placeholders(quoteIds.length)
        })`,
        [accountId, ...quoteIds],
      )
      : [],
  ]);
  const paymentById = new Map(payments.map((p) => [Number(p.id), p]));
  const rateByQuote = new Map(conversions.map((c) => [c.quote_id, c.rate]));
  const receiptOf = new Map<number, ReceiptRow>();
  for (const r of receipts) {
    for (const id of [r.transfer_id, r.allocation_transfer_id, r.reversal_transfer_id]) {
      if (id !== null) receiptOf.set(Number(id), r);
    }
  }
  const entriesOf = Map.groupBy(entries, (e) => Number(e.transfer_id));
  const byId = new Map(transfers.map((t) => [Number(t.id), t]));
  const out: Movement[] = [];
  for (const id of transferIds) {
    const t = byId.get(id);
    const kind = t && KIND_OF[t.kind];
    if (!t || !kind) continue;
    const all = entriesOf.get(id) ?? [];
    // The account's own lines, per currency: what became available, what became held.
    const lines = new Map<string, { available: number; held: number }>();
    let fee = 0;
    let feeCurrency: string | null = null;
    for (const e of all) {
      // The house's fee income, signed: positive a fee charged, negative a fee given back (a refund),
      // so that a column of fees adds up to what the customer paid, as the statement's fee lines do.
      if (e.purpose === "fee_income") {
        fee += Number(e.amount);
        feeCurrency = e.currency;
      }
      if (Number(e.account_id) !== accountId || e.account_id === null) continue;
      const line = lines.get(e.currency) ?? { available: 0, held: 0 };
      if (e.purpose === "held") line.held += Number(e.amount);
      else line.available += Number(e.amount);
      lines.set(e.currency, line);
    }
    if (!lines.size) continue;
    // A conversion's first line is what was sold; its other line, what was bought.
    const ordered = [...lines].sort(([, a], [, b]) => (a.available + a.held) - (b.available + b.held));
    const [currency, line] = ordered[0];
    const counter = ordered.length > 1 ? ordered[1] : null;
    const paymentId = paymentIdOf(t.reference);
    const payment = paymentId === null ? undefined : paymentById.get(paymentId);
    if (paymentId !== null && !payment) continue;
    const receipt = receiptOf.get(id);
    const rate = kind === "conversion"
      ? rateByQuote.get(t.reference?.slice("quote:".length) ?? "") ?? null
      : payment && payment.sell_currency !== payment.buy_currency
      ? payment.rate
      : null;
    out.push({
      id,
      kind,
      status: payment?.status ?? "completed",
      description: t.description,
      created_at: new Date(Number(t.created_at)).toISOString(),
      currency,
      amount: formatAmount(currency, line.available),
      held: formatAmount(currency, line.held),
      counter_currency: counter ? counter[0] : null,
      counter_amount: counter ? formatAmount(counter[0], counter[1].available + counter[1].held) : null,
      fee: feeCurrency || CHARGES.has(kind) ? formatAmount(feeCurrency ?? currency, fee) : null,
      fee_currency: feeCurrency ?? (CHARGES.has(kind) ? currency : null),
      rate,
      reference: payment?.reference ?? receipt?.reference ?? null,
      counterparty: payment?.name ?? receipt?.payer_name ?? null,
      payment_id: payment ? Number(payment.id) : null,
    });
  }
  return out;
}

/** A page of the account's movements, and the cursor of the next. */
export async function listMovements(
  db: Database,
  accountId: number,
  filters: MovementFilters,
  cursor: Cursor | null,
  limit: number,
): Promise<{ items: Movement[]; next_cursor: string | null }> {
  const page = await movementPage(db, accountId, filters, cursor, limit);
  const items = await movementsOf(db, accountId, page.ids.map((c) => c.id));
  const last = page.ids[page.ids.length - 1];
  return { items, next_cursor: page.more && last ? cursorText(last) : null };
}

/**
 * One movement of the account with its full cost and, for a payment's step, the payment and its
 * timeline; 404 for a transfer that is not the account's (another account's, a house-only one).
 */
export async function movementDetail(
  db: Database,
  accountId: number,
  transferId: number,
  viewer: Viewer,
): Promise<z.infer<typeof movementDetailAnswer>> {
  const [movement] = await movementsOf(db, accountId, [transferId]);
  if (!movement) throw new NotFound("There is no such transaction on this account.");
  let cost: z.infer<typeof movementDetailAnswer>["cost"] = null;
  let payment: z.infer<typeof movementDetailAnswer>["payment"] = null;
  let receipt: z.infer<typeof movementDetailAnswer>["receipt"] = null;
  if (movement.payment_id !== null) {
    payment = await paymentWithTimeline(db, accountId, movement.payment_id, viewer);
    cost = {
      sell_currency: payment.sell_currency,
      sell_amount: payment.sell_amount,
      buy_currency: payment.buy_currency,
      buy_amount: payment.buy_amount,
      mid_rate: payment.mid_rate,
      rate: payment.rate,
      markup: payment.markup,
      fee: payment.fee,
      fee_currency: payment.fee_currency,
    };
  } else if (movement.kind === "conversion") {
    const row = await rowOf<Record<string, string | number>>(
      db,
      `SELECT c.sell_currency, c.sell_minor, c.buy_currency, c.buy_minor, c.fee_minor, c.rate, q.mid_rate
       FROM conversions c JOIN quotes q ON q.id = c.quote_id WHERE c.account_id = ? AND c.transfer_id = ?`,
      [accountId, transferId],
    );
    if (row) {
      const sell = String(row.sell_currency);
      const buy = String(row.buy_currency);
      const [sold, bought, fee] = [Number(row.sell_minor), Number(row.buy_minor), Number(row.fee_minor)];
      cost = {
        sell_currency: sell,
        sell_amount: formatAmount(sell, sold),
        buy_currency: buy,
        buy_amount: formatAmount(buy, bought),
        mid_rate: String(row.mid_rate),
        rate: String(row.rate),
        markup: formatAmount(sell, markupOf(sold - fee, bought, String(row.mid_rate), sell, buy)),
        fee: formatAmount(sell, fee),
        fee_currency: sell,
      };
    }
  } else if (movement.kind === "receipt" || movement.kind === "receipt_reversal") {
    const row = await rowOf<{ payer_name: string; reference: string; received_at: string }>(
      db,
      `SELECT payer_name, reference, received_at FROM receipts
       WHERE transfer_id = ?1 OR allocation_transfer_id = ?1 OR reversal_transfer_id = ?1`,
      [transferId],
    );
    if (row) receipt = { payer_name: row.payer_name, reference: row.reference, received_at: row.received_at };
  }
  return { ...movement, cost, payment, receipt };
}
