import { eq, inArray } from "drizzle-orm";
import { accounts } from "../../db/schema.ts";
import { receipts, statementCredits } from "../../db/schema-money.ts";
import { payments } from "../../db/schema-payments.ts";
import type { Tx } from "../../db/sql.ts";
import type { StatementEntryResult, StatementImport } from "../../lib/contracts/console-money.ts";
import { audit } from "../audit.ts";
import { afterAnswer } from "../background.ts";
import { readBankStatement, type StatementCredit } from "../bank-files/camt053.ts";
import { BankFileError } from "../bank-files/bank-file-error.ts";
import { formatAmount } from "./amounts.ts";
import { withinLedgerRange } from "./errors.ts";
import { tellMembers } from "./funds-received.ts";
import { paymentNamedIn } from "../payouts/sepa-file-rail.ts";
import {
  accountInReference,
  approvalRates,
  insertReceipt,
  insertReturn,
  type ReceiptDeps,
  type ReturnedPayment,
} from "./receipts.ts";

type Receipt = typeof receipts.$inferSelect;

/**
 * The bank's statement file imported as receipts (decision 046, on decision 020's reader and
 * decision 026's receipts). Each booked credit entry is recorded as a manual receipt is: matched
 * by the one account_ref its remittance information names, else unmatched; held for a second
 * administrator above the approval amount or when it repeats a standing receipt. Each credit is
 * taken in its own transaction together with a row of `statement_credits` under the entry's key,
 * unique: an entry already imported (by this file earlier, or another file holding the same
 * entry) is skipped and nothing moves. A reversal (RvslInd: a payout the bank sent back) is never
 * matched to a customer, whatever its text says: it waits unmatched for an administrator. A credit
 * the bank marks as the return of one of our payouts (decision 093) is held against that payment.
 */

type Entry = StatementImport["entries"][number];

/** What the import needs of the configuration: the company's account, when it is set. */
export interface ImportDeps extends ReceiptDeps {
  /** COMPANY_BANK_IBAN when it is set: a statement of any other account is refused. */
  companyIban: string | null;
}

const COUNTED: Record<StatementEntryResult, keyof StatementImport["counts"]> = {
  credited: "credited",
  awaiting_approval: "held_for_approval",
  held_duplicate: "held_as_duplicates",
  unmatched: "unmatched",
  payout_return: "payout_returns",
  already_imported: "duplicates_skipped",
  debit_ignored: "debits_ignored",
  not_booked: "others_skipped",
  unsupported_currency: "others_skipped",
};

const compact = (iban: string) => iban.replace(/\s+/g, "").toUpperCase();

export async function importStatement(deps: ImportDeps, xml: string, by: number, now: Date): Promise<StatementImport> {
  const { db } = deps;
  const file = readBankStatement(xml);
  if (deps.companyIban) {
    const others = file.statements.filter((s) => compact(s.account) !== compact(deps.companyIban!));
    if (others.length) {
      throw new BankFileError([{
        field: "file",
        message: `This statement is of account ${
          others[0].account
        }, not of the company's account ${deps.companyIban}: nothing was imported.`,
      }]);
    }
  }
  const entries = await importCredits(deps, file.messageId, file.credits, by, now);
  for (const skipped of file.skipped) {
    entries.push({
      result: skipped.reason === "debit" ? "debit_ignored" : skipped.reason,
      statement_id: skipped.statementId,
      bank_reference: skipped.accountServicerReference,
      entry_reference: null,
      booking_date: skipped.bookingDate,
      amount: skipped.amount,
      currency: skipped.currency,
      payer_name: null,
      reference: null,
      account_ref: null,
      receipt_id: null,
      payment_id: null,
    });
  }
  const counts = {
    credited: 0,
    held_for_approval: 0,
    held_as_duplicates: 0,
    unmatched: 0,
    payout_returns: 0,
    duplicates_skipped: 0,
    debits_ignored: 0,
    others_skipped: 0,
  };
  for (const e of entries) counts[COUNTED[e.result]]++;
  const answer: StatementImport = {
    message_id: file.messageId,
    statements: file.statements.map((s) => ({ id: s.id, account: s.account, entries: s.entries })),
    counts,
    entries,
  };
  // The import as a whole, in its own transaction: each receipt's audit row says what it became.
  await db.transaction((tx) =>
    audit(tx, {
      actor: by,
      action: "receipt.import",
      before: null,
      after: { message_id: answer.message_id, statements: answer.statements, counts },
    }, now)
  );
  return answer;
}

