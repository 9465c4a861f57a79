/**
 * The money tables (DESIGN.md section 4): currencies and rates, pricing plans, the double-entry
 * ledger, receipts and conversions. Kept apart from db/schema.ts, which holds people and sign-in.
 */
import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { RECEIPT_STATUSES, UNBOOKED_RECEIPT_STATUSES } from "../lib/money/receipts.ts";
import { accounts, users } from "./schema.ts";
import { payments } from "./schema-payments.ts";

const time = (name: string) => integer(name, { mode: "timestamp_ms" });

// ---------------------------------------------------------------------------------------------
// The double-entry ledger (server/ledger/ledger.ts explains the rules and the sign convention).
// Amounts are integers of the currency's minor unit. An entry's amount is signed: positive credits
// the ledger account (its balance goes up), negative debits it. The entries of one transfer sum to
// zero in each currency, so every currency's balances sum to zero over the whole ledger.
// Immutability (no UPDATE or DELETE of entries and transfers) is enforced by triggers written in the
// custom migration `ledger_immutable`; `deno task ledger:check` verifies everything.
// ---------------------------------------------------------------------------------------------

/** Who a ledger account belongs to: a customer account, or the house (the portal itself). */
export const LEDGER_ACCOUNT_KINDS = ["customer", "house"] as const;
export type LedgerAccountKind = (typeof LEDGER_ACCOUNT_KINDS)[number];

/**
 * What a ledger account is for. A customer has, per currency, a "balance" (what they can spend)
 * and a "held" balance (money reserved for payments not yet paid out). The house has:
 * - incoming_funds: the mirror of money in the portal's bank accounts (goes negative by nature:
 *   −X means X came in; a payout that leaves the bank moves it back up);
 * - unallocated_funds: money received that matched no account_ref yet, waiting for allocation;
 * - fee_income: fees earned;
 * - fx_position: the house's position per currency from conversions (positive: long, negative:
 *   short, i.e. the currency it owes customers and must buy);
 * - payouts: what the house owes recipients for payouts sent to a rail and not yet settled.
 */
export const LEDGER_PURPOSES = [
  "balance",
  "held",
  "fx_position",
  "fee_income",
  "incoming_funds",
  "unallocated_funds",
  "payouts",
] as const;
export type LedgerPurpose = (typeof LEDGER_PURPOSES)[number];
export const CUSTOMER_PURPOSES = ["balance", "held"] as const;
export type CustomerPurpose = (typeof CUSTOMER_PURPOSES)[number];
export const HOUSE_PURPOSES = ["fx_position", "fee_income", "incoming_funds", "unallocated_funds", "payouts"] as const;
export type HousePurpose = (typeof HOUSE_PURPOSES)[number];
/** The only purposes whose balance may go below zero. Every other balance never does. */
export const MAY_GO_NEGATIVE: readonly LedgerPurpose[] = ["fx_position", "incoming_funds"];

/**
 * The kinds of movement. Payments move money in steps (docs/decisions/027): a hold when the
 * payment is made, then either its release (rejected, cancelled, failed before it was sent) or its
 * payout (sent to a rail), then its settlement (the money left the bank) or its refund (the rail
 * gave it back). A receipt_reversal takes a booked receipt back out (server/money/receipts.ts).
 */
export const LEDGER_TRANSFER_KINDS = [
  "receipt",
  "allocation",
  "conversion",
  "correction",
  "payment_hold",
  "payment_release",
  "payment_payout",
  "payment_settlement",
  "payment_refund",
  "receipt_reversal",
] as const;
export type LedgerTransferKind = (typeof LEDGER_TRANSFER_KINDS)[number];

