/**
 * The double-entry ledger (DESIGN.md section 4): the one place where balances change.
 *
 * ## Model
 * - A *ledger account* (`ledger_accounts`) is one balance in one currency: a customer's
 *   (`kind` customer, one per account, currency and purpose: `balance`, what they can spend, and
 *   `held`, what their payments reserve until paid out) or one of the house's (`kind` house, one
 *   per purpose and currency): `incoming_funds` (the mirror of money in the portal's bank
 *   accounts), `unallocated_funds` (received, matching no account_ref yet), `fee_income`,
 *   `fx_position` (what conversions left the house holding or owing) and `payouts` (what the house
 *   owes recipients for payouts sent and not yet settled).
 * - A *transfer* (`ledger_transfers`) is one movement: a receipt, an allocation, a conversion, a
 *   payment's hold, release, payout, settlement or refund, or an administrator's correction. Its
 *   *entries* (`ledger_entries`) say how much each ledger account changes.
 *
 * ## Sign convention
 * An entry's `amount` is an integer of minor units, never zero, and signed from the account
 * holder's point of view: **positive credits the ledger account (its balance goes up), negative
 * debits it (its balance goes down)**. A customer's balance is what the portal owes the customer,
 * i.e. what they can spend. So a receipt of 100.00 GBP is `incoming_funds −10000`,
 * `customer +10000`: the house account mirrors the cash as a negative number, and every currency's
 * balances sum to zero over the whole ledger.
 *
 * ## Rules (held here, verified by check.ts, backed by the database where it can)
 * 1. One movement = one database transaction: the transfer, its entries and the balances commit
 *    together or not at all. `postTransfer` only takes a transaction (`LedgerTx`); the movements in
 *    movements.ts open one (or a savepoint inside the caller's transaction).
 * 2. A transfer has at least two entries and they sum to zero in each currency (the currency of an
 *    entry is its ledger account's; a trigger refuses an entry in another currency).
 * 3. Only `fx_position` and `incoming_funds` may go below zero (`MAY_GO_NEGATIVE`). Customer
 *    balances, `unallocated_funds` and `fee_income` never do: each balance moves with a conditional
 *    UPDATE (`balance = balance + ? WHERE ... AND balance + ? >= 0`), so two concurrent debits can
 *    never both pass, even from two processes; a refused debit throws `InsufficientFunds` and the
 *    whole transaction rolls back. A CHECK constraint on the table is the last line of defence.
 * 4. Entries and transfers are never changed or deleted (triggers RAISE(ABORT)); a correction is a
 *    new transfer of kind `correction`.
 * 5. `ledger_accounts.balance` is updated in the same transaction as the entries, so it always
 *    equals the sum of its entries.
 * 6. A reference is unique per transfer kind: posting the same kind and reference again returns the
 *    first transfer (`replayed: true`) if its entries are the same, or throws `ReferenceConflict`.
 *    That makes a movement idempotent on its own (a conversion id, an Idempotency-Key), beside the
 *    HTTP layer's Idempotency-Key replay (server/http/idempotency.ts).
 *
 * Writes go through the transaction (`tx`), never the client: docs/decisions/012.
 */
import type { InArgs } from "@libsql/client";
import type { Database } from "../../db/client.ts";
import { columnList, fromColumns, isTransaction, rowOf, rowsOf, run, type Tx, withSavepoint } from "../../db/sql.ts";
import {
  CUSTOMER_PURPOSES,
  type CustomerPurpose,
  HOUSE_PURPOSES,
  type HousePurpose,
  LEDGER_TRANSFER_KINDS,
  ledgerAccounts,
  type LedgerTransferKind,
  MAY_GO_NEGATIVE,
} from "../../db/schema-money.ts";

/** A transaction of the portal database (what `db.transaction` hands its callback). */
export type LedgerTx = Tx;
/** The database, or a transaction on it. */
export type Executor = Database | LedgerTx;
export type LedgerAccount = typeof ledgerAccounts.$inferSelect;

export interface EntryInput {
  ledgerAccountId: number;
  /** Minor units; positive credits the ledger account, negative debits it; never zero. */
  amount: number;
}