/** How many credits one transaction takes: a commit each, not one per entry; the write lock held briefly. */
const BATCH = 100;

/** What the import answers about a credit, before its result is known. */
function describeCredit(credit: StatementCredit) {
  return {
    statement_id: credit.statementId,
    bank_reference: credit.accountServicerReference,
    entry_reference: credit.entryReference,
    booking_date: credit.bookingDate,
    amount: formatAmount(credit.currency, credit.amountMinor),
    currency: credit.currency,
    payer_name: (credit.debtorName ?? "Not given by the bank").slice(0, 200),
    reference: credit.reference.slice(0, 500),
  };
}

/**
 * The credits in the file's order: those whose key an earlier import took are answered with the
 * receipt they became; the others are recorded, a batch of them a transaction, each with its key
 * (the unique key still holds if two imports of one file run at once: the second's insert finds
 * the first's row and skips). The people of each credited account are emailed after the answer.
 */
async function importCredits(
  deps: ImportDeps,
  messageId: string,
  credits: readonly StatementCredit[],
  by: number,
  now: Date,
): Promise<Entry[]> {
  const { db } = deps;
  const earlier = await importedBefore(deps, credits.map((c) => c.key));
  const entries: Entry[] = [];
  const fresh: { at: number; credit: StatementCredit; accountId: number | null }[] = [];
  for (const credit of credits) {
    const said = describeCredit(credit);
    const before = earlier.get(credit.key);
    if (before) {
      entries.push({ ...said, result: "already_imported", ...before });
      continue;
    }
    // A reversal or a return is our own money coming back: never a customer's deposit, whatever its text says.
    const account = credit.reversal || credit.returned ? null : await accountInReference(db, said.reference);
    fresh.push({ at: entries.length, credit, accountId: account?.id ?? null });
    entries.push({ ...said, result: "unmatched", account_ref: null, receipt_id: null, payment_id: null });
  }
  const credited: { accountId: number; money: { amount: string; currency: string } }[] = [];
  for (let i = 0; i < fresh.length; i += BATCH) {
    const batch = fresh.slice(i, i + BATCH);
    // Past the most a balance holds: 422, this batch not written (those before it stay imported).
    const rows = await withinLedgerRange("file", () =>
      db.transaction(async (tx) => {
        const made: (Receipt | null)[] = [];
        // Read in the batch's transaction: the rates of the day the receipts are measured with (approvalRates).
        const tables = await approvalRates(tx, now);
        for (const { credit, accountId } of batch) {
          const said = entries[fresh[i + made.length].at];
          const [claimed] = await tx.insert(statementCredits).values({
            key: credit.key,
            messageId,
            statementId: credit.statementId,
            entryReference: credit.entryReference,
            accountServicerReference: credit.accountServicerReference,
            account: credit.account,
            importedBy: by,
            importedAt: now,
          }).onConflictDoNothing().returning({ id: statementCredits.id });
          if (!claimed) {
            made.push(null);
            continue;
          }
          const fields = {
            amountMinor: credit.amountMinor,
            currency: credit.currency,
            payerName: said.payer_name!,
            reference: said.reference!,
            receivedAt: credit.bookingDate,
          };
          const source = { statement_file: messageId, statement_id: credit.statementId, key: credit.key };
          const returned = await returnedPayment(tx, credit);
          const receipt = returned
            ? await insertReturn(tx, fields, returned, returnReason(credit), by, now, source)
            : await insertReceipt(tx, deps, { ...fields, accountId }, by, now, {
              source: { ...source, reversal: credit.reversal },
              tables,
              // One of the transactions a bank entry was broken down into: the whole entry is judged.
              entryAmountMinor: credit.entryAmountMinor !== credit.amountMinor ? credit.entryAmountMinor : undefined,
            });
          await tx.update(statementCredits).set({ receiptId: receipt.id }).where(eq(statementCredits.id, claimed.id));
          made.push(receipt);
        }
        return made;
      }));
    const raced = batch.filter((_, j) => rows[j] === null).map((f) => f.credit.key);
    const theirs = raced.length ? await importedBefore(deps, raced) : new Map();
    const refs = await accountRefs(deps, rows.flatMap((r) => (r?.accountId ? [r.accountId] : [])));
    batch.forEach(({ at, credit }, j) => {
      const row = rows[j];
      if (!row) {
        entries[at] = { ...entries[at], result: "already_imported", ...theirs.get(credit.key) };
        return;
      }
      const result: StatementEntryResult = row.returnsPaymentId !== null
        ? "payout_return"
        : row.status === "matched"
        ? "credited"
        : row.status as StatementEntryResult;
      const accountRef = row.accountId === null ? null : refs.get(row.accountId) ?? null;
      entries[at] = {
        ...entries[at],
        result,
        account_ref: accountRef,
        receipt_id: row.id,
        payment_id: row.returnsPaymentId,
      };
      if (row.transferId !== null && row.accountId !== null) {
        credited.push({ accountId: row.accountId, money: { amount: entries[at].amount, currency: row.currency } });
      }
    });
  }
  // After the answer: a file credits thousands of accounts, and the emails would take most of the
  // request (decision 046). An email lost with the process is a notice, not money: the balance shows it.
  if (credited.length) {
    afterAnswer("funds-received emails of a statement import", async () => {
      for (const { accountId, money } of credited) await tellMembers(deps, accountId, money);
    });
  }
  return entries;
}