/** A balance in one currency: a customer's, or one of the house's. `balance` = sum of its entries. */
export const ledgerAccounts = sqliteTable("ledger_accounts", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  kind: text("kind", { enum: LEDGER_ACCOUNT_KINDS }).notNull(),
  /** The customer account (accounts.id); null for the house. */
  accountId: integer("account_id").references(() => accounts.id),
  /** ISO 4217 code, upper case. */
  currency: text("currency").notNull(),
  purpose: text("purpose", { enum: LEDGER_PURPOSES }).notNull(),
  /** Stored balance in minor units, updated in the same transaction as the entries. */
  balance: integer("balance").notNull().default(0),
  createdAt: time("created_at").notNull(),
}, (t) => [
  // SQLite treats NULLs as distinct in a unique index, hence one partial index per kind.
  uniqueIndex("ledger_accounts_customer").on(t.accountId, t.currency, t.purpose).where(sql`kind = 'customer'`),
  uniqueIndex("ledger_accounts_house").on(t.purpose, t.currency).where(sql`kind = 'house'`),
  check(
    "ledger_accounts_owner",
    sql`(kind = 'customer' AND account_id IS NOT NULL AND purpose IN ('balance', 'held')) OR (kind = 'house' AND account_id IS NULL AND purpose IN ('fx_position', 'fee_income', 'incoming_funds', 'unallocated_funds', 'payouts'))`,
  ),
  check("ledger_accounts_currency", sql`length(currency) = 3 AND currency GLOB '[A-Z][A-Z][A-Z]'`),
  check("ledger_accounts_balance_integer", sql`typeof(balance) = 'integer'`),
  // The last line of defence; the ledger refuses such a debit first, with InsufficientFunds.
  check("ledger_accounts_not_negative", sql`purpose IN ('fx_position', 'incoming_funds') OR balance >= 0`),
]);

/** One movement of money: a set of entries that sum to zero per currency, written at once. */
export const ledgerTransfers = sqliteTable("ledger_transfers", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  kind: text("kind", { enum: LEDGER_TRANSFER_KINDS }).notNull(),
  description: text("description").notNull(),
  /**
   * What the movement is for (a receipt id, a conversion id, an Idempotency-Key...). Unique per
   * kind: posting the same kind and reference again replays the first transfer instead.
   */
  reference: text("reference"),
  createdAt: time("created_at").notNull(),
  createdBy: integer("created_by").references(() => users.id),
}, (t) => [
  uniqueIndex("ledger_transfers_reference").on(t.kind, t.reference).where(sql`reference IS NOT NULL`),
]);

/** One line of a transfer. Never updated or deleted: a correction is a new transfer. */
export const ledgerEntries = sqliteTable("ledger_entries", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  transferId: integer("transfer_id").notNull().references(() => ledgerTransfers.id),
  ledgerAccountId: integer("ledger_account_id").notNull().references(() => ledgerAccounts.id),
  /** Always the ledger account's currency (a trigger holds this). */
  currency: text("currency").notNull(),
  /** Minor units, signed: positive credits the account (balance up), negative debits it. */
  amount: integer("amount").notNull(),
  createdAt: time("created_at").notNull(),
}, (t) => [
  index("ledger_entries_transfer").on(t.transferId),
  index("ledger_entries_account").on(t.ledgerAccountId),
  // An account's movements newest first, a page at a time by keyset (server/transactions).
  index("ledger_entries_account_time").on(t.ledgerAccountId, t.createdAt, t.transferId),
  check("ledger_entries_amount", sql`typeof(amount) = 'integer' AND amount <> 0`),
]);

// ---------------------------------------------------------------------------------------------
// Rates, pricing, quotes, conversions and receipts.
// ---------------------------------------------------------------------------------------------

/**
 * A rate that moved by more than RATE_CONFIRM_SHARE from the table before (server/money/
 * rate-sanity.ts): the pair ("EUR/GBP": 1 EUR in GBP), its rate before and after, and the change
 * in percent ("25.3").
 */
export interface RateMove {
  currency: string;
  pair: string;
  from: string;
  to: string;
  percent: string;
}

/**
 * Every rate table the portal has used, newest last: the current rates are the latest row. Each
 * row is a change, with its time and source (indicative, admin, ecb) and who made it. A change
 * that moved some rate by more than RATE_CONFIRM_SHARE records those moves and the administrator
 * who confirmed them (docs/decisions/025).
 */