export interface TransferInput {
  kind: LedgerTransferKind;
  description: string;
  /** Unique per kind; the same kind and reference again replays the first transfer. */
  reference?: string | null;
  /** users.id of whoever made the movement (an administrator, or the customer's user). */
  createdBy?: number | null;
  entries: EntryInput[];
  /**
   * The entries' ledger accounts, when the caller has just read them in this transaction
   * (`ledgerAccountsFor`): they are not read again. Any entry's account missing here is read.
   */
  accounts?: LedgerAccount[];
}

export interface PostedTransfer {
  transferId: number;
  /** True when the reference had already been posted: nothing was written this time. */
  replayed: boolean;
}

export type LedgerErrorCode =
  | "invalid_transfer"
  | "unbalanced_transfer"
  | "unknown_account"
  | "insufficient_funds"
  | "reference_conflict"
  | "balance_out_of_range";

/** Anything the ledger refuses. Nothing was written when one is thrown (the transaction rolls back). */
export class LedgerError extends Error {
  constructor(readonly code: LedgerErrorCode, message: string) {
    super(message);
    this.name = "LedgerError";
  }
}

/** A debit larger than a balance that may not go below zero. Amounts in minor units. */
export class InsufficientFunds extends LedgerError {
  readonly currency: string;
  readonly ledgerAccountId: number;
  /** accounts.id for a customer balance; null for a house account. */
  readonly accountId: number | null;
  readonly purpose: string;
  /** The balance at the time of the debit. */
  readonly available: number;
  /** The debit asked for (positive). */
  readonly required: number;
  /** required − available. */
  readonly shortfall: number;

  constructor(
    account: Pick<LedgerAccount, "id" | "accountId" | "currency" | "purpose">,
    available: number,
    required: number,
  ) {
    const whose = account.purpose === "balance"
      ? `the ${account.currency} balance`
      : account.purpose === "held"
      ? `the ${account.currency} held balance`
      : `the house's ${account.purpose} in ${account.currency}`;
    super(
      "insufficient_funds",
      `Insufficient funds: ${whose} is ${available} and ${required} is needed, ${
        required - available
      } short (minor units).`,
    );
    this.name = "InsufficientFunds";
    this.currency = account.currency;
    this.ledgerAccountId = account.id;
    this.accountId = account.accountId;
    this.purpose = account.purpose;
    this.available = available;
    this.required = required;
    this.shortfall = required - available;
  }
}

/**
 * A movement that would take a balance beyond Number.MAX_SAFE_INTEGER minor units, where its
 * integers stop being exact. Refused in the balance's conditional UPDATE, so that two movements at
 * once cannot both pass; the caller says which of its inputs was too large.
 */
export class BalanceOutOfRange extends LedgerError {
  readonly currency: string;
  /** The entry that did not fit (minor units, signed). */
  readonly amount: number;
  readonly purpose: string;
  /** accounts.id for a customer balance; null for a house account. */
  readonly accountId: number | null;

  constructor(account: Pick<LedgerAccount, "id" | "accountId" | "currency" | "purpose">, amount: number) {
    super("balance_out_of_range", `Ledger account ${account.id} would leave the range of safe integers.`);
    this.name = "BalanceOutOfRange";
    this.currency = account.currency;
    this.amount = amount;
    this.purpose = account.purpose;
    this.accountId = account.accountId;
  }
}

/** The reference was already posted, with other entries: a different movement reused it. */
export class ReferenceConflict extends LedgerError {
  constructor(readonly kind: LedgerTransferKind, readonly reference: string, readonly transferId: number) {
    super(
      "reference_conflict",
      `The ${kind} reference "${reference}" was already used (transfer ${transferId}) for a different movement.`,
    );
    this.name = "ReferenceConflict";
  }
}

const CURRENCY = /^[A-Z]{3}$/;

export function assertCurrency(currency: string): void {
  if (typeof currency !== "string" || !CURRENCY.test(currency)) {
    throw new LedgerError(
      "invalid_transfer",
      `A currency is a three-letter upper-case ISO 4217 code, got "${currency}".`,
    );
  }
}

/** A positive safe integer of minor units. */
export function assertPositiveAmount(amount: number, what = "An amount"): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    throw new LedgerError("invalid_transfer", `${what} is a positive whole number of minor units, got ${amount}.`);
  }
}