/**
 * The payout a credit returns (decision 093): the bank marks it as a return, and the end-to-end id
 * it gives back (in its references, else in its return information) is one of ours, of a payment
 * that was paid out in the credit's currency, for at least the credit's amount (a bank may keep a
 * charge), and not returned before. Read in the import's transaction: the payment's status then
 * decides what the return is.
 */
async function returnedPayment(tx: Tx, credit: StatementCredit): Promise<ReturnedPayment | null> {
  if (!credit.returned) return null;
  const id = paymentNamedIn(credit.endToEndId) ?? paymentNamedIn(credit.returned.information);
  if (id === null) return null;
  const [payment] = await tx.select().from(payments).where(eq(payments.id, id));
  if (!payment || payment.payoutTransferId === null) return null;
  if (!["submitted", "completed", "failed"].includes(payment.status)) return null;
  if (payment.buyCurrency !== credit.currency || payment.buyMinor < credit.amountMinor) return null;
  // A payment comes back once: a second credit naming it is money the bank holds, for a person to judge.
  const earlier = await tx.select({ id: receipts.id }).from(receipts).where(eq(receipts.returnsPaymentId, id));
  return earlier.length ? null : payment;
}

/** The bank's reason for a return, as the alert and the audit entry say it. */
function returnReason(credit: StatementCredit): string {
  const { reasonCode, information } = credit.returned!;
  const said = [reasonCode && `reason ${reasonCode}`, information].filter(Boolean).join(": ");
  return said || "no reason given by the bank";
}

/** The receipts that earlier imports made of these keys, with the account_ref each named. */
async function importedBefore(deps: ImportDeps, keys: readonly string[]) {
  const found = new Map<string, { receipt_id: number | null; account_ref: string | null; payment_id: number | null }>();
  // In slices: SQLite takes a bounded number of parameters in one statement.
  for (let i = 0; i < keys.length; i += 500) {
    const rows = await deps.db.select({
      key: statementCredits.key,
      receiptId: statementCredits.receiptId,
      accountRef: accounts.accountRef,
      paymentId: receipts.returnsPaymentId,
    }).from(statementCredits)
      .leftJoin(receipts, eq(receipts.id, statementCredits.receiptId))
      .leftJoin(accounts, eq(accounts.id, receipts.accountId))
      .where(inArray(statementCredits.key, keys.slice(i, i + 500)));
    for (const r of rows) {
      found.set(r.key, { receipt_id: r.receiptId, account_ref: r.accountRef, payment_id: r.paymentId });
    }
  }
  return found;
}

async function accountRefs(deps: ImportDeps, ids: readonly number[]) {
  const wanted = [...new Set(ids)];
  if (!wanted.length) return new Map<number, string>();
  const rows = await deps.db.select({ id: accounts.id, ref: accounts.accountRef }).from(accounts)
    .where(inArray(accounts.id, wanted));
  return new Map(rows.map((r) => [r.id, r.ref]));
}
