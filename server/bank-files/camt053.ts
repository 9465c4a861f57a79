/**
 * Bank statements: ISO 20022 camt.053.001.02 (BankToCustomerStatementV02), the end-of-day statement
 * a bank sends for the company's account. The receipts import reads the money that came in: every
 * booked credit entry. Decision 020 explains the choices; in short:
 *
 * - only camt.053.001.02 is read: any other document (another version, camt.052/054, not XML) is
 *   refused with a message saying what it is; a DOCTYPE is refused (no entity tricks);
 * - debit entries, entries not booked (Sts PDNG or INFO) and entries in a currency we do not hold
 *   are skipped and listed in `skipped` with the reason, so the operator sees everything the file held;
 * - an entry whose details break it down into several transactions (a batch booked as one credit)
 *   gives one credit per transaction when their amounts add up to the entry's; otherwise the entry is
 *   one credit carrying every transaction's remittance information;
 * - every credit has a `key` that is the same every time the same file is read, so an importer can
 *   credit each once: the account, the booking date and the bank's AcctSvcrRef (plus the
 *   transaction's position in a broken-down entry), or, for a bank that gives no AcctSvcrRef, a
 *   SHA-256 of what the entry says plus how many identical entries came before it in the document;
 *   two credits of one document with the same AcctSvcrRef refuse the file rather than lose one;
 * - a statement whose own totals (TxsSummry/TtlCdtNtries) disagree with its credit entries is refused,
 *   and so is an entry that is neither credit nor debit: a file we read differently from how the bank
 *   wrote it must not move money.
 *
 * A pure function of the XML text, parsed by fast-xml-parser.
 */
import { createHash } from "node:crypto";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { isCurrency, minorUnits } from "../money/currencies.ts";
import { BankFileError } from "./bank-file-error.ts";

export const CAMT_053_001_02 = "urn:iso:std:iso:20022:tech:xsd:camt.053.001.02";
const ISO_20022 = "urn:iso:std:iso:20022:tech:xsd:";

export interface StatementCredit {
  /** The same for the same credit every time the file is read: credit each key once. */
  readonly key: string;
  readonly statementId: string;
  /** The statement's account: its IBAN, or its other identification. */
  readonly account: string;
  /** The bank's reference of the entry (AcctSvcrRef), when it gives one. */
  readonly accountServicerReference: string | null;
  /** The entry's reference in the statement (NtryRef), when there is one. */
  readonly entryReference: string | null;
  /** YYYY-MM-DD. */
  readonly bookingDate: string;
  /** YYYY-MM-DD, when the bank gives one. */
  readonly valueDate: string | null;
  /** Integer minor units of `currency` (cents for EUR). */
  readonly amountMinor: number;
  /**
   * The whole entry's amount: more than `amountMinor` when the entry was broken down into several
   * transactions, each a credit of its own (the approval amount judges the whole entry).
   */
  readonly entryAmountMinor: number;
  readonly currency: string;
  /** The payer (Dbtr, else UltmtDbtr), when the bank passes the name on. */
  readonly debtorName: string | null;
  /** The payer's account (IBAN or other id), when given. */
  readonly debtorAccount: string | null;
  readonly endToEndId: string | null;
  /** Unstructured remittance information (Ustrd), each line as the bank wrote it. */
  readonly remittanceLines: readonly string[];
  /** Structured creditor references (Strd/CdtrRefInf/Ref), such as an RF reference. */
  readonly creditorReferences: readonly string[];
  /** The entry's additional information (AddtlNtryInf): some banks put the payer's text there. */
  readonly additionalInformation: string | null;
  /** Everything the payer wrote, joined with spaces, for finding an account_ref in it. */
  readonly reference: string;
  /** Domain/family/sub-family, such as "PMNT/RCDT/ESCT", or the proprietary code. */
  readonly bankTransactionCode: string | null;
  /** True when the bank marks the entry as the reversal of an earlier debit (RvslInd). */
  readonly reversal: boolean;
  /**
   * Set when the bank says the credit returns a transfer of ours (a SEPA return: the beneficiary's
   * bank refused it): its return information (TxDtls/RtrInf) or a bank transaction code of a return
   * (sub-family RRTN). Only the bank writes these: a payer cannot make their transfer look like one.
   */
  readonly returned: ReturnedTransfer | null;
}

