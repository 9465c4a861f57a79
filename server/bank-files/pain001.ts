/**
 * SEPA credit-transfer files: ISO 20022 pain.001.001.03 (CustomerCreditTransferInitiationV03) as
 * the EPC's SEPA Credit Transfer implementation guidelines use it, the message a company uploads
 * to its bank to pay many people at once. Decision 020 explains the choices; in short:
 *
 * - one file is one batch: a GrpHdr and one PmtInf (PmtMtd TRF, SvcLvl SEPA, ChrgBr SLEV, one
 *   requested execution date, the company's account as debtor), one CdtTrfTxInf per payment;
 * - BtchBookg is false: the bank books every payment as its own line on our statement, so each
 *   payout is reconciled with its own debit, by end-to-end id;
 * - amounts are integers of euro cents in, written with exactly two decimals by integer arithmetic;
 *   NbOfTxs and CtrlSum (group and payment information) are computed here, never given;
 * - names and remittance information are written in the SEPA basic Latin set (transliterated, see
 *   sepa-text.ts) and cut to 70 and 140 characters; every such change is reported in `changes`;
 *   identifiers (message id, end-to-end ids) are never changed: they are refused if they break the
 *   rules, because they must come back unchanged in the bank's reports;
 * - the XML is built by fast-xml-parser's builder, which escapes text; nothing is concatenated.
 *
 * A pure function: no clock, no database. The caller (the payout desk) chooses the payments, the
 * message id and the time, and records which payments went into which file.
 */
import XMLBuilder from "fast-xml-builder";
import { electronicFormatIBAN, isValidBIC, isValidIBAN } from "ibantools";
import { BankFileError, type BankFileProblem } from "./bank-file-error.ts";
import type { SepaDebtor } from "./debtor.ts";
import { countryOutsideEea, ibanCountry, isSepaCountry } from "./sepa-countries.ts";
import { sepaIdentifierProblem, toSepaText } from "./sepa-text.ts";

export const PAIN_001_001_03 = "urn:iso:std:iso:20022:tech:xsd:pain.001.001.03";

/** The EPC's limits: names 70 characters, unstructured remittance 140, amounts 0.01 to 999999999.99. */
export const SEPA_LIMITS = {
  name: 70,
  remittance: 140,
  identifier: 35,
  minAmountMinor: 1,
  maxAmountMinor: 99_999_999_999,
} as const;

export interface SepaCreditTransfer {
  /** Our reference for this payment, returned by the bank in statements and returns (max 35). */
  readonly endToEndId: string;
  /** Euro cents: 1 is 0.01 EUR. */
  readonly amountMinor: number;
  readonly creditorName: string;
  readonly creditorIban: string;
  /** The creditor bank's BIC; needed only when either account is in a SEPA country outside the EEA. */
  readonly creditorBic?: string | null;
  /** What the creditor sees with the money (unstructured, at most 140 characters written). */
  readonly remittance?: string | null;
}

export interface SepaCreditTransferBatch {
  /** Unique for every file the company sends its bank (max 35); banks refuse a repeated one. */
  readonly messageId: string;
  readonly createdAt: Date;
  readonly debtor: Pick<SepaDebtor, "name" | "iban" | "bic">;
  /** The day the bank is asked to pay, YYYY-MM-DD. */
  readonly executionDate: string;
  readonly payments: readonly SepaCreditTransfer[];
}

/** A free-text field that was written differently from how it was given. */
export interface SepaTextChange {
  readonly endToEndId: string;
  readonly field: "creditor_name" | "remittance";
  readonly given: string;
  readonly written: string;
  readonly truncated: boolean;
}

export interface SepaCreditTransferFile {
  readonly xml: string;
  readonly messageId: string;
  readonly numberOfTransactions: number;
  /** The sum of the amounts, "1234.56". */
  readonly controlSum: string;
  readonly changes: readonly SepaTextChange[];
}

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  textNodeName: "#text",
  format: true,
  indentBy: "  ",
  suppressEmptyNode: false,
});

