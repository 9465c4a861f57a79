/**
 * The business movements of money. Each is ONE database transaction (or one savepoint inside the
 * caller's transaction, when given a `tx`): either every entry and balance is written, or nothing.
 * Amounts are integers of minor units; currencies are ISO 4217 codes. Sign convention and rules:
 * ledger.ts.
 */
import { rowsOf } from "../../db/sql.ts";
import { markFunded } from "../partners/funded.ts";
import {
  assertCurrency,
  assertPositiveAmount,
  assertReference,
  customerAccount,
  type EntryInput,
  type Executor,
  houseAccount,
  inTransaction,
  type LedgerAccountKey,
  ledgerAccountsFor,
  LedgerError,
  type PostedTransfer,
  postTransfer,
} from "./ledger.ts";

export interface ReceiptInput {
  /** The account whose account_ref the payment quoted; null when it matched none. */
  accountId: number | null;
  currency: string;
  /** Minor units, > 0. */
  amount: number;
  /** The receipt's id (or the bank's reference): recording the same receipt twice books it once. */
  reference: string;
  createdBy?: number | null;
  description?: string;
}

/**
 * Money received by bank transfer: incoming_funds −amount; the customer's balance +amount, or the
 * house's unallocated_funds +amount when it matched no account (allocateReceipt moves it later).
 */
export async function creditReceipt(db: Executor, input: ReceiptInput): Promise<PostedTransfer> {
  assertCurrency(input.currency);
  assertPositiveAmount(input.amount);
  assertReference(input.reference);
  return await inTransaction(db, async (tx) => {
    const incoming = await houseAccount(tx, "incoming_funds", input.currency);
    const target = input.accountId === null
      ? await houseAccount(tx, "unallocated_funds", input.currency)
      : await customerAccount(tx, input.accountId, input.currency);
    const posted = await postTransfer(tx, {
      kind: "receipt",
      description: input.description ?? (input.accountId === null ? `Receipt (unallocated)` : `Receipt`),
      reference: input.reference,
      createdBy: input.createdBy,
      entries: [
        { ledgerAccountId: incoming.id, amount: -input.amount },
        { ledgerAccountId: target.id, amount: input.amount },
      ],
    });
    // Funded in the receipt's own transaction (decision 055); not on a replay: nothing moved.
    if (input.accountId !== null && !posted.replayed) await markFunded(tx, input.accountId, posted.transferId);
    return posted;
  });
}

export interface ReceiptReversalInput {
  /** The account the receipt credited; null when it waits on the unallocated funds. */
  accountId: number | null;
  currency: string;
  amount: number;
  /** The receipt reversed: a receipt is reversed once. */
  reference: string;
  createdBy?: number | null;
  description: string;
}

/**
 * A receipt taken back: the customer's balance (or the house's unallocated_funds) −amount,
 * incoming_funds +amount. Refused with InsufficientFunds when the money has moved on.
 */
export async function reverseReceipt(db: Executor, input: ReceiptReversalInput): Promise<PostedTransfer> {
  assertCurrency(input.currency);
  assertPositiveAmount(input.amount);
  assertReference(input.reference);
  return await inTransaction(db, async (tx) => {
    const incoming = await houseAccount(tx, "incoming_funds", input.currency);
    const source = input.accountId === null
      ? await houseAccount(tx, "unallocated_funds", input.currency)
      : await customerAccount(tx, input.accountId, input.currency);
    return postTransfer(tx, {
      kind: "receipt_reversal",
      description: input.description,
      reference: input.reference,
      createdBy: input.createdBy,
      entries: [
        { ledgerAccountId: source.id, amount: -input.amount },
        { ledgerAccountId: incoming.id, amount: input.amount },
      ],
    });
  });
}

export interface AllocationInput {
  currency: string;
  amount: number;
  toAccountId: number;
  /** The receipt being allocated: a receipt is allocated once. */
  reference: string;
  createdBy?: number | null;
  description?: string;
}

/** Unallocated money handed to its customer: unallocated_funds −amount, customer +amount. */
export async function allocateReceipt(db: Executor, input: AllocationInput): Promise<PostedTransfer> {
  assertCurrency(input.currency);
  assertPositiveAmount(input.amount);
  assertReference(input.reference);
  return await inTransaction(db, async (tx) => {
    const unallocated = await houseAccount(tx, "unallocated_funds", input.currency);
    const customer = await customerAccount(tx, input.toAccountId, input.currency);
    const posted = await postTransfer(tx, {
      kind: "allocation",
      description: input.description ?? "Receipt allocated",
      reference: input.reference,
      createdBy: input.createdBy,
      entries: [
        { ledgerAccountId: unallocated.id, amount: -input.amount },
        { ledgerAccountId: customer.id, amount: input.amount },
      ],
    });
    if (!posted.replayed) await markFunded(tx, input.toAccountId, posted.transferId);
    return posted;
  });
}