export function assertReference(reference: string): void {
  if (typeof reference !== "string" || reference.length < 1 || reference.length > 255) {
    throw new LedgerError("invalid_transfer", "A reference is 1 to 255 characters.");
  }
}

// The ledger's statements are fixed SQL (db/sql.ts says why): a conversion runs them on every
// request, and the local client prepares each text once per connection.
const ACCOUNT_COLUMNS = columnList(ledgerAccounts);
const MAY_GO_NEGATIVE_SQL = `purpose IN (${MAY_GO_NEGATIVE.map((p) => `'${p}'`).join(", ")})`;
type SqlRow = Record<string, unknown>;
const toLedgerAccount = (row: SqlRow): LedgerAccount => fromColumns(ledgerAccounts, row);

async function findOrCreate(
  tx: Executor,
  find: { sql: string; args: InArgs },
  create: { sql: string; args: InArgs },
  beforeCreate?: () => Promise<void>,
): Promise<LedgerAccount> {
  const found = await rowOf<SqlRow>(tx, find.sql, find.args);
  if (found) return toLedgerAccount(found);
  await beforeCreate?.();
  // Race-safe get-or-create: whoever inserts first wins, everyone reads the same row.
  await run(tx, create.sql, create.args);
  const created = await rowOf<SqlRow>(tx, find.sql, find.args);
  return toLedgerAccount(created!);
}

/**
 * The customer's balance in a currency ("balance", what they can spend, or "held", what payments
 * reserve), created (at zero) the first time it is asked for.
 */
export async function customerAccount(
  tx: Executor,
  accountId: number,
  currency: string,
  purpose: CustomerPurpose = "balance",
): Promise<LedgerAccount> {
  assertCurrency(currency);
  if (!Number.isSafeInteger(accountId)) throw new LedgerError("unknown_account", `There is no account ${accountId}.`);
  if (!CUSTOMER_PURPOSES.includes(purpose)) {
    throw new LedgerError("invalid_transfer", `Unknown customer account purpose "${purpose}".`);
  }
  return await findOrCreate(tx, {
    sql:
      `SELECT ${ACCOUNT_COLUMNS} FROM ledger_accounts WHERE kind = 'customer' AND account_id = ? AND currency = ? AND purpose = ?`,
    args: [accountId, currency, purpose],
  }, {
    sql: `INSERT INTO ledger_accounts (kind, account_id, currency, purpose, balance, created_at)
          VALUES ('customer', ?, ?, ?, 0, ?) ON CONFLICT DO NOTHING`,
    args: [accountId, currency, purpose, Date.now()],
  }, async () => {
    const owner = await rowOf(tx, "SELECT id FROM accounts WHERE id = ?", [accountId]);
    if (!owner) throw new LedgerError("unknown_account", `There is no account ${accountId}.`);
  });
}

/** One of the house's accounts in a currency, created (at zero) the first time it is asked for. */
export async function houseAccount(tx: Executor, purpose: HousePurpose, currency: string): Promise<LedgerAccount> {
  assertCurrency(currency);
  if (!HOUSE_PURPOSES.includes(purpose)) {
    throw new LedgerError("invalid_transfer", `Unknown house account purpose "${purpose}".`);
  }
  return await findOrCreate(tx, {
    sql:
      `SELECT ${ACCOUNT_COLUMNS} FROM ledger_accounts WHERE kind = 'house' AND account_id IS NULL AND currency = ? AND purpose = ?`,
    args: [currency, purpose],
  }, {
    sql: `INSERT INTO ledger_accounts (kind, account_id, currency, purpose, balance, created_at)
          VALUES ('house', NULL, ?, ?, 0, ?) ON CONFLICT DO NOTHING`,
    args: [currency, purpose, Date.now()],
  });
}

/** A customer's balance (or held balance) in a currency, or one of the house's accounts. */
export type LedgerAccountKey =
  | { accountId: number; currency: string; held?: boolean }
  | { purpose: HousePurpose; currency: string };

/**
 * Several ledger accounts in one read, in the order asked, each created (at zero) where it does
 * not exist yet: what a movement touching five accounts (a conversion) needs in one statement.
 */