/** Writes the batch as a pain.001.001.03 document, or throws a BankFileError listing every problem. */
export function writeSepaCreditTransferFile(batch: SepaCreditTransferBatch): SepaCreditTransferFile {
  const problems: BankFileProblem[] = [];
  const problem = (field: string, message: string) => problems.push({ field, message });

  const idProblem = sepaIdentifierProblem(batch.messageId);
  if (idProblem) problem("message_id", `The file's message id "${batch.messageId}" ${idProblem}.`);
  if (!(batch.createdAt instanceof Date) || Number.isNaN(batch.createdAt.getTime())) {
    problem("created_at", "The file's creation time is not a valid time.");
  }
  checkExecutionDate(batch, problem);
  const debtor = checkDebtor(batch.debtor, problem);
  if (batch.payments.length === 0) problem("payments", "A SEPA file needs at least one payment.");

  const changes: SepaTextChange[] = [];
  const seen = new Set<string>();
  let controlSum = 0n;
  const transactions = batch.payments.map((payment, i) => {
    const at = `payments.${i}`;
    const which = `Payment "${payment.endToEndId}"`;
    const e2eProblem = sepaIdentifierProblem(payment.endToEndId);
    if (e2eProblem) problem(`${at}.end_to_end_id`, `${which}: its end-to-end id ${e2eProblem}.`);
    if (seen.has(payment.endToEndId)) {
      problem(`${at}.end_to_end_id`, `${which} appears twice in the file; a payment is paid once.`);
    }
    seen.add(payment.endToEndId);

    const amount = payment.amountMinor;
    const amountOk = Number.isSafeInteger(amount) && amount >= SEPA_LIMITS.minAmountMinor &&
      amount <= SEPA_LIMITS.maxAmountMinor;
    if (amountOk) controlSum += BigInt(amount);
    else problem(`${at}.amount`, `${which}: a SEPA payment is between 0.01 and 999999999.99 EUR, not ${amount} cents.`);

    const iban = electronicFormatIBAN(payment.creditorIban) ?? "";
    if (!isValidIBAN(iban)) {
      problem(`${at}.creditor_iban`, `${which}: the creditor's IBAN "${payment.creditorIban}" is not a valid IBAN.`);
    } else if (!isSepaCountry(ibanCountry(iban))) {
      problem(`${at}.creditor_iban`, `${which}: the creditor's account is in ${ibanCountry(iban)}, outside SEPA.`);
    }

    const bic = payment.creditorBic ? payment.creditorBic.replace(/\s+/g, "").toUpperCase() : null;
    if (bic !== null && !isValidBIC(bic)) {
      problem(`${at}.creditor_bic`, `${which}: the creditor's BIC "${payment.creditorBic}" is not a valid BIC.`);
    } else if (bic === null && debtor && isValidIBAN(iban)) {
      const outside = countryOutsideEea(debtor.iban, iban);
      if (outside) {
        problem(
          `${at}.creditor_bic`,
          `${which}: the creditor bank's BIC is needed for a transfer that involves ${outside}, a SEPA country outside the EEA.`,
        );
      }
    }

    const name = toSepaText(payment.creditorName, SEPA_LIMITS.name);
    if (name.text === "") {
      problem(`${at}.creditor_name`, `${which}: the creditor's name has no letters that a SEPA file can carry.`);
    } else if (name.changed) {
      changes.push({
        endToEndId: payment.endToEndId,
        field: "creditor_name",
        given: payment.creditorName,
        written: name.text,
        truncated: name.truncated,
      });
    }
    const remittance = toSepaText(payment.remittance ?? "", SEPA_LIMITS.remittance);
    // Reported even when nothing is left of it: the creditor will see no reference at all.
    if (remittance.changed) {
      changes.push({
        endToEndId: payment.endToEndId,
        field: "remittance",
        given: payment.remittance ?? "",
        written: remittance.text,
        truncated: remittance.truncated,
      });
    }

    return {
      PmtId: { EndToEndId: payment.endToEndId },
      Amt: { InstdAmt: { "@_Ccy": "EUR", "#text": amountOk ? euros(BigInt(amount)) : "" } },
      ...(bic ? { CdtrAgt: { FinInstnId: { BIC: bic } } } : {}),
      Cdtr: { Nm: name.text },
      CdtrAcct: { Id: { IBAN: iban } },
      ...(remittance.text ? { RmtInf: { Ustrd: remittance.text } } : {}),
    };
  });

  if (problems.length > 0 || !debtor) throw new BankFileError(problems);

  const count = String(transactions.length);
  const sum = euros(controlSum);
  const document = {
    "?xml": { "@_version": "1.0", "@_encoding": "UTF-8" },
    Document: {
      "@_xmlns": PAIN_001_001_03,
      CstmrCdtTrfInitn: {
        GrpHdr: {
          MsgId: batch.messageId,
          CreDtTm: `${batch.createdAt.toISOString().slice(0, 19)}Z`,
          NbOfTxs: count,
          CtrlSum: sum,
          InitgPty: { Nm: debtor.name },
        },
        PmtInf: {
          PmtInfId: batch.messageId,
          PmtMtd: "TRF",
          BtchBookg: "false",
          NbOfTxs: count,
          CtrlSum: sum,
          PmtTpInf: { SvcLvl: { Cd: "SEPA" } },
          ReqdExctnDt: batch.executionDate,
          Dbtr: { Nm: debtor.name },
          DbtrAcct: { Id: { IBAN: debtor.iban }, Ccy: "EUR" },
          DbtrAgt: { FinInstnId: { BIC: debtor.bic } },
          ChrgBr: "SLEV",
          CdtTrfTxInf: transactions,
        },
      },
    },
  };
  return {
    xml: builder.build(document),
    messageId: batch.messageId,
    numberOfTransactions: transactions.length,
    controlSum: sum,
    changes,
  };
}