export interface ConversionInput {
  accountId: number;
  sellCurrency: string;
  /** What leaves the customer's sell balance, fee included. */
  sellAmount: number;
  buyCurrency: string;
  /** What arrives on the customer's buy balance. */
  buyAmount: number;
  /** In the sell currency, part of sellAmount; 0 ≤ fee < sellAmount. */
  feeAmount: number;
  /** The conversion's id or Idempotency-Key: the same reference again books it once. */
  reference: string;
  createdBy?: number | null;
  description?: string;
}

/**
 * A conversion, in one transaction: customer sell balance −sellAmount; fee_income(sell) +fee;
 * fx_position(sell) +(sellAmount − fee); fx_position(buy) −buyAmount; customer buy balance
 * +buyAmount. Each currency sums to zero. Refused with InsufficientFunds when the sell balance is
 * short; idempotent by reference (`replayed: true` the second time).
 */
export async function convert(db: Executor, input: ConversionInput): Promise<PostedTransfer> {
  assertCurrency(input.sellCurrency);
  assertCurrency(input.buyCurrency);
  if (input.sellCurrency === input.buyCurrency) {
    throw new LedgerError("invalid_transfer", "A conversion sells one currency and buys another.");
  }
  assertPositiveAmount(input.sellAmount, "The sell amount");
  assertPositiveAmount(input.buyAmount, "The buy amount");
  if (!Number.isSafeInteger(input.feeAmount) || input.feeAmount < 0 || input.feeAmount >= input.sellAmount) {
    throw new LedgerError(
      "invalid_transfer",
      `The fee is a whole number of minor units from 0 to below the sell amount, got ${input.feeAmount}.`,
    );
  }
  assertReference(input.reference);
  return await inTransaction(db, async (tx) => {
    const accounts = await ledgerAccountsFor(tx, [
      { accountId: input.accountId, currency: input.sellCurrency },
      { accountId: input.accountId, currency: input.buyCurrency },
      { purpose: "fx_position", currency: input.sellCurrency },
      { purpose: "fx_position", currency: input.buyCurrency },
      ...(input.feeAmount > 0 ? [{ purpose: "fee_income" as const, currency: input.sellCurrency }] : []),
    ]);
    const [sell, buy, positionSell, positionBuy, fees] = accounts;
    const entries: EntryInput[] = [{ ledgerAccountId: sell.id, amount: -input.sellAmount }];
    if (input.feeAmount > 0) entries.push({ ledgerAccountId: fees.id, amount: input.feeAmount });
    entries.push(
      { ledgerAccountId: positionSell.id, amount: input.sellAmount - input.feeAmount },
      { ledgerAccountId: positionBuy.id, amount: -input.buyAmount },
      { ledgerAccountId: buy.id, amount: input.buyAmount },
    );
    return postTransfer(tx, {
      kind: "conversion",
      description: input.description ?? `Conversion ${input.sellCurrency} to ${input.buyCurrency}`,
      reference: input.reference,
      createdBy: input.createdBy,
      entries,
      accounts,
    });
  });
}

export interface CorrectionInput {
  /** Any balanced set of entries (sum zero per currency); balances that may not go negative stay ≥ 0. */
  entries: EntryInput[];
  /** Why: shown to whoever reads the ledger later. */
  description: string;
  /** The administrator making it. */
  createdBy: number;
  /** Optional; makes the correction idempotent like the other movements. */
  reference?: string | null;
}

/** An administrator's correction: new entries, never an edit of old ones. */
export async function correction(db: Executor, input: CorrectionInput): Promise<PostedTransfer> {
  if (!Number.isSafeInteger(input.createdBy)) {
    throw new LedgerError("invalid_transfer", "A correction names the administrator making it.");
  }
  return await inTransaction(db, (tx) =>
    postTransfer(tx, {
      kind: "correction",
      description: input.description,
      reference: input.reference,
      createdBy: input.createdBy,
      entries: input.entries,
    }));
}