export async function ledgerAccountsFor(tx: Executor, keys: LedgerAccountKey[]): Promise<LedgerAccount[]> {
  const clauses: string[] = [];
  const args: (string | number)[] = [];
  for (const key of keys) {
    assertCurrency(key.currency);
    if ("accountId" in key) {
      clauses.push("(kind = 'customer' AND account_id = ? AND currency = ? AND purpose = ?)");
      args.push(key.accountId, key.currency, key.held ? "held" : "balance");
    } else {
      clauses.push("(kind = 'house' AND account_id IS NULL AND currency = ? AND purpose = ?)");
      args.push(key.currency, key.purpose);
    }
  }
  const rows =
    (await rowsOf<SqlRow>(tx, `SELECT ${ACCOUNT_COLUMNS} FROM ledger_accounts WHERE ${clauses.join(" OR ")}`, args))
      .map(toLedgerAccount);
  const found: LedgerAccount[] = [];
  for (const key of keys) {
    const row = "accountId" in key
      ? rows.find((r) =>
        r.kind === "customer" && r.accountId === key.accountId && r.currency === key.currency &&
        r.purpose === (key.held ? "held" : "balance")
      )
      : rows.find((r) => r.kind === "house" && r.purpose === key.purpose && r.currency === key.currency);
    found.push(
      row ??
        ("accountId" in key
          ? await customerAccount(tx, key.accountId, key.currency, key.held ? "held" : "balance")
          : await houseAccount(tx, key.purpose, key.currency)),
    );
  }
  return found;
}

function validateShape(input: TransferInput): void {
  if (!LEDGER_TRANSFER_KINDS.includes(input.kind)) {
    throw new LedgerError("invalid_transfer", `Unknown transfer kind "${input.kind}".`);
  }
  if (typeof input.description !== "string" || !input.description.trim()) {
    throw new LedgerError("invalid_transfer", "A transfer needs a description.");
  }
  if (input.reference !== undefined && input.reference !== null) assertReference(input.reference);
  if (!Array.isArray(input.entries) || input.entries.length < 2) {
    throw new LedgerError("invalid_transfer", "A transfer has at least two entries.");
  }
  for (const entry of input.entries) {
    if (!Number.isSafeInteger(entry.ledgerAccountId) || entry.ledgerAccountId <= 0) {
      throw new LedgerError(
        "invalid_transfer",
        `An entry names a ledger account by its id, got ${entry.ledgerAccountId}.`,
      );
    }
    if (!Number.isSafeInteger(entry.amount) || entry.amount === 0) {
      throw new LedgerError(
        "invalid_transfer",
        `An entry's amount is a non-zero whole number of minor units, got ${entry.amount}.`,
      );
    }
  }
}

const entryKey = (e: EntryInput) => `${e.ledgerAccountId}:${e.amount}`;
const sameEntries = (a: EntryInput[], b: EntryInput[]) =>
  a.length === b.length && a.map(entryKey).sort().join(",") === b.map(entryKey).sort().join(",");

const placeholders = (n: number, each = "?") => Array.from({ length: n }, () => each).join(", ");

/**
 * Moves one balance. Conditional, so that two concurrent debits can never both pass: the balance
 * stays ≥ 0 unless its purpose may go negative, and within the safe integers. The amount is bound
 * as a BigInt so that SQLite adds integers (a JS number is bound as a REAL).
 */
const MOVE_BALANCE = `UPDATE ledger_accounts SET balance = balance + ?1
  WHERE id = ?2 AND (${MAY_GO_NEGATIVE_SQL} OR balance + ?1 >= 0) AND abs(balance + ?1) <= ${Number.MAX_SAFE_INTEGER}`;

/**
 * Writes one transfer inside the caller's transaction: validates it (at least two non-zero integer
 * entries, summing to zero in each currency), moves each balance with a conditional UPDATE and
 * writes the entries, in the order given (put the debit that may be refused first). Throws
 * `LedgerError` (`InsufficientFunds`, `ReferenceConflict`...) and leaves the rollback to the
 * transaction, so nothing partial survives.
 */