export const rateTables = sqliteTable("rate_tables", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  base: text("base").notNull(),
  asOf: text("as_of").notNull(),
  source: text("source").notNull(),
  /** { "USD": "1.0823", ... }: 1 base = rate units of the currency. */
  rates: text("rates", { mode: "json" }).notNull().$type<Record<string, string>>(),
  createdAt: time("created_at").notNull(),
  createdBy: integer("created_by").references(() => users.id),
  /** The large moves this change made, each confirmed; null when it made none. */
  confirmedChanges: text("confirmed_changes", { mode: "json" }).$type<RateMove[]>(),
  confirmedBy: integer("confirmed_by").references(() => users.id),
});

/** Pricing plans (server/money/pricing.ts): markup tiers and transfer fees. One is the default. */
export const pricingPlans = sqliteTable("pricing_plans", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull(),
  isDefault: integer("is_default", { mode: "boolean" }).notNull().default(false),
  tierCurrency: text("tier_currency").notNull(),
  tiers: text("tiers", { mode: "json" }).notNull().$type<{ up_to: string | null; bps: number }[]>(),
  fees: text("fees", { mode: "json" }).notNull().$type<Record<string, { regular: string; priority: string }>>(),
  createdAt: time("created_at").notNull(),
  updatedAt: time("updated_at").notNull(),
});

/** Which plan an account is on; an account without a row is on the default plan. */
export const accountPlans = sqliteTable("account_plans", {
  accountId: integer("account_id").primaryKey().references(() => accounts.id),
  planId: integer("plan_id").notNull().references(() => pricingPlans.id),
  assignedAt: time("assigned_at").notNull(),
  assignedBy: integer("assigned_by").references(() => users.id),
});

/** A conversion quote given to a customer, held until it expires or is used once. */
export const quotes = sqliteTable("quotes", {
  id: text("id").primaryKey(),
  accountId: integer("account_id").notNull().references(() => accounts.id),
  userId: integer("user_id").notNull().references(() => users.id),
  sellCurrency: text("sell_currency").notNull(),
  buyCurrency: text("buy_currency").notNull(),
  sellMinor: integer("sell_minor").notNull(),
  buyMinor: integer("buy_minor").notNull(),
  feeMinor: integer("fee_minor").notNull(),
  midRate: text("mid_rate").notNull(),
  rate: text("rate").notNull(),
  bps: integer("bps").notNull(),
  expiresAt: time("expires_at").notNull(),
  usedAt: time("used_at"),
  createdAt: time("created_at").notNull(),
}, (t) => [index("quotes_account").on(t.accountId)]);

/** A conversion done: a used quote and the ledger transfer that moved the money. */
export const conversions = sqliteTable("conversions", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  accountId: integer("account_id").notNull().references(() => accounts.id),
  quoteId: text("quote_id").notNull().unique().references(() => quotes.id),
  transferId: integer("transfer_id").notNull(),
  sellCurrency: text("sell_currency").notNull(),
  sellMinor: integer("sell_minor").notNull(),
  buyCurrency: text("buy_currency").notNull(),
  buyMinor: integer("buy_minor").notNull(),
  feeMinor: integer("fee_minor").notNull(),
  rate: text("rate").notNull(),
  /** The customer whose conversion it is (an administrator acting on their behalf acts as them). */
  createdBy: integer("created_by").references(() => users.id),
  /** The administrator who made it on the customer's behalf, as payments' events record them. */
  onBehalfAdminId: integer("on_behalf_admin_id").references(() => users.id),
  createdAt: time("created_at").notNull(),
}, (t) => [
  index("conversions_account").on(t.accountId, t.id),
  // A transaction's detail finds its conversion by the transfer (server/transactions).
  index("conversions_transfer").on(t.transferId),
]);