/** A return carries the original transfer's end-to-end id in the credit's `endToEndId` (Refs), or in its information. */
export interface ReturnedTransfer {
  /** The return's reason: its ISO code (RtrInf/Rsn/Cd, such as AC04) or proprietary one, when given. */
  readonly reasonCode: string | null;
  /** The return's additional information (RtrInf/AddtlInf), as the bank wrote it. */
  readonly information: string | null;
}

export type SkipReason = "debit" | "not_booked" | "unsupported_currency";

export interface SkippedEntry {
  readonly reason: SkipReason;
  readonly statementId: string;
  readonly accountServicerReference: string | null;
  readonly bookingDate: string | null;
  /** As the bank wrote it. */
  readonly amount: string;
  readonly currency: string;
  readonly creditDebit: "CRDT" | "DBIT";
  /** The entry's status: BOOK, PDNG or INFO. */
  readonly status: string;
}

export interface StatementSummary {
  readonly id: string;
  readonly account: string;
  readonly createdAt: string | null;
  readonly entries: number;
}

export interface BankStatementFile {
  readonly messageId: string;
  readonly createdAt: string;
  readonly statements: readonly StatementSummary[];
  readonly credits: readonly StatementCredit[];
  readonly skipped: readonly SkippedEntry[];
}

type Node = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  textNodeName: "#text",
  // Amounts, references and ids stay text: "00123" is a reference, not the number 123.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

/** Reads the credits of a camt.053.001.02 statement, or throws a BankFileError saying why it cannot. */
export function readBankStatement(xml: string): BankStatementFile {
  if (xml.trim() === "") refuse("The statement file is empty.");
  if (/<!DOCTYPE/i.test(xml)) refuse("The statement file declares a DOCTYPE; bank statements have none.");
  const wellFormed = unreadable(() => XMLValidator.validate(xml));
  if (wellFormed !== true) {
    const { msg, line, col } = wellFormed.err;
    refuse(`The statement file is not well-formed XML (line ${line}, column ${col}: ${msg}).`);
  }
  const parsed = unreadable(() => parser.parse(xml) as Node);
  const rootName = Object.keys(parsed).find((k) => !k.startsWith("#") && !k.startsWith("@_"));
  const root = rootName ? asNode(parsed[rootName]) : null;
  if (!rootName || !root) refuse("The statement file has no root element.");
  const prefix = rootName.includes(":") ? rootName.slice(0, rootName.indexOf(":") + 1) : "";
  const namespace = root[`@_xmlns${prefix ? `:${prefix.slice(0, -1)}` : ""}`];
  if (rootName.slice(prefix.length) !== "Document" || namespace !== CAMT_053_001_02) {
    refuse(describeOther(rootName.slice(prefix.length), typeof namespace === "string" ? namespace : null));
  }
  const r = new Reader(prefix);
  const message = r.one(root, "BkToCstmrStmt");
  if (!message) refuse("The statement file has no BkToCstmrStmt element.");

  const read = new Statements(r);
  for (const stmt of r.all(message, "Stmt")) read.statement(stmt);
  if (read.statements.length === 0) refuse("The statement file holds no statement (Stmt).");
  return {
    messageId: r.text(message, "GrpHdr", "MsgId") ?? "",
    createdAt: r.text(message, "GrpHdr", "CreDtTm") ?? "",
    statements: read.statements,
    credits: read.credits,
    skipped: read.skipped,
  };
}

/**
 * Runs the XML library, turning what it throws into a refusal of the file like any other: it
 * refuses what it will not hold by throwing ("Maximum nested tags exceeded" past 100 levels, where
 * a statement has about 10), and an unexpected error there must not become a 500.
 */
function unreadable<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    refuse(`The statement file could not be read as XML (${why}); the file was not read.`);
  }
}

