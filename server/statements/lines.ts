/**
 * A statement's lines, read from the ledger (decision 037). The balance a statement follows is what
 * the company owes the customer in a currency: their `balance` and `held` ledger accounts together
 * (server/ledger/ledger.ts). A payment's hold and release move money between the two, so they are
 * lines of amount zero that change the held part; the payment leaves the balance when it is sent.
 * Fees are lines of their own, split from the conversion, payment or refund that carried them
 * (the house's fee_income entry of the same transfer says how much). Every transfer's lines sum to
 * its entries on the customer's two accounts, so opening + lines = closing = the ledger's balance
 * at the closing moment (tests/integration/statements-reconcile.test.ts proves it).
 */
import type { Database } from "../../db/client.ts";
import { rowsOf } from "../../db/sql.ts";

/** What a line is, in the words the transactions list uses too (the ledger's transfer kinds, grouped). */
export const STATEMENT_LINE_KINDS = [
  "receipt",
  "conversion",
  "payment",
  "fee",
  "hold",
  "release",
  "refund",
  "correction",
] as const;
export type StatementLineKind = (typeof STATEMENT_LINE_KINDS)[number];

export interface StatementLine {
  /** The ledger transfer it comes from. */
  transferId: number;
  at: Date;
  kind: StatementLineKind;
  description: string;
  /** "1 GBP = 1.171200 EUR" on a conversion's lines (and a payment's in another currency); else null. */
  rate: string | null;
  /** Minor units, signed: what it changed the balance by. */
  amount: number;
  /** The balance after it, minor units. */
  balance: number;
  /** How much of the balance is held for payments after it, minor units. */
  held: number;
}

export interface StatementSection {
  currency: string;
  /** The balance (held part included) just before the period, and the held part of it. */
  opening: number;
  openingHeld: number;
  lines: StatementLine[];
  closing: number;
  closingHeld: number;
}

/** Where a statement starts and ends: [start, end). */
export interface StatementPeriod {
  start: Date;
  end: Date;
}

interface EntryRow {
  transfer_id: number;
  kind: string;
  description: string;
  reference: string | null;
  created_at: number;
  currency: string;
  purpose: string;
  customer: number;
  amount: number;
}

/** The currencies the account has ever held, in code order. */
export async function accountCurrencies(db: Database, accountId: number): Promise<string[]> {
  const rows = await rowsOf<{ currency: string }>(
    db,
    `SELECT DISTINCT currency FROM ledger_accounts WHERE kind = 'customer' AND account_id = ? ORDER BY currency`,
    [accountId],
  );
  return rows.map((row) => row.currency);
}

/** The account's balance and held part in `currency` from its entries before `before`. */
export async function ledgerBalanceAt(
  db: Database,
  accountId: number,
  currency: string,
  before: Date,
): Promise<{ balance: number; held: number }> {
  const rows = await rowsOf<{ purpose: string; total: number | null }>(
    db,
    `SELECT la.purpose AS purpose, SUM(e.amount) AS total FROM ledger_entries e
       JOIN ledger_accounts la ON la.id = e.ledger_account_id
      WHERE la.kind = 'customer' AND la.account_id = ? AND la.currency = ? AND e.created_at < ?
      GROUP BY la.purpose`,
    [accountId, currency, before.getTime()],
  );
  let balance = 0;
  let held = 0;
  for (const row of rows) {
    balance += Number(row.total ?? 0);
    if (row.purpose === "held") held += Number(row.total ?? 0);
  }
  return { balance, held };
}

interface Details {
  conversions: Map<number, { rate: string; sell: string; buy: string }>;
  payments: Map<number, { recipient: string; rate: string; sell: string; buy: string; reference: string }>;
  receipts: Map<number, { payer: string; reference: string }>;
}

const CHUNK = 500;

async function inChunks<T>(ids: number[], read: (placeholders: string, chunk: number[]) => Promise<T[]>) {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    out.push(...await read(chunk.map(() => "?").join(", "), chunk));
  }
  return out;
}