export interface PaymentMoney {
  /** The payment's id: each step is booked once per payment (reference payment:<id>:<step>). */
  paymentId: number;
  accountId: number;
  sellCurrency: string;
  /** Everything the customer is debited, the transfer fee included. */
  sellAmount: number;
  /** The recipient's currency. */
  buyCurrency: string;
  /** What the recipient receives. */
  buyAmount: number;
  /** The transfer fee, in the sell currency, part of sellAmount; 0 ≤ fee < sellAmount. */
  feeAmount: number;
  createdBy?: number | null;
}

function assertPayment(p: PaymentMoney): void {
  if (!Number.isSafeInteger(p.paymentId) || p.paymentId <= 0) {
    throw new LedgerError("invalid_transfer", `A payment movement names its payment, got ${p.paymentId}.`);
  }
  assertCurrency(p.sellCurrency);
  assertCurrency(p.buyCurrency);
  assertPositiveAmount(p.sellAmount, "The amount debited");
  assertPositiveAmount(p.buyAmount, "The amount the recipient receives");
  if (!Number.isSafeInteger(p.feeAmount) || p.feeAmount < 0 || p.feeAmount >= p.sellAmount) {
    throw new LedgerError(
      "invalid_transfer",
      `The fee is a whole number of minor units from 0 to below the amount debited, got ${p.feeAmount}.`,
    );
  }
  if (p.sellCurrency === p.buyCurrency && p.sellAmount - p.feeAmount !== p.buyAmount) {
    throw new LedgerError(
      "invalid_transfer",
      "A payment in its own currency pays out what is debited less the fee.",
    );
  }
}

const paymentReference = (p: PaymentMoney, step: string) => `payment:${p.paymentId}:${step}`;

/**
 * A payment's money is reserved when it is made, whether or not it needs approval: the customer's
 * balance −sellAmount, their held balance +sellAmount. Refused with InsufficientFunds when the
 * balance is short.
 */
export async function holdPayment(db: Executor, p: PaymentMoney): Promise<PostedTransfer> {
  assertPayment(p);
  return await inTransaction(db, async (tx) => {
    const accounts = await ledgerAccountsFor(tx, [
      { accountId: p.accountId, currency: p.sellCurrency },
      { accountId: p.accountId, currency: p.sellCurrency, held: true },
    ]);
    const [balance, held] = accounts;
    return postTransfer(tx, {
      kind: "payment_hold",
      description: `Payment ${p.paymentId}: money held`,
      reference: paymentReference(p, "hold"),
      createdBy: p.createdBy,
      entries: [
        { ledgerAccountId: balance.id, amount: -p.sellAmount },
        { ledgerAccountId: held.id, amount: p.sellAmount },
      ],
      accounts,
    });
  });
}

/** A payment that will not be paid (rejected, cancelled, failed before it was sent): the hold returns. */
export async function releasePayment(db: Executor, p: PaymentMoney): Promise<PostedTransfer> {
  assertPayment(p);
  return await inTransaction(db, async (tx) => {
    const accounts = await ledgerAccountsFor(tx, [
      { accountId: p.accountId, currency: p.sellCurrency, held: true },
      { accountId: p.accountId, currency: p.sellCurrency },
    ]);
    const [held, balance] = accounts;
    return postTransfer(tx, {
      kind: "payment_release",
      description: `Payment ${p.paymentId}: held money released`,
      reference: paymentReference(p, "release"),
      createdBy: p.createdBy,
      entries: [
        { ledgerAccountId: held.id, amount: -p.sellAmount },
        { ledgerAccountId: balance.id, amount: p.sellAmount },
      ],
      accounts,
    });
  });
}

/** The entries of a payout, from the held balance (or, reversed for a refund, to the balance). */
function payoutEntries(
  p: PaymentMoney,
  accounts: {
    from: number;
    fees: number | null;
    positionSell: number | null;
    positionBuy: number | null;
    payouts: number;
  },
  sign: 1 | -1,
): EntryInput[] {
  const entries: EntryInput[] = [{ ledgerAccountId: accounts.from, amount: -sign * p.sellAmount }];
  if (p.feeAmount > 0) entries.push({ ledgerAccountId: accounts.fees!, amount: sign * p.feeAmount });
  if (p.sellCurrency !== p.buyCurrency) {
    entries.push(
      { ledgerAccountId: accounts.positionSell!, amount: sign * (p.sellAmount - p.feeAmount) },
      { ledgerAccountId: accounts.positionBuy!, amount: -sign * p.buyAmount },
    );
  }
  entries.push({ ledgerAccountId: accounts.payouts, amount: sign * p.buyAmount });
  // A refund debits the house first: put the entries that may be refused before the credit.
  return sign === 1 ? entries : [...entries.slice(1), entries[0]];
}