/**
 * Money received in the company's bank accounts, recorded by an administrator
 * (server/money/receipts.ts; lib/money/receipts.ts says what each status means). A receipt is
 * booked in the ledger (transfer_id) unless it waits for a second administrator or was closed
 * without being booked; a check holds that. account_id is the account its reference named, also
 * while it waits, so the approver sees whom it is for.
 */
export const receipts = sqliteTable("receipts", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  amountMinor: integer("amount_minor").notNull(),
  currency: text("currency").notNull(),
  payerName: text("payer_name").notNull(),
  reference: text("reference").notNull(),
  receivedAt: text("received_at").notNull(),
  status: text("status", { enum: RECEIPT_STATUSES }).notNull(),
  accountId: integer("account_id").references(() => accounts.id),
  transferId: integer("transfer_id"),
  allocationTransferId: integer("allocation_transfer_id"),
  recordedBy: integer("recorded_by").notNull().references(() => users.id),
  createdAt: time("created_at").notNull(),
  /** The earlier receipt this one repeats (held_duplicate, and after it is released or discarded). */
  duplicateOf: integer("duplicate_of"),
  /** The second administrator who approved or released it. */
  approvedBy: integer("approved_by").references(() => users.id),
  approvedAt: time("approved_at"),
  /** Who declined, discarded or reversed it, when, and why (required). */
  closedBy: integer("closed_by").references(() => users.id),
  closedAt: time("closed_at"),
  closedReason: text("closed_reason"),
  reversalTransferId: integer("reversal_transfer_id"),
  /**
   * The payout this money returns (decision 093): the bank sent our transfer back. Never a
   * customer's money: it waits on the unallocated funds, cannot be allocated, and is settled
   * (reversed) when the desk fails the payment.
   */
  returnsPaymentId: integer("returns_payment_id").references(() => payments.id),
}, (t) => [
  index("receipts_status").on(t.status),
  index("receipts_repeats").on(t.currency, t.amountMinor, t.receivedAt),
  // A movement finds the receipt it booked, allocated or took back (server/transactions); a new
  // receipt adds up its account's day by status and time (decision 026, amended).
  index("receipts_account").on(t.accountId, t.status, t.createdAt),
  index("receipts_transfer").on(t.transferId),
  index("receipts_allocation_transfer").on(t.allocationTransferId),
  index("receipts_reversal_transfer").on(t.reversalTransferId),
  index("receipts_returns_payment").on(t.returnsPaymentId),
  check("receipts_status_known", sql.raw(`status IN (${RECEIPT_STATUSES.map((s) => `'${s}'`).join(", ")})`)),
  check(
    "receipts_booked",
    sql.raw(`(status IN (${UNBOOKED_RECEIPT_STATUSES.map((s) => `'${s}'`).join(", ")})) = (transfer_id IS NULL)`),
  ),
]);

/**
 * The credit entries of bank statements (camt.053) imported as receipts, one row each, keyed by
 * the reader's `key` (account / booking date / the bank's AcctSvcrRef, server/bank-files/camt053.ts):
 * the unique key is what makes a file imported twice credit nothing twice (decision 046).
 */
export const statementCredits = sqliteTable("statement_credits", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  key: text("key").notNull(),
  /** The receipt the entry became; null only inside the transaction that records it. */
  receiptId: integer("receipt_id").references(() => receipts.id),
  /** The file's GrpHdr/MsgId, the statement's Id, the entry's NtryRef and AcctSvcrRef, as the bank wrote them. */
  messageId: text("message_id").notNull(),
  statementId: text("statement_id").notNull(),
  entryReference: text("entry_reference"),
  accountServicerReference: text("account_servicer_reference"),
  /** The account of the statement (its IBAN or other id). */
  account: text("account").notNull(),
  importedBy: integer("imported_by").notNull().references(() => users.id),
  importedAt: time("imported_at").notNull(),
}, (t) => [
  uniqueIndex("statement_credits_key").on(t.key),
  index("statement_credits_receipt").on(t.receiptId),
]);