/** What the lines name besides the ledger: a conversion's rate, a payment's recipient, a receipt's payer. */
async function readDetails(db: Database, accountId: number, rows: EntryRow[]): Promise<Details> {
  const conversionTransfers = new Set<number>();
  const paymentIds = new Set<number>();
  const receiptTransfers = new Set<number>();
  for (const row of rows) {
    if (row.kind === "conversion") conversionTransfers.add(row.transfer_id);
    else if (row.kind.startsWith("payment_")) {
      const id = Number(/^payment:(\d+):/.exec(row.reference ?? "")?.[1]);
      if (Number.isSafeInteger(id)) paymentIds.add(id);
    } else if (["receipt", "allocation", "receipt_reversal"].includes(row.kind)) receiptTransfers.add(row.transfer_id);
  }
  const conversions = await inChunks(
    [...conversionTransfers],
    (marks, ids) =>
      rowsOf<{ transfer_id: number; rate: string; sell_currency: string; buy_currency: string }>(
        db,
        `SELECT transfer_id, rate, sell_currency, buy_currency FROM conversions WHERE account_id = ? AND transfer_id IN (${marks})`,
        [accountId, ...ids],
      ),
  );
  const payments = await inChunks(
    [...paymentIds],
    (marks, ids) =>
      rowsOf<
        { id: number; recipient: string; rate: string; sell_currency: string; buy_currency: string; reference: string }
      >(
        db,
        `SELECT id, recipient, rate, sell_currency, buy_currency, reference FROM payments WHERE account_id = ? AND id IN (${marks})`,
        [accountId, ...ids],
      ),
  );
  const receipts = await inChunks(
    [...receiptTransfers],
    (marks, ids) =>
      rowsOf<
        {
          transfer_id: number | null;
          allocation_transfer_id: number | null;
          reversal_transfer_id: number | null;
          payer_name: string;
          reference: string;
        }
      >(
        db,
        `SELECT transfer_id, allocation_transfer_id, reversal_transfer_id, payer_name, reference FROM receipts
          WHERE transfer_id IN (${marks}) OR allocation_transfer_id IN (${marks}) OR reversal_transfer_id IN (${marks})`,
        [...ids, ...ids, ...ids],
      ),
  );
  const details: Details = { conversions: new Map(), payments: new Map(), receipts: new Map() };
  for (const c of conversions) {
    details.conversions.set(Number(c.transfer_id), { rate: c.rate, sell: c.sell_currency, buy: c.buy_currency });
  }
  for (const p of payments) {
    let name = "a recipient";
    try {
      name = (JSON.parse(p.recipient) as { name?: string }).name ?? name;
    } catch { /* the name stays generic */ }
    details.payments.set(Number(p.id), {
      recipient: name,
      rate: p.rate,
      sell: p.sell_currency,
      buy: p.buy_currency,
      reference: p.reference,
    });
  }
  for (const r of receipts) {
    for (const id of [r.transfer_id, r.allocation_transfer_id, r.reversal_transfer_id]) {
      if (id !== null) details.receipts.set(Number(id), { payer: r.payer_name, reference: r.reference });
    }
  }
  return details;
}

/** One transfer's effect on one currency of the account. */
interface Movement {
  transferId: number;
  kind: string;
  description: string;
  reference: string | null;
  at: Date;
  currency: string;
  /** Change of the balance and held accounts together, and of the held one. */
  total: number;
  held: number;
  /** The house's fee_income entry in this currency (positive: a fee charged; negative: refunded). */
  feeIncome: number;
  /** Whether it has an entry on the customer's accounts in this currency (else it is no line). */
  touched: boolean;
}

type Part = Pick<StatementLine, "kind" | "description" | "rate" | "amount"> & { heldChange: number };

/** A movement as the lines a customer reads; their amounts sum to its total, their held changes to its held. */
function linesOf(m: Movement, details: Details): Part[] {
  const paymentId = Number(/^payment:(\d+):/.exec(m.reference ?? "")?.[1]);
  const payment = details.payments.get(paymentId);
  const paymentName = payment
    ? `Payment ${paymentId} to ${payment.recipient}${payment.reference ? ` (${payment.reference})` : ""}`
    : `Payment ${Number.isSafeInteger(paymentId) ? paymentId : ""}`.trim();
  const rateOf = (r: { rate: string; sell: string; buy: string } | undefined) =>
    r && r.sell !== r.buy ? `1 ${r.sell} = ${r.rate} ${r.buy}` : null;
  const receipt = details.receipts.get(m.transferId);
  const receiptName = receipt ? `from ${receipt.payer} (${receipt.reference})` : "";
  const fee = m.feeIncome; // charged > 0
  const main = (kind: StatementLineKind, description: string, rate: string | null = null): Part => ({
    kind,
    description,
    rate,
    amount: m.total,
    heldChange: m.held,
  });
  const withFee = (first: Part, feeDescription: string, feeFromHeld: boolean): Part[] => {
    if (fee === 0) return [first];
    const feeLine: Part = {
      kind: "fee",
      description: feeDescription,
      rate: null,
      amount: -fee,
      heldChange: feeFromHeld ? -fee : 0,
    };
    return [
      { ...first, amount: first.amount - feeLine.amount, heldChange: first.heldChange - feeLine.heldChange },
      feeLine,
    ];
  };
  switch (m.kind) {
    case "receipt":
    case "allocation":
      return [main("receipt", `Receipt ${receiptName}`.trim())];
    case "receipt_reversal":
      return [main("receipt", `Receipt reversed ${receiptName}: ${m.description}`.replace(" :", ":"))];
    case "conversion": {
      const conversion = details.conversions.get(m.transferId);
      const rate = rateOf(conversion);
      const description = conversion ? `Conversion ${conversion.sell} to ${conversion.buy}` : m.description;
      return withFee(main("conversion", description, rate), `Fee: ${description}`, false);
    }
    case "payment_hold":
      return [main("hold", `${paymentName}: held until sent`)];
    case "payment_release":
      return [main("release", `${paymentName}: released`)];
    case "payment_payout":
      return withFee(main("payment", `${paymentName}: sent`, rateOf(payment)), `Fee: ${paymentName}`, true);
    case "payment_refund":
      return withFee(
        main("refund", `${paymentName}: failed, money returned`, rateOf(payment)),
        `Fee returned: ${paymentName}`,
        false,
      );
    default:
      return [main("correction", m.description)];
  }
}