async function payoutAccounts(tx: Executor, p: PaymentMoney, from: "held" | "balance") {
  const converts = p.sellCurrency !== p.buyCurrency;
  const keys: LedgerAccountKey[] = [
    { accountId: p.accountId, currency: p.sellCurrency, held: from === "held" },
    { purpose: "payouts", currency: p.buyCurrency },
  ];
  if (p.feeAmount > 0) keys.push({ purpose: "fee_income", currency: p.sellCurrency });
  if (converts) {
    keys.push({ purpose: "fx_position", currency: p.sellCurrency }, {
      purpose: "fx_position",
      currency: p.buyCurrency,
    });
  }
  const accounts = await ledgerAccountsFor(tx, keys);
  const [customer, payouts, ...rest] = accounts;
  const fees = p.feeAmount > 0 ? rest.shift()!.id : null;
  const [positionSell, positionBuy] = converts ? [rest[0].id, rest[1].id] : [null, null];
  return { accounts, ids: { from: customer.id, fees, positionSell, positionBuy, payouts: payouts.id } };
}

/**
 * A payment sent to its rail: the held money leaves the customer; the fee is earned; a payment in
 * another currency is converted at its quoted rate (fx_position, as a conversion does); the house
 * now owes the recipient buyAmount (payouts) until the bank settles it.
 */
export async function payoutPayment(db: Executor, p: PaymentMoney): Promise<PostedTransfer> {
  assertPayment(p);
  return await inTransaction(db, async (tx) => {
    const { accounts, ids } = await payoutAccounts(tx, p, "held");
    return postTransfer(tx, {
      kind: "payment_payout",
      description: `Payment ${p.paymentId}: sent`,
      reference: paymentReference(p, "payout"),
      createdBy: p.createdBy,
      entries: payoutEntries(p, ids, 1),
      accounts,
    });
  });
}

/** The bank paid the recipient: what the house owed them leaves its bank account. */
export async function settlePayment(db: Executor, p: PaymentMoney): Promise<PostedTransfer> {
  assertPayment(p);
  return await inTransaction(db, async (tx) => {
    const accounts = await ledgerAccountsFor(tx, [
      { purpose: "payouts", currency: p.buyCurrency },
      { purpose: "incoming_funds", currency: p.buyCurrency },
    ]);
    const [payouts, bank] = accounts;
    return postTransfer(tx, {
      kind: "payment_settlement",
      description: `Payment ${p.paymentId}: arrived`,
      reference: paymentReference(p, "settlement"),
      createdBy: p.createdBy,
      entries: [
        { ledgerAccountId: payouts.id, amount: -p.buyAmount },
        { ledgerAccountId: bank.id, amount: p.buyAmount },
      ],
      accounts,
    });
  });
}

/**
 * A payout that failed after it was sent: the exact reversal of its payout, to the customer's
 * balance. The customer gets back everything they were debited, the fee included.
 */
export async function refundPayment(db: Executor, p: PaymentMoney): Promise<PostedTransfer> {
  assertPayment(p);
  return await inTransaction(db, async (tx) => {
    const { accounts, ids } = await payoutAccounts(tx, p, "balance");
    return postTransfer(tx, {
      kind: "payment_refund",
      description: `Payment ${p.paymentId}: failed, money returned`,
      reference: paymentReference(p, "refund"),
      createdBy: p.createdBy,
      entries: payoutEntries(p, ids, -1),
      accounts,
    });
  });
}

export interface Balance {
  currency: string;
  /** What the customer can spend now, minor units. */
  available: number;
  /** Reserved for payments not yet paid out: the held ledger account's balance. */
  held: number;
}

const BALANCES = `SELECT currency, purpose, balance FROM ledger_accounts
  WHERE kind = 'customer' AND account_id = ? ORDER BY currency`;

/** The customer account's balances, one per currency it ever held, by currency code. */
export async function balancesOf(db: Executor, accountId: number): Promise<Balance[]> {
  // Fixed SQL (db/sql.ts): every signed-in page about money reads it.
  const rows = await rowsOf<{ currency: string; purpose: string; balance: number }>(db, BALANCES, [accountId]);
  const byCurrency = new Map<string, Balance>();
  for (const row of rows) {
    const b = byCurrency.get(row.currency) ?? { currency: row.currency, available: 0, held: 0 };
    if (row.purpose === "held") b.held = row.balance;
    else b.available = row.balance;
    byCurrency.set(row.currency, b);
  }
  return [...byCurrency.values()];
}
