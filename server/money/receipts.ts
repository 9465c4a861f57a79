import Big from "big.js";
import { and, desc, eq, gt, inArray, isNull, or, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { accounts, users } from "../../db/schema.ts";
import { ledgerTransfers, receipts } from "../../db/schema-money.ts";
import { payments } from "../../db/schema-payments.ts";
import { consoleAlerts } from "../../db/schema-console.ts";
import type { Tx } from "../../db/sql.ts";
import type { ReceiptInput } from "../../lib/contracts/console-money.ts";
import type { AuditAction } from "../../lib/audit.ts";
import type { ReceiptStatus } from "../../lib/money/receipts.ts";
import { isValidAccountRef } from "../accounts/account-ref.ts";
import { accountByRef, accountHolderId } from "../accounts/find.ts";
import { closeAlert, raiseAlert } from "../alerts/alerts.ts";
import { alertAboutReceipt, alertPayoutReturned, payoutReturnAlertKey } from "../alerts/triggers.ts";
import type { PaymentRow } from "../payments/answer.ts";
import { audit } from "../audit.ts";
import { Conflict, InvalidInput, NotFound, Refused } from "../errors.ts";
import { InsufficientFunds } from "../ledger/ledger.ts";
import { allocateReceipt, creditReceipt, reverseReceipt } from "../ledger/movements.ts";
import type { Mailer } from "../mail/index.ts";
import { formatAmount, parseAmount } from "./amounts.ts";
import { minorUnits } from "./currencies.ts";
import { MoneyError, withinLedgerRange } from "./errors.ts";
import { tellMembers, tellMembersOfReversal } from "./funds-received.ts";
import { crossValue } from "./rates.ts";
import { ratesInForceSince } from "./store.ts";
import type { RateTable } from "./rates.ts";

/**
 * Receipts: money that arrived in the company's bank accounts, recorded by an administrator
 * (docs/decisions/026). The customer quotes their account_ref as the transfer's reference; a
 * reference that names exactly one account_ref of an open account credits that account at once,
 * and anything else (no account_ref, or several) waits, unmatched, on the house's unallocated funds
 * until an administrator allocates it. Two things wait for a second administrator instead of being
 * booked: a receipt worth more than the approval amount, or that would take the account's receipts
 * credited without a second administrator in 24 hours past it (awaiting_approval), and a repeat of
 * the same reference, amount, currency and date as an earlier one (held_duplicate). A booked receipt
 * can be reversed, with a reason, while its money is still there. Every change is audited in its
 * transaction; whenever money reaches or leaves an account, its people are emailed after the commit.
 */

type Row = typeof receipts.$inferSelect;
export type { ReceiptStatus };

/** What the receipts deal with: the database, the mailer, and the approval amount in pounds. */
export interface ReceiptDeps {
  db: Database;
  mailer: Mailer;
  approvalGbp: number;
  /** Named in the email that tells a customer a credit was reversed. */
  supportEmail: string;
  /** PUBLIC_URL: the funds-received email links to the balances. */
  publicUrl: string;
}

/** The statuses a new receipt is compared with to find a repeat: those still standing. */
const STANDING: ReceiptStatus[] = ["matched", "unmatched", "allocated", "awaiting_approval", "held_duplicate"];

async function administrators(db: Database | Tx, ids: (number | null)[]) {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
  if (!wanted.length) return new Map<number, { id: number; email: string }>();
  const rows = await db.select({ id: users.id, email: users.username }).from(users).where(inArray(users.id, wanted));
  return new Map(rows.map((r) => [r.id, r]));
}

async function answersOf(db: Database | Tx, rows: Row[]) {
  const refs = new Map<number, string>();
  const accountIds = [...new Set(rows.map((r) => r.accountId).filter((id): id is number => id !== null))];
  if (accountIds.length) {
    for (
      const a of await db.select({ id: accounts.id, ref: accounts.accountRef }).from(accounts).where(
        inArray(accounts.id, accountIds),
      )
    ) refs.set(a.id, a.ref);
  }
  const people = await administrators(db, rows.flatMap((r) => [r.recordedBy, r.approvedBy, r.closedBy]));
  const returned = [...new Set(rows.map((r) => r.returnsPaymentId).filter((id): id is number => id !== null))];
  const paymentStatus = new Map(
    returned.length
      ? (await db.select({ id: payments.id, status: payments.status }).from(payments)
        .where(inArray(payments.id, returned))).map((p) => [p.id, p.status])
      : [],
  );
  const person = (id: number | null) => (id === null ? null : people.get(id) ?? null);
  return rows.map((row) => ({
    id: row.id,
    amount: formatAmount(row.currency, row.amountMinor),
    currency: row.currency,
    payer_name: row.payerName,
    reference: row.reference,
    received_at: row.receivedAt,
    status: row.status,
    account_ref: row.accountId === null ? null : refs.get(row.accountId) ?? null,
    recorded_by: person(row.recordedBy)!,
    approved_by: person(row.approvedBy),
    duplicate_of: row.duplicateOf,
    closed_by: person(row.closedBy),
    reason: row.closedReason,
    returns_payment_id: row.returnsPaymentId,
    returns_payment_status: row.returnsPaymentId === null ? null : paymentStatus.get(row.returnsPaymentId) ?? null,
  }));
}

export type ReceiptAnswer = Awaited<ReturnType<typeof answersOf>>[number];

export const answerOf = async (db: Database | Tx, row: Row) => (await answersOf(db, [row]))[0];

/**
 * The account a transfer reference names: the one valid account_ref in it, when that is an open
 * account's. A reference naming two different account_refs is ambiguous: nobody is credited.
 */
export async function accountInReference(
  db: Database,
  reference: string,
): Promise<{ id: number; accountRef: string } | null> {
  const named = new Set<string>();
  for (const [candidate] of reference.toUpperCase().matchAll(/\b[PB]\d{8}\b/g)) {
    if (isValidAccountRef(candidate)) named.add(candidate);
  }
  if (named.size !== 1) return null;
  return await accountByRef(db, [...named][0]) ?? null;
}

/** A bank reference as people retype it: case and spacing do not make another receipt. */
const sameReference = (a: string, b: string) =>
  a.toLowerCase().replace(/\s+/g, " ").trim() === b.toLowerCase().replace(/\s+/g, " ").trim();

/**
 * The rates a receipt is measured with against the approval amount (decision 026, amended): every
 * table in force during the day before `now` (the current one first, those recorded since, and the
 * one in force a day ago), so that the value in pounds is the highest its currency had that day.
 * An administrator may change the rates (up to 5× with a confirmation): measured at the current
 * rates alone, lowering a currency's value let a receipt in it through the limit; now a change can
 * only hold more receipts, never fewer.
 */
export function approvalRates(db: Database | Tx, now: Date): Promise<RateTable[]> {
  return ratesInForceSince(db, new Date(now.getTime() - APPROVAL_DAY_MS));
}

/**
 * An amount's value in pounds for the approval amount: its highest among the tables. The first
 * table (the current one) must quote the currency; an older table that did not is passed over.
 */
export function poundsFor(tables: readonly RateTable[], currency: string, amountMinor: number | Big): Big {
  // A sum of a day's receipts may pass the largest exact number: it comes as a Big of minor units.
  const amount = typeof amountMinor === "number"
    ? formatAmount(currency, amountMinor)
    : amountMinor.div(new Big(10).pow(minorUnits(currency)));
  const value = (table: RateTable) => crossValue(table, currency, "GBP", amount, 2, Big.roundHalfEven);
  let highest = value(tables[0]);
  for (const table of tables.slice(1)) {
    try {
      const other = value(table);
      if (other.gt(highest)) highest = other;
    } catch (error) {
      if (!(error instanceof MoneyError)) throw error;
    }
  }
  return highest;
}

/** How long receipts credited without a second administrator add up against the approval amount. */
export const APPROVAL_DAY_MS = 24 * 60 * 60 * 1000;

/**
 * What the receipts credited to an account in the day before `now` without a second administrator
 * are worth in pounds (decision 026, amended): those matched on recording (its time) that no second
 * administrator approved, and those allocated by the administrator who recorded them (the
 * allocation's ledger transfer's time and maker), whoever approved their arrival; not reversed. Read in the caller's transaction: writes take turns
 * (BEGIN IMMEDIATE, db/write-turns.ts), so two receipts at once are added up one after the other.
 */
export async function creditedWithoutApproval(
  tx: Tx,
  accountId: number,
  tables: readonly RateTable[],
  now: Date,
): Promise<Big> {
  const since = new Date(now.getTime() - APPROVAL_DAY_MS);
  // Summed per currency by the database, as text (exact), then measured: a busy account's day is a few rows.
  const rows = await tx.select({
    currency: receipts.currency,
    sum: sql<string>`cast(sum(${receipts.amountMinor}) as text)`,
  })
    .from(receipts)
    .leftJoin(ledgerTransfers, eq(ledgerTransfers.id, receipts.allocationTransferId))
    .where(and(
      eq(receipts.accountId, accountId),
      or(
        and(eq(receipts.status, "matched"), isNull(receipts.approvedBy), gt(receipts.createdAt, since)),
        // Allocated by the administrator who recorded it: nobody else judged whose it is.
        and(
          eq(receipts.status, "allocated"),
          eq(ledgerTransfers.createdBy, receipts.recordedBy),
          gt(ledgerTransfers.createdAt, since),
        ),
      ),
    )).groupBy(receipts.currency);
  return rows.reduce((total, r) => total.plus(poundsFor(tables, r.currency, new Big(r.sum))), new Big(0));
}

/** Pounds as the alerts and refusals write them. */
const gbp = (value: Big.BigSource) => `${new Big(value).toFixed(2)} GBP`;

/**
 * Why a receipt to an account would wait: the receipts credited to it without a second
 * administrator in the last day would pass the approval amount with it. Null when they would not.
 */
async function overTheDaysLimit(
  tx: Tx,
  approvalGbp: number,
  accountId: number,
  pounds: Big,
  tables: readonly RateTable[],
  now: Date,
): Promise<string | null> {
  const total = (await creditedWithoutApproval(tx, accountId, tables, now)).plus(pounds);
  if (!total.gt(approvalGbp)) return null;
  return `would take the account's receipts credited without approval in 24 hours to ${gbp(total)}, over the ${
    gbp(approvalGbp)
  } limit`;
}

/** Books a receipt in the ledger: to the account it names, or to the unallocated funds. */
async function book(
  tx: Tx,
  row: Pick<Row, "accountId" | "currency" | "amountMinor" | "payerName" | "reference">,
  reference: string,
  by: number,
) {
  const { transferId } = await creditReceipt(tx, {
    accountId: row.accountId,
    currency: row.currency,
    amount: row.amountMinor,
    reference,
    createdBy: by,
    description: `Received from ${row.payerName}: ${row.reference}`.slice(0, 300),
  });
  return transferId;
}

/** What a new receipt says, from an administrator's form or a bank statement's credit entry. */
export interface NewReceipt {
  amountMinor: number;
  currency: string;
  payerName: string;
  reference: string;
  receivedAt: string;
  /** The account its reference names, or null to wait on the unallocated funds. */
  accountId: number | null;
}

/** Where a new receipt comes from and what it is measured with. */
export interface ReceiptOrigin {
  /** Added to the audit row: the statement file, entry and key of an imported credit. */
  source?: Record<string, unknown>;
  /** The rate tables to measure with (approvalRates), read once for many receipts; else read here. */
  tables?: readonly RateTable[];
  /**
   * The whole bank entry, in minor units of the receipt's currency, when the receipt is one of the
   * transactions an entry was broken down into: the approval amount judges the entry, not the part.
   */
  entryAmountMinor?: number;
}

/**
 * Inserts a receipt in the caller's transaction, the way decision 026 says: held for a second
 * administrator when it repeats a standing receipt (held_duplicate), or is worth more than the
 * approval amount (itself or the bank entry it is part of), or would take the receipts credited to
 * its account without a second administrator in the last day past it (awaiting_approval), each
 * raising an alert; else booked at once. Audited with `source` (where it came from) added to the
 * audit row. The caller emails the account's people after the commit when it was credited.
 */
export async function insertReceipt(
  tx: Tx,
  deps: Pick<ReceiptDeps, "approvalGbp">,
  fields: NewReceipt,
  by: number,
  now: Date,
  origin: ReceiptOrigin = {},
): Promise<Row> {
  const { source, entryAmountMinor } = origin;
  const tables = origin.tables ?? await approvalRates(tx, now);
  // In the transaction, so that the same receipt sent twice at once finds its twin.
  const twins = await tx.select().from(receipts).where(and(
    eq(receipts.currency, fields.currency),
    eq(receipts.amountMinor, fields.amountMinor),
    eq(receipts.receivedAt, fields.receivedAt),
    inArray(receipts.status, STANDING),
  )).orderBy(receipts.id);
  const twin = twins.find((r) => sameReference(r.reference, fields.reference));
  const pounds = poundsFor(tables, fields.currency, fields.amountMinor);
  const amount = `${formatAmount(fields.currency, fields.amountMinor)} ${fields.currency}`;
  let waits: string | null = null;
  if (!twin) {
    if (entryAmountMinor !== undefined && poundsFor(tables, fields.currency, entryAmountMinor).gt(deps.approvalGbp)) {
      waits = `A receipt of ${amount} is part of a bank entry of ${
        formatAmount(fields.currency, entryAmountMinor)
      } ${fields.currency}, which is above the approval amount`;
    } else if (pounds.gt(deps.approvalGbp)) {
      waits = `A receipt of ${amount} is above the approval amount`;
    } else if (fields.accountId !== null) {
      // Read in this transaction: two receipts at once are added up one after the other.
      const why = await overTheDaysLimit(tx, deps.approvalGbp, fields.accountId, pounds, tables, now);
      if (why) waits = `A receipt of ${amount} ${why}`;
    }
  }
  const held = twin ? "held_duplicate" : waits ? "awaiting_approval" : null;
  const [inserted] = await tx.insert(receipts).values({
    ...fields,
    status: held ?? (fields.accountId !== null ? "matched" : "unmatched"),
    transferId: held ? null : await book(tx, fields, `receipt:${crypto.randomUUID()}`, by),
    duplicateOf: twin?.id ?? null,
    recordedBy: by,
    createdAt: now,
  }).returning();
  const answer = await answerOf(tx, inserted);
  if (held === "held_duplicate") {
    await raiseAlert(tx, {
      kind: "duplicate_receipt",
      severity: "warning",
      subject: { receipt_id: inserted.id, duplicate_of: twin!.id },
      message: `A receipt of ${amount} (${fields.reference}) repeats receipt ${
        twin!.id
      }: release it if the money came twice, else discard it.`,
      createdBy: by,
      dedupeKey: heldAlertKey("held_duplicate", inserted.id),
    }, now);
  } else if (held === "awaiting_approval") {
    await raiseAlert(tx, {
      kind: "receipt_approval",
      severity: "warning",
      subject: { receipt_id: inserted.id },
      message: `${waits}: a second administrator must approve it.`,
      createdBy: by,
      dedupeKey: heldAlertKey("awaiting_approval", inserted.id),
    }, now);
  }
  await audit(tx, {
    actor: by,
    // For whom: the holder of the account it was credited to (the customer's trail and the audit
    // screen's filters find it by them); an unmatched receipt is nobody's yet.
    subject: await holderOf(tx, inserted.accountId),
    account: inserted.accountId,
    action: "receipt.record",
    before: null,
    after: source ? { ...answer, source } : answer,
  }, now);
  return inserted;
}

/**
 * Records a receipt: booked at once, or held for a second administrator (above the approval
 * amount, or a likely duplicate: each raises an alert). Audited with it; the account's people are
 * emailed when it is credited.
 */
export async function recordReceipt(deps: ReceiptDeps, input: ReceiptInput, by: number, now: Date) {
  const { db } = deps;
  const amountMinor = parseAmount(input.currency, input.amount);
  if (amountMinor <= 0) throw new MoneyError("The amount received must be more than zero.", "amount");
  // "Today" somewhere: the latest date on Earth is UTC+14, so an administrator's local today is never refused.
  if (input.received_at > new Date(now.getTime() + 14 * 60 * 60 * 1000).toISOString().slice(0, 10)) {
    throw new MoneyError("The date the money arrived cannot be in the future.", "received_at");
  }
  const account = await accountInReference(db, input.reference);
  // Past the most a balance holds (the customer's, or the house's bank account): 422, nothing written.
  const row = await withinLedgerRange("amount", () =>
    db.transaction((tx) =>
      insertReceipt(
        tx,
        deps,
        {
          amountMinor,
          currency: input.currency,
          payerName: input.payer_name,
          reference: input.reference,
          receivedAt: input.received_at,
          accountId: account?.id ?? null,
        },
        by,
        now,
      )
    ));
  const receipt = await answerOf(db, row);
  if (row.transferId !== null && row.accountId !== null) await tellMembers(deps, row.accountId, receipt);
  return receipt;
}

const NO_SUCH_RECEIPT = "There is no such receipt.";

/** The customer a receipt's audit entry is for: its account's holder, none while it is unmatched. */
const holderOf = (tx: Tx, accountId: number | null) =>
  accountId === null ? Promise.resolve(null) : accountHolderId(tx, accountId);

/**
 * Changes one receipt in one transaction: `change` gets it as it is and answers the columns to set,
 * which are written only if its status is still the one read (else 409 `stale`), then audited.
 */
async function changeReceipt(
  db: Database,
  receiptId: number,
  action: AuditAction,
  by: number,
  now: Date,
  stale: string,
  change: (tx: Tx, receipt: Row) => Promise<Partial<Row> & { status: ReceiptStatus }>,
  extra: Record<string, unknown> = {},
) {
  return await db.transaction(async (tx) => {
    const [receipt] = await tx.select().from(receipts).where(eq(receipts.id, receiptId));
    if (!receipt) throw new NotFound(NO_SUCH_RECEIPT);
    const set = await change(tx, receipt);
    const [updated] = await tx.update(receipts).set(set)
      .where(and(eq(receipts.id, receipt.id), eq(receipts.status, receipt.status))).returning();
    if (!updated) throw new Conflict(stale);
    const [before, after] = await answersOf(tx, [receipt, updated]);
    const account = updated.accountId ?? receipt.accountId;
    await audit(tx, {
      actor: by,
      subject: await holderOf(tx, account),
      account,
      action,
      before,
      after: { ...after, ...extra },
    }, now);
    return updated;
  });
}

const NOT_WAITING = "This receipt is not waiting for approval.";
const NOT_HELD = "This receipt is not held as a duplicate.";

/** The alert a held receipt raised for a second administrator: one per receipt (raiseAlert's dedupeKey). */
const heldAlertKey = (held: "awaiting_approval" | "held_duplicate", receiptId: number) =>
  `${held === "awaiting_approval" ? "receipt_approval" : "duplicate_receipt"}:${receiptId}`;

/**
 * A held receipt was decided (approved, released, declined or discarded): the alert that asked for
 * it closes by itself, in the same transaction (decision 057, amended), so that the alerts screen
 * never asks for a decision that was made. Receipts held before the alerts had their key keep theirs.
 */
async function closeHeldAlert(tx: Tx, receipt: Row, decided: string, by: number, now: Date) {
  const held = receipt.status as "awaiting_approval" | "held_duplicate";
  await closeAlert(tx, heldAlertKey(held, receipt.id), `Closed by itself: the receipt was ${decided}.`, by, now);
}

/** A second administrator approves a receipt above the approval amount: it is booked now. */
export async function approveReceipt(deps: ReceiptDeps, receiptId: number, by: number, now: Date) {
  return await bookHeld(deps, receiptId, by, now, "awaiting_approval");
}

/** A second administrator releases a receipt held as a duplicate: the money came twice, it is booked. */
export async function releaseReceipt(deps: ReceiptDeps, receiptId: number, by: number, now: Date) {
  return await bookHeld(deps, receiptId, by, now, "held_duplicate");
}

async function bookHeld(
  deps: ReceiptDeps,
  receiptId: number,
  by: number,
  now: Date,
  from: "awaiting_approval" | "held_duplicate",
) {
  const approving = from === "awaiting_approval";
  const row = await changeReceipt(
    deps.db,
    receiptId,
    approving ? "receipt.approve" : "receipt.release",
    by,
    now,
    approving ? NOT_WAITING : NOT_HELD,
    async (tx, receipt) => {
      if (receipt.status !== from) throw new Conflict(approving ? NOT_WAITING : NOT_HELD);
      if (receipt.recordedBy === by) {
        throw new Refused(
          `You recorded this receipt: another administrator must ${approving ? "approve" : "release"} it.`,
        );
      }
      // The receipt's own reference: two approvals at once book it once (the ledger replays the first).
      const transferId = await book(tx, receipt, `receipt:${receipt.id}`, by);
      await closeHeldAlert(tx, receipt, approving ? "approved" : "released", by, now);
      return {
        status: receipt.accountId === null ? "unmatched" : "matched",
        transferId,
        approvedBy: by,
        approvedAt: now,
      };
    },
  );
  const receipt = await answerOf(deps.db, row);
  if (row.accountId !== null) await tellMembers(deps, row.accountId, receipt);
  return receipt;
}

/** Declines a receipt awaiting approval, with a reason (its recorder may: a mistake of theirs). */
export async function declineReceipt(deps: ReceiptDeps, receiptId: number, reason: string, by: number, now: Date) {
  const row = await changeReceipt(deps.db, receiptId, "receipt.decline", by, now, NOT_WAITING, async (tx, receipt) => {
    if (receipt.status !== "awaiting_approval") throw new Conflict(NOT_WAITING);
    await closeHeldAlert(tx, receipt, "declined", by, now);
    return { status: "declined", closedBy: by, closedAt: now, closedReason: reason };
  });
  return await answerOf(deps.db, row);
}

/** Discards a receipt held as a duplicate, with a reason: it was the same money recorded twice. */
export async function discardReceipt(deps: ReceiptDeps, receiptId: number, reason: string, by: number, now: Date) {
  const row = await changeReceipt(deps.db, receiptId, "receipt.discard", by, now, NOT_HELD, async (tx, receipt) => {
    if (receipt.status !== "held_duplicate") throw new Conflict(NOT_HELD);
    await closeHeldAlert(tx, receipt, "discarded", by, now);
    return { status: "discarded", closedBy: by, closedAt: now, closedReason: reason };
  });
  return await answerOf(deps.db, row);
}

const ALREADY_CREDITED = "This receipt has already been credited to an account.";

/**
 * Why a payout's return is neither allocated nor reversed by hand (decision 093): crediting it
 * would pay the customer twice; the desk's failing the payment is what settles it.
 */
function returnHeld(receipt: Row, done: "allocated" | "reversed"): string {
  const payment = receipt.returnsPaymentId;
  return receipt.status === "unmatched"
    ? `Receipt ${receipt.id} is payment ${payment} sent back by the beneficiary's bank, not a customer's money: ` +
      `it cannot be ${done}. Fail payment ${payment} on the payout desk to refund its customer; ` +
      "the receipt is then settled against it. Nothing was changed."
    : `Receipt ${receipt.id} is payment ${payment} sent back by the beneficiary's bank, settled against that ` +
      `payment when it failed and its customer was refunded: it cannot be ${done}. Nothing was changed.`;
}

/**
 * The approval amount at an allocation (decision 026, amended): allocating is crediting an account,
 * so a receipt that would take the receipts credited to it without a second administrator in the
 * last day past the approval amount needs a second administrator here too. Its recorder is refused
 * (403, nothing changed); another administrator may allocate it, and so does not count towards the
 * day's total (creditedWithoutApproval counts allocations made by the receipt's recorder). An
 * approval or release before the allocation judged that the money came, not whose it is: the
 * receipt named no account then, so it is measured here all the same.
 */
async function allocationApproval(
  tx: Tx,
  deps: Pick<ReceiptDeps, "approvalGbp">,
  receipt: Row,
  accountId: number,
  by: number,
  now: Date,
): Promise<Pick<Row, "approvedBy" | "approvedAt"> | Record<never, never>> {
  const tables = await approvalRates(tx, now);
  const pounds = poundsFor(tables, receipt.currency, receipt.amountMinor);
  const why = await overTheDaysLimit(tx, deps.approvalGbp, accountId, pounds, tables, now);
  if (!why) return {};
  if (receipt.recordedBy === by) {
    throw new Refused(
      `Allocating this receipt of ${formatAmount(receipt.currency, receipt.amountMinor)} ${receipt.currency} ${why}: ` +
        "you recorded it, so another administrator must allocate it. Nothing was changed.",
    );
  }
  // The second administrator of the arrival, if there was one, stays its approver.
  return receipt.approvedBy !== null ? {} : { approvedBy: by, approvedAt: now };
}

/** Allocates an unmatched receipt to an account (one transaction, once) and tells its members. */
export async function allocate(deps: ReceiptDeps, receiptId: number, accountRef: string, by: number, now: Date) {
  const account = await accountByRef(deps.db, accountRef);
  if (!account) throw new InvalidInput(`There is no account ${accountRef}.`, "account_ref");
  // The receipt would take this account's balance past the most it holds: refused on the account chosen.
  const row = await withinLedgerRange("account_ref", () =>
    changeReceipt(
      deps.db,
      receiptId,
      "receipt.allocate",
      by,
      now,
      ALREADY_CREDITED,
      async (tx, receipt) => {
        if (receipt.returnsPaymentId !== null) throw new Conflict(returnHeld(receipt, "allocated"));
        if (receipt.status !== "unmatched") throw new Conflict(ALREADY_CREDITED);
        const approval = await allocationApproval(tx, deps, receipt, account.id, by, now);
        const { transferId } = await allocateReceipt(tx, {
          currency: receipt.currency,
          amount: receipt.amountMinor,
          toAccountId: account.id,
          reference: `allocation:receipt:${receipt.id}`,
          createdBy: by,
        });
        await closeAlert(
          tx,
          `unmatched_receipt:${receipt.id}`,
          `Closed by itself: allocated to ${accountRef}.`,
          by,
          now,
        );
        return { status: "allocated", accountId: account.id, allocationTransferId: transferId, ...approval };
      },
    ));
  const receipt = await answerOf(deps.db, row);
  await tellMembers(deps, account.id, receipt);
  return receipt;
}

const NOT_BOOKED = "Only a receipt that was booked (matched, unmatched or allocated) can be reversed.";

/**
 * Reverses a booked receipt with reversing entries and a reason: the money goes back out of the
 * account it reached (or the unallocated funds) to the bank's mirror. Refused, changing nothing,
 * once the money has moved on: the ledger's conditional update will not take a balance below zero.
 * The account's people are emailed.
 */
export async function reverse(deps: ReceiptDeps, receiptId: number, reason: string, by: number, now: Date) {
  const { db } = deps;
  let accountRef: string | null = null;
  const row = await changeReceipt(db, receiptId, "receipt.reverse", by, now, NOT_BOOKED, async (tx, receipt) => {
    if (receipt.returnsPaymentId !== null) throw new Conflict(returnHeld(receipt, "reversed"));
    if (!["matched", "unmatched", "allocated"].includes(receipt.status)) throw new Conflict(NOT_BOOKED);
    const from = receipt.status === "unmatched" ? null : receipt.accountId;
    if (from !== null) {
      const [account] = await tx.select({ ref: accounts.accountRef }).from(accounts).where(eq(accounts.id, from));
      accountRef = account?.ref ?? null;
    }
    try {
      const { transferId } = await reverseReceipt(tx, {
        accountId: from,
        currency: receipt.currency,
        amount: receipt.amountMinor,
        reference: `receipt-reversal:${receipt.id}`,
        createdBy: by,
        description: `Receipt ${receipt.id} reversed: ${reason}`.slice(0, 300),
      });
      return { status: "reversed", reversalTransferId: transferId, closedBy: by, closedAt: now, closedReason: reason };
    } catch (error) {
      if (!(error instanceof InsufficientFunds)) throw error;
      const amount = `${formatAmount(receipt.currency, receipt.amountMinor)} ${receipt.currency}`;
      const available = `${formatAmount(receipt.currency, error.available)} ${receipt.currency}`;
      throw new Conflict(
        `The money has moved on: ${
          accountRef ?? "the unallocated funds"
        } has ${available} available, less than the ${amount} to reverse. Nothing was changed.`,
      );
    }
  });
  const receipt = await answerOf(db, row);
  if (accountRef !== null && row.accountId !== null) {
    await tellMembersOfReversal(db, deps.mailer, row.accountId, {
      amount: `${receipt.amount} ${receipt.currency}`,
      receivedAt: receipt.received_at,
      supportEmail: deps.supportEmail,
    });
  }
  return receipt;
}

/** A payout the bank sent back, as its return needs it (decision 093). */
export type ReturnedPayment = Pick<
  PaymentRow,
  "id" | "status" | "accountId" | "createdBy" | "rail" | "recipient" | "buyCurrency" | "buyMinor"
>;

/**
 * Records money that returns one of our payouts (decision 093), in the caller's transaction: booked
 * at once to the unallocated funds (the money is in the bank, but nobody's to spend) and linked to
 * the payment, never to an account, and never held for approval (no customer is credited). While
 * the payment can still fail, it waits, unmatched and not allocatable, with an alert asking the desk
 * to fail it; a payment that already failed was refunded, so the return is settled against it at
 * once. `why` is the bank's reason as the alert and the receipt say it.
 */
export async function insertReturn(
  tx: Tx,
  fields: Omit<NewReceipt, "accountId">,
  payment: ReturnedPayment,
  why: string,
  by: number,
  now: Date,
  source: Record<string, unknown>,
): Promise<Row> {
  const booked = { ...fields, accountId: null };
  const [inserted] = await tx.insert(receipts).values({
    ...booked,
    status: "unmatched",
    transferId: await book(tx, booked, `receipt:${crypto.randomUUID()}`, by),
    returnsPaymentId: payment.id,
    recordedBy: by,
    createdAt: now,
  }).returning();
  // Like an unmatched receipt, nobody's: the payment's own trail says it failed, when it does.
  await audit(tx, {
    actor: by,
    action: "receipt.record",
    before: null,
    after: { ...await answerOf(tx, inserted), source, returned: why },
  }, now);
  if (payment.status === "failed") {
    return await settleReturn(tx, inserted, `it had already failed and its customer was refunded`, by, now);
  }
  await alertPayoutReturned(tx, payment, inserted.id, why, now);
  return inserted;
}

/**
 * The desk failed payment `paymentId` (its customer is refunded): each return of it still waiting is
 * settled against it, in the desk's transaction (decision 093): its money leaves the unallocated
 * funds back to the bank's mirror, where the payout's refund left the bank balance as the bank has
 * it (the transfer went out and came back), and its alert closes.
 */
export async function settleReturns(tx: Tx, paymentId: number, by: number, now: Date): Promise<void> {
  for (const receipt of await waitingReturns(tx, paymentId)) {
    await settleReturn(tx, receipt, "it failed and its customer was refunded", by, now);
  }
}

/** The returns of payment `paymentId` still waiting to be settled (decision 093). */
const waitingReturns = (tx: Tx, paymentId: number) =>
  tx.select().from(receipts).where(and(eq(receipts.returnsPaymentId, paymentId), eq(receipts.status, "unmatched")));

/** The return of payment `paymentId` still waiting to be settled (decision 093), if one came. */
export async function waitingReturnOf(tx: Tx, paymentId: number): Promise<Row | undefined> {
  const [waiting] = await waitingReturns(tx, paymentId).limit(1);
  return waiting;
}

async function settleReturn(tx: Tx, receipt: Row, happened: string, by: number, now: Date): Promise<Row> {
  const payment = receipt.returnsPaymentId!;
  const reason = `Settled against payment ${payment}, which this returns: ${happened}.`;
  const { transferId } = await reverseReceipt(tx, {
    accountId: null,
    currency: receipt.currency,
    amount: receipt.amountMinor,
    reference: `receipt-reversal:${receipt.id}`,
    createdBy: by,
    description: `Receipt ${receipt.id}: ${reason}`.slice(0, 300),
  });
  const [settled] = await tx.update(receipts).set({
    status: "reversed",
    reversalTransferId: transferId,
    closedBy: by,
    closedAt: now,
    closedReason: reason,
  }).where(and(eq(receipts.id, receipt.id), eq(receipts.status, "unmatched"))).returning();
  if (!settled) throw new Conflict(`Receipt ${receipt.id} changed while payment ${payment} was failed: try again.`);
  // Its alert, and the hourly reminders of it still waiting (server/alerts/triggers.ts), are done with.
  const reminders = await tx.select({ key: consoleAlerts.dedupeKey }).from(consoleAlerts).where(and(
    eq(consoleAlerts.kind, "unmatched_receipt"),
    isNull(consoleAlerts.resolvedAt),
    alertAboutReceipt(receipt.id),
  ));
  for (const key of [payoutReturnAlertKey(receipt.id), ...reminders.map((r) => r.key!)]) {
    await closeAlert(tx, key, `Closed by itself: ${reason}`, by, now);
  }
  const [before, after] = await answersOf(tx, [receipt, settled]);
  await audit(tx, { actor: by, action: "receipt.reverse", before, after }, now);
  return settled;
}

/** The latest 500 receipts, newest first, optionally of one status. */
export async function listReceipts(db: Database, status?: ReceiptStatus) {
  const rows = await db.select().from(receipts)
    .where(status ? eq(receipts.status, status) : undefined)
    .orderBy(desc(receipts.id)).limit(500);
  return await answersOf(db, rows);
}