/** The movements of the account's balances in `currencies` within the period, in the order they happened. */
async function readMovements(
  db: Database,
  accountId: number,
  currencies: string[],
  period: StatementPeriod,
): Promise<{ movements: Movement[]; rows: EntryRow[] }> {
  if (currencies.length === 0) return { movements: [], rows: [] };
  const marks = currencies.map(() => "?").join(", ");
  // The customer's entries in the period, with the house's fee entries of the same transfers.
  const rows = await rowsOf<EntryRow>(
    db,
    `WITH moved AS (
       SELECT DISTINCT e.transfer_id FROM ledger_entries e
         JOIN ledger_accounts la ON la.id = e.ledger_account_id
        WHERE la.kind = 'customer' AND la.account_id = ? AND la.currency IN (${marks})
          AND e.created_at >= ? AND e.created_at < ?
     )
     SELECT t.id AS transfer_id, t.kind, t.description, t.reference, t.created_at, e.currency,
            la.purpose, (la.kind = 'customer') AS customer, e.amount
       FROM moved
       JOIN ledger_transfers t ON t.id = moved.transfer_id
       JOIN ledger_entries e ON e.transfer_id = t.id
       JOIN ledger_accounts la ON la.id = e.ledger_account_id
      WHERE (la.kind = 'customer' AND la.account_id = ?) OR la.purpose = 'fee_income'
      ORDER BY t.created_at, t.id, e.id`,
    [accountId, ...currencies, period.start.getTime(), period.end.getTime(), accountId],
  );
  const byKey = new Map<string, Movement>();
  const movements: Movement[] = [];
  for (const row of rows) {
    if (!currencies.includes(row.currency)) continue;
    const key = `${row.transfer_id}:${row.currency}`;
    let m = byKey.get(key);
    if (!m) {
      m = {
        transferId: Number(row.transfer_id),
        kind: row.kind,
        description: row.description,
        reference: row.reference,
        at: new Date(Number(row.created_at)),
        currency: row.currency,
        total: 0,
        held: 0,
        feeIncome: 0,
        touched: false,
      };
      byKey.set(key, m);
      movements.push(m);
    }
    const amount = Number(row.amount);
    if (Number(row.customer) === 1) {
      m.touched = true;
      m.total += amount;
      if (row.purpose === "held") m.held += amount;
    } else if (row.purpose === "fee_income") m.feeIncome += amount;
  }
  // A transfer that moved only the house's fees in this currency (another currency's movement) is no line.
  return { movements: movements.filter((m) => m.touched), rows };
}

/**
 * The statement's sections: one per currency asked for, or, for all currencies, one per currency
 * the account holds that had a balance or a movement in the period.
 */
export async function statementSections(
  db: Database,
  accountId: number,
  currency: string | null,
  period: StatementPeriod,
): Promise<StatementSection[]> {
  const held = await accountCurrencies(db, accountId);
  const currencies = currency === null ? held : [currency];
  const { movements, rows } = await readMovements(db, accountId, currencies, period);
  const details = await readDetails(db, accountId, rows);
  const sections: StatementSection[] = [];
  for (const code of currencies) {
    const opening = await ledgerBalanceAt(db, accountId, code, period.start);
    let balance = opening.balance;
    let heldNow = opening.held;
    const lines: StatementLine[] = [];
    for (const m of movements) {
      if (m.currency !== code) continue;
      for (const part of linesOf(m, details)) {
        balance += part.amount;
        heldNow += part.heldChange;
        lines.push({
          transferId: m.transferId,
          at: m.at,
          kind: part.kind,
          description: part.description,
          rate: part.rate,
          amount: part.amount,
          balance,
          held: heldNow,
        });
      }
    }
    if (currency === null && lines.length === 0 && opening.balance === 0) continue;
    sections.push({
      currency: code,
      opening: opening.balance,
      openingHeld: opening.held,
      lines,
      closing: balance,
      closingHeld: heldNow,
    });
  }
  return sections;
}