export async function postTransfer(tx: LedgerTx, input: TransferInput): Promise<PostedTransfer> {
  validateShape(input);
  const reference = input.reference ?? null;

  const byId = new Map((input.accounts ?? []).map((a) => [a.id, a]));
  const unread = [...new Set(input.entries.map((e) => e.ledgerAccountId))].filter((id) => !byId.has(id));
  if (unread.length) {
    const rows = await rowsOf<SqlRow>(
      tx,
      `SELECT ${ACCOUNT_COLUMNS} FROM ledger_accounts WHERE id IN (${placeholders(unread.length)})`,
      unread,
    );
    for (const row of rows.map(toLedgerAccount)) byId.set(row.id, row);
  }
  const sums = new Map<string, bigint>();
  for (const entry of input.entries) {
    const account = byId.get(entry.ledgerAccountId);
    if (!account) throw new LedgerError("unknown_account", `There is no ledger account ${entry.ledgerAccountId}.`);
    sums.set(account.currency, (sums.get(account.currency) ?? 0n) + BigInt(entry.amount));
  }
  const unbalanced = [...sums].filter(([, sum]) => sum !== 0n);
  if (unbalanced.length) {
    throw new LedgerError(
      "unbalanced_transfer",
      `A transfer's entries sum to zero in each currency; these do not: ${
        unbalanced.map(([c, s]) => `${c} ${s}`).join(", ")
      }.`,
    );
  }

  const now = Date.now();
  // The unique (kind, reference) index decides whether this reference was posted before: then
  // nothing is inserted and the first transfer is replayed, or refused if its entries differ.
  const transfer = await rowOf<{ id: number }>(
    tx,
    `INSERT INTO ledger_transfers (kind, description, reference, created_at, created_by) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT DO NOTHING RETURNING id`,
    [input.kind, input.description.trim(), reference, now, input.createdBy ?? null],
  );
  if (!transfer) {
    // Nothing was inserted, so a transfer of this kind and reference exists.
    const previous =
      (await rowOf<{ id: number }>(tx, "SELECT id FROM ledger_transfers WHERE kind = ? AND reference = ?", [
        input.kind,
        reference,
      ]))!;
    const posted = await rowsOf<{ ledger_account_id: number; amount: number }>(
      tx,
      "SELECT ledger_account_id, amount FROM ledger_entries WHERE transfer_id = ?",
      [previous.id],
    );
    const postedEntries = posted.map((e) => ({ ledgerAccountId: e.ledger_account_id, amount: e.amount }));
    if (!sameEntries(postedEntries, input.entries)) throw new ReferenceConflict(input.kind, reference!, previous.id);
    return { transferId: previous.id, replayed: true };
  }

  for (const entry of input.entries) {
    const account = byId.get(entry.ledgerAccountId)!;
    const moved = await run(tx, MOVE_BALANCE, [BigInt(entry.amount), account.id]);
    if (moved === 0) {
      const current =
        (await rowOf<{ balance: number }>(tx, "SELECT balance FROM ledger_accounts WHERE id = ?", [account.id]))!;
      if (!MAY_GO_NEGATIVE.includes(account.purpose) && current.balance + entry.amount < 0) {
        throw new InsufficientFunds(account, current.balance, -entry.amount);
      }
      throw new BalanceOutOfRange(account, entry.amount);
    }
  }
  await run(
    tx,
    `INSERT INTO ledger_entries (transfer_id, ledger_account_id, currency, amount, created_at) VALUES ${
      placeholders(input.entries.length, "(?, ?, ?, ?, ?)")
    }`,
    input.entries.flatMap((
      entry,
    ) => [transfer.id, entry.ledgerAccountId, byId.get(entry.ledgerAccountId)!.currency, entry.amount, now]),
  );
  return { transferId: transfer.id, replayed: false };
}

/**
 * Runs `work` in one transaction: a new one on the database, or a savepoint inside the caller's
 * transaction (so a caller can add its own rows, e.g. a conversion record, to the same commit).
 */
export function inTransaction<T>(executor: Executor, work: (tx: LedgerTx) => Promise<T>): Promise<T> {
  return isTransaction(executor) ? withSavepoint(executor, "movement", work) : executor.transaction(work);
}