/** Collects the credits and skipped entries of a document's statements. */
class Statements {
  readonly statements: StatementSummary[] = [];
  readonly credits: StatementCredit[] = [];
  readonly skipped: SkippedEntry[] = [];
  /** How many credits with the same content came before, for keys without the bank's reference. */
  private readonly seenContent = new Map<string, number>();
  private readonly seenKeys = new Set<string>();

  constructor(private readonly r: Reader) {}

  statement(stmt: Node) {
    const r = this.r;
    const id = r.text(stmt, "Id") ?? "";
    const account = r.text(stmt, "Acct", "Id", "IBAN") ?? r.text(stmt, "Acct", "Id", "Othr", "Id") ?? "";
    const createdAt = r.text(stmt, "CreDtTm");
    const entries = r.all(stmt, "Ntry");
    this.statements.push({ id, account, createdAt, entries: entries.length });
    checkCreditTotals(r, stmt, entries, id);
    for (const entry of entries) this.entry(entry, { id, account, createdAt });
  }

  private entry(entry: Node, stmt: { id: string; account: string; createdAt: string | null }) {
    const r = this.r;
    const amount = r.text(entry, "Amt") ?? "";
    const ccy = r.one(entry, "Amt")?.["@_Ccy"];
    const currency = typeof ccy === "string" ? ccy : "";
    const creditDebit = r.text(entry, "CdtDbtInd");
    const status = r.text(entry, "Sts") ?? "";
    const accountServicerReference = r.text(entry, "AcctSvcrRef");
    const what = `entry ${accountServicerReference ?? r.text(entry, "NtryRef") ?? amount}`;
    if (creditDebit !== "CRDT" && creditDebit !== "DBIT") {
      refuse(`Statement ${stmt.id}: ${what} says neither credit nor debit (CdtDbtInd); the file was not read.`);
    }
    // A booked entry has a booking date; the value date or the statement's date stand in if a bank leaves it out.
    const bookingDate = date(r, entry, "BookgDt") ?? date(r, entry, "ValDt") ?? stmt.createdAt?.slice(0, 10) ?? null;
    const skip = (reason: SkipReason) =>
      this.skipped.push({
        reason,
        statementId: stmt.id,
        accountServicerReference,
        bookingDate,
        amount,
        currency,
        creditDebit,
        status,
      });
    if (creditDebit === "DBIT") return skip("debit");
    if (status !== "BOOK") return skip("not_booked");
    if (!isCurrency(currency)) return skip("unsupported_currency");
    if (!bookingDate) refuse(`Statement ${stmt.id}: credit ${what} has no booking date; the file was not read.`);

    const amountMinor = toMinor(amount, currency, `credit ${what}`);
    const details = r.all(entry, "NtryDtls", "TxDtls");
    const common = {
      statementId: stmt.id,
      account: stmt.account,
      accountServicerReference,
      entryReference: r.text(entry, "NtryRef"),
      bookingDate,
      valueDate: date(r, entry, "ValDt"),
      currency,
      additionalInformation: r.text(entry, "AddtlNtryInf"),
      bankTransactionCode: transactionCode(r, entry),
      reversal: ["true", "1"].includes(r.text(entry, "RvslInd") ?? ""),
    };
    const split = splitAmounts(r, details, currency, amountMinor, `credit ${what}`);
    const parts = split ? details.map((d, i) => ({ details: [d], amountMinor: split[i] })) : [{ details, amountMinor }];
    parts.forEach((part, i) => {
      const credit = { ...common, amountMinor: part.amountMinor, ...fromDetails(r, part.details) };
      const reference = [...credit.remittanceLines, ...credit.creditorReferences, credit.additionalInformation ?? ""]
        .filter((t) => t !== "").join(" ");
      const key = this.key(credit, split ? `/${i + 1}` : "");
      if (this.seenKeys.has(key)) {
        refuse(`Two credit entries carry the bank's reference ${accountServicerReference}; the file was not read.`);
      }
      this.seenKeys.add(key);
      // Not part of the key: keys of entries imported before stay what they were.
      const returned = returnedTransfer(r, part.details, credit.bankTransactionCode);
      this.credits.push({ key, ...credit, reference, entryAmountMinor: amountMinor, returned });
    });
  }