/** Integer cents → "1234.56", by integer arithmetic (a CtrlSum may pass Number.MAX_SAFE_INTEGER cents). */
function euros(cents: bigint): string {
  return `${cents / 100n}.${String(cents % 100n).padStart(2, "0")}`;
}

function checkExecutionDate(batch: SepaCreditTransferBatch, problem: (field: string, message: string) => void) {
  const date = batch.executionDate;
  const parsed = /^\d{4}-\d{2}-\d{2}$/.test(date) ? new Date(`${date}T00:00:00Z`) : null;
  if (!parsed || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== date) {
    problem("execution_date", `The requested execution date "${date}" is not a date like 2026-11-23.`);
    return;
  }
  const created = batch.createdAt instanceof Date && !Number.isNaN(batch.createdAt.getTime())
    ? batch.createdAt.toISOString().slice(0, 10)
    : null;
  if (created && date < created) {
    problem("execution_date", `The requested execution date ${date} is before the file was made (${created}).`);
  }
}

function checkDebtor(
  debtor: SepaCreditTransferBatch["debtor"],
  problem: (field: string, message: string) => void,
): SepaCreditTransferBatch["debtor"] | null {
  const iban = electronicFormatIBAN(debtor.iban) ?? "";
  const bic = debtor.bic.replace(/\s+/g, "").toUpperCase();
  const name = toSepaText(debtor.name, SEPA_LIMITS.name).text;
  let ok = true;
  if (!isValidIBAN(iban) || !isSepaCountry(ibanCountry(iban))) {
    problem("debtor.iban", `The company's IBAN "${debtor.iban}" is not a valid IBAN in SEPA.`);
    ok = false;
  }
  if (!isValidBIC(bic)) {
    problem("debtor.bic", `The company's BIC "${debtor.bic}" is not a valid BIC.`);
    ok = false;
  }
  if (name === "") {
    problem("debtor.name", "The company's account name has no letters that a SEPA file can carry.");
    ok = false;
  }
  return ok ? { name, iban, bic } : null;
}
