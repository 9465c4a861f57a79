/**
 * The business movements of money. Each is ONE database transaction (or one savepoint inside the
 * caller's transaction, when given a `tx`): either every entry and balance is written, or nothing.
 * Amounts are integers of minor units; currencies are ISO 4217 codes. Sign convention and rules:
 * ledger.ts.
 */
import { and, asc, eq } from "drizzle-orm";
import { ledgerAccounts } from "../../db/schema-money.ts";
import {
  assertCurrency,
  assertPositiveAmount,
  assertReference,
  customerAccount,
  type EntryInput,
  type Executor,
  houseAccount,
  inTransaction,
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
    return postTransfer(tx, {
      kind: "receipt",
      description: input.description ?? (input.accountId === null ? `Receipt (unallocated)` : `Receipt`),
      reference: input.reference,
      createdBy: input.createdBy,
      entries: [
        { ledgerAccountId: incoming.id, amount: -input.amount },
        { ledgerAccountId: target.id, amount: input.amount },
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
    return postTransfer(tx, {
      kind: "allocation",
      description: input.description ?? "Receipt allocated",
      reference: input.reference,
      createdBy: input.createdBy,
      entries: [
        { ledgerAccountId: unallocated.id, amount: -input.amount },
        { ledgerAccountId: customer.id, amount: input.amount },
      ],
    });
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

export interface Balance {
  currency: string;
  /** What the customer can spend now, minor units. */
  available: number;
  /**
   * Reserved for payments not yet paid out. Always 0 for now: no movement holds money yet. When
   * payments come, a hold is a transfer from the "balance" to a customer "held" ledger account
   * (a new purpose), and this is that account's balance.
   */
  held: number;
}

/** The customer account's balances, one per currency it ever held, by currency code. */
export async function balancesOf(db: Executor, accountId: number): Promise<Balance[]> {
  const rows = await db.select({ currency: ledgerAccounts.currency, balance: ledgerAccounts.balance })
    .from(ledgerAccounts)
    .where(
      and(
        eq(ledgerAccounts.kind, "customer"),
        eq(ledgerAccounts.accountId, accountId),
        eq(ledgerAccounts.purpose, "balance"),
      ),
    )
    .orderBy(asc(ledgerAccounts.currency));
  return rows.map((r) => ({ currency: r.currency, available: r.balance, held: 0 }));
}