  /**
   * The bank's reference is unique to an entry; with the booking date in the key, a bank whose
   * references are unique only within a day is safe too. Without one: what the entry says (not
   * where: a statement re-sent under another Id keys the same), counted among identical entries.
   */
  private key(
    credit: Omit<StatementCredit, "key" | "reference" | "entryAmountMinor" | "returned">,
    position: string,
  ): string {
    const { account, bookingDate, accountServicerReference } = credit;
    if (accountServicerReference) return `${account}/${bookingDate}/${accountServicerReference}${position}`;
    const { statementId: _, ...said } = credit;
    const content = JSON.stringify([said, position]);
    const occurrence = (this.seenContent.get(content) ?? 0) + 1;
    this.seenContent.set(content, occurrence);
    return `${account}/${bookingDate}/sha256:${createHash("sha256").update(`${content}#${occurrence}`).digest("hex")}`;
  }
}

/** Element access by local name, in the document's own namespace prefix. */
class Reader {
  constructor(private readonly prefix: string) {}

  /** Every element at the end of the path, flattened (an element may occur once or many times). */
  all(node: Node, ...path: string[]): Node[] {
    let level: unknown[] = [node];
    for (const name of path) {
      level = level.flatMap((n) => {
        const value = asNode(n)?.[this.prefix + name];
        return value === undefined ? [] : Array.isArray(value) ? value : [value];
      });
    }
    return level.map((v) => (typeof v === "string" ? { "#text": v } : asNode(v) ?? {}));
  }

  one(node: Node, ...path: string[]): Node | undefined {
    return this.all(node, ...path)[0];
  }

  /** The text of the first element at the path, or null when it is absent or empty. */
  text(node: Node, ...path: string[]): string | null {
    const value = this.one(node, ...path)?.["#text"];
    return typeof value === "string" && value !== "" ? value : null;
  }

  texts(nodes: Node[], ...path: string[]): string[] {
    return nodes.flatMap((n) => this.all(n, ...path)).map((n) => n["#text"]).filter(
      (t): t is string => typeof t === "string" && t !== "",
    );
  }
}

function asNode(value: unknown): Node | null {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value as Node : null;
}

function refuse(message: string): never {
  throw new BankFileError([{ field: "file", message }]);
}

function describeOther(root: string, namespace: string | null): string {
  const expected = "The import reads bank statements in ISO 20022 camt.053.001.02 only";
  if (namespace?.startsWith(ISO_20022)) {
    return `${expected}; this file is ${namespace.slice(ISO_20022.length)}.`;
  }
  return `${expected}; this file is not one (its root element is ${root}${
    namespace ? ` in namespace ${namespace}` : " without a namespace"
  }).`;
}

/** A DateAndDateTimeChoice (Dt or DtTm) as YYYY-MM-DD. */
function date(r: Reader, entry: Node, name: string): string | null {
  const value = r.text(entry, name, "Dt") ?? r.text(entry, name, "DtTm");
  return value && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : null;
}

/**
 * A credit's amount (xs:decimal, up to 5 decimals) as integer minor units of the currency. Decimals
 * beyond the currency's must be zeros ("100.00000" EUR is 10000 cents); anything else, any amount
 * that is not a plain decimal, and zero (a credit of nothing cannot be booked: the ledger refuses a
 * zero transfer) refuse the file.
 */
function toMinor(text: string, currency: string, what: string): number {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  const digits = minorUnits(currency);
  const frac = m?.[2] ?? "";
  if (!m || /[1-9]/.test(frac.slice(digits))) {
    refuse(`The amount "${text}" ${currency} of ${what} is not an amount of ${currency}.`);
  }
  const minor = BigInt(m[1] + frac.slice(0, digits).padEnd(digits, "0"));
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) refuse(`The amount "${text}" ${currency} of ${what} is too large.`);
  if (minor === 0n) {
    refuse(
      `The amount "${text}" ${currency} of ${what} is zero: a credit must be more than zero; the file was not read.`,
    );
  }
  return Number(minor);
}

/** A decimal as a bigint scaled by 10^17 (a DecimalNumber's most decimals), for comparing totals exactly. */
function scaled(text: string): bigint | null {
  const m = /^(\d+)(?:\.(\d{1,17}))?$/.exec(text);
  if (!m) return null;
  const frac = (m[2] ?? "").padEnd(17, "0");
  return BigInt(m[1] + frac);
}

