import { eq } from "drizzle-orm";
import { accounts } from "../../db/schema.ts";
import { receipts, statementCredits } from "../../db/schema-money.ts";
import type { StatementEntryResult, StatementImport } from "../../lib/contracts/console-money.ts";
import { audit } from "../audit.ts";
import { readBankStatement, type StatementCredit } from "../bank-files/camt053.ts";
import { BankFileError } from "../bank-files/bank-file-error.ts";
import { formatAmount } from "./amounts.ts";
import { withinLedgerRange } from "./errors.ts";
import { tellMembers } from "./funds-received.ts";
import { accountInReference, answerOf, inPounds, insertReceipt, type ReceiptDeps } from "./receipts.ts";

/**
 * The bank's statement file imported as receipts (decision 046, on decision 020's reader and
 * decision 026's receipts). Each booked credit entry is recorded as a manual receipt is: matched
 * by the one account_ref its remittance information names, else unmatched; held for a second
 * administrator above the approval amount or when it repeats a standing receipt. Each credit is
 * taken in its own transaction together with a row of `statement_credits` under the entry's key,
 * unique: an entry already imported (by this file earlier, or another file holding the same
 * entry) is skipped and nothing moves. A reversal (RvslInd: a payout the bank sent back) is never
 * matched to a customer, whatever its text says: it waits unmatched for an administrator.
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
  const entries: Entry[] = [];
  const credited: { accountId: number; answer: { amount: string; currency: string } }[] = [];
  for (const credit of file.credits) {
    const { entry, tell } = await importCredit(deps, file.messageId, credit, by, now);
    entries.push(entry);
    if (tell) credited.push(tell);
  }
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
    });
  }
  const counts = {
    credited: 0,
    held_for_approval: 0,
    held_as_duplicates: 0,
    unmatched: 0,
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
  for (const { accountId, answer } of credited) await tellMembers(db, deps.mailer, accountId, answer);
  return answer;
}

/** One credit: skipped if its key was imported before, else recorded with its key, in one transaction. */
async function importCredit(deps: ImportDeps, messageId: string, credit: StatementCredit, by: number, now: Date) {
  const { db } = deps;
  const reference = credit.reference.slice(0, 500);
  const payerName = (credit.debtorName ?? "Not given by the bank").slice(0, 200);
  const account = credit.reversal ? null : await accountInReference(db, reference);
  const pounds = await inPounds(db, credit.currency, credit.amountMinor);
  const base = {
    statement_id: credit.statementId,
    bank_reference: credit.accountServicerReference,
    entry_reference: credit.entryReference,
    booking_date: credit.bookingDate,
    amount: formatAmount(credit.currency, credit.amountMinor),
    currency: credit.currency,
    payer_name: payerName,
    reference,
  };
  const outcome = await withinLedgerRange("file", () =>
    db.transaction(async (tx) => {
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
        const [earlier] = await tx.select({ receiptId: statementCredits.receiptId }).from(statementCredits)
          .where(eq(statementCredits.key, credit.key));
        return { receipt: null, earlier: earlier?.receiptId ?? null };
      }
      const receipt = await insertReceipt(
        tx,
        deps,
        {
          amountMinor: credit.amountMinor,
          currency: credit.currency,
          payerName,
          reference,
          receivedAt: credit.bookingDate,
          accountId: account?.id ?? null,
        },
        pounds,
        by,
        now,
        {
          statement_file: messageId,
          statement_id: credit.statementId,
          key: credit.key,
          reversal: credit.reversal,
        },
      );
      await tx.update(statementCredits).set({ receiptId: receipt.id }).where(eq(statementCredits.id, claimed.id));
      return { receipt, earlier: null };
    }));
  if (!outcome.receipt) {
    const accountRef = await refOfReceipt(deps, outcome.earlier);
    const entry: Entry = { ...base, result: "already_imported", account_ref: accountRef, receipt_id: outcome.earlier };
    return { entry, tell: null };
  }
  const row = outcome.receipt;
  const answer = await answerOf(db, row);
  const result: StatementEntryResult = row.status === "matched" ? "credited" : row.status as StatementEntryResult;
  const entry: Entry = { ...base, result, account_ref: answer.account_ref, receipt_id: row.id };
  const tell = row.transferId !== null && row.accountId !== null ? { accountId: row.accountId, answer } : null;
  return { entry, tell };
}

/** The account_ref of the receipt an earlier import made, to show whom that money went to. */
async function refOfReceipt(deps: ImportDeps, receiptId: number | null): Promise<string | null> {
  if (receiptId === null) return null;
  const [found] = await deps.db.select({ ref: accounts.accountRef }).from(receipts)
    .innerJoin(accounts, eq(accounts.id, receipts.accountId))
    .where(eq(receipts.id, receiptId));
  return found?.ref ?? null;
}