function checkCreditTotals(r: Reader, stmt: Node, entries: Node[], statementId: string) {
  const totals = r.one(stmt, "TxsSummry", "TtlCdtNtries");
  if (!totals) return;
  const credits = entries.filter((e) => r.text(e, "CdtDbtInd") === "CRDT");
  const count = r.text(totals, "NbOfNtries");
  if (count !== null && Number(count) !== credits.length) {
    refuse(
      `Statement ${statementId} says it has ${count} credit entries, but it holds ${credits.length}; the file was not read.`,
    );
  }
  const sum = r.text(totals, "Sum");
  if (sum !== null) {
    const read = credits.reduce((total, e) => total + (scaled(r.text(e, "Amt") ?? "") ?? 0n), 0n);
    if (scaled(sum) !== read) {
      refuse(
        `Statement ${statementId} says its credits add up to ${sum}, but its credit entries do not; the file was not read.`,
      );
    }
  }
}

/**
 * The amounts of a broken-down entry's transactions (TxDtls/AmtDtls/TxAmt), when there are several,
 * each is in the entry's currency, and they add up to the entry's amount; otherwise null.
 */
function splitAmounts(r: Reader, details: Node[], currency: string, total: number, entry: string): number[] | null {
  if (details.length < 2) return null;
  const amounts: number[] = [];
  for (const [i, d] of details.entries()) {
    const node = r.one(d, "AmtDtls", "TxAmt", "Amt");
    const text = r.text(d, "AmtDtls", "TxAmt", "Amt");
    if (!node || text === null || node["@_Ccy"] !== currency) return null;
    amounts.push(toMinor(text, currency, `transaction ${i + 1} of ${entry}`));
  }
  return amounts.reduce((a, b) => a + b, 0) === total ? amounts : null;
}

function fromDetails(r: Reader, details: Node[]) {
  const first = (...path: string[]) => r.texts(details, ...path)[0] ?? null;
  return {
    debtorName: first("RltdPties", "Dbtr", "Nm") ?? first("RltdPties", "UltmtDbtr", "Nm"),
    debtorAccount: first("RltdPties", "DbtrAcct", "Id", "IBAN") ?? first("RltdPties", "DbtrAcct", "Id", "Othr", "Id"),
    // "NOTPROVIDED" is what SEPA writes when the payer gave no end-to-end id.
    endToEndId: [first("Refs", "EndToEndId")].map((id) => (id === "NOTPROVIDED" ? null : id))[0],
    remittanceLines: r.texts(details, "RmtInf", "Ustrd"),
    creditorReferences: r.texts(details, "RmtInf", "Strd", "CdtrRefInf", "Ref"),
  };
}

/**
 * What the bank says of a credit that returns a transfer of ours: its return information
 * (ISO 20022 ReturnReasonInformation), or a transaction code of a return (PMNT/ICDT/RRTN for a
 * SEPA credit transfer returned; the sub-family RRTN in any family). Null for any other credit.
 */
function returnedTransfer(r: Reader, details: Node[], code: string | null): ReturnedTransfer | null {
  const info = details.flatMap((d) => r.all(d, "RtrInf"));
  const returnCode = code !== null && code.split("/")[2] === "RRTN";
  if (!info.length && !returnCode) return null;
  return {
    information: r.texts(info, "AddtlInf").join(" ") || null,
    reasonCode: r.texts(info, "Rsn", "Cd")[0] ?? r.texts(info, "Rsn", "Prtry")[0] ?? null,
  };
}

function transactionCode(r: Reader, entry: Node): string | null {
  const domain = r.text(entry, "BkTxCd", "Domn", "Cd");
  const family = r.text(entry, "BkTxCd", "Domn", "Fmly", "Cd");
  const subFamily = r.text(entry, "BkTxCd", "Domn", "Fmly", "SubFmlyCd");
  if (domain) return [domain, family, subFamily].filter(Boolean).join("/");
  return r.text(entry, "BkTxCd", "Prtry", "Cd");
}
