/**
 * Paying people abroad (DESIGN.md section 4, docs/decisions/027): recipients and their bank
 * details, payment quotes, payments with their timeline, approval rules, invitations of account
 * users, payout batches (SEPA files) and in-app notifications. Money itself moves only in the
 * ledger (server/ledger/movements.ts); a payment records which transfers moved it.
 */
import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { type Scheme, SCHEMES } from "../lib/bank-details/requirements.ts";
import { PAYMENT_EVENTS, PAYMENT_STATUSES, type PaymentEvent, type PaymentStatus } from "../lib/payments/statuses.ts";
import { ACCOUNT_ROLES } from "../lib/permissions.ts";
import { accounts, users } from "./schema.ts";

const time = (name: string) => integer(name, { mode: "timestamp_ms" });
const bool = (name: string) => integer(name, { mode: "boolean" });

export const RECIPIENT_TYPES = ["person", "business"] as const;
export type RecipientType = (typeof RECIPIENT_TYPES)[number];

/**
 * Someone a customer pays. Deleting one hides it (`deleted_at`): payments keep pointing at it.
 * `details` holds the bank details the currency and country need (lib/bank-details).
 */
export const recipients = sqliteTable("recipients", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  accountId: integer("account_id").notNull().references(() => accounts.id),
  name: text("name").notNull(),
  type: text("type", { enum: RECIPIENT_TYPES }).notNull(),
  currency: text("currency").notNull(),
  /** ISO 3166-1 alpha-2 of the recipient's bank. */
  country: text("country").notNull(),
  email: text("email"),
  details: text("details", { mode: "json" }).notNull().$type<Record<string, string>>(),
  /** When the bank details last changed (creation counts): a rule may ask approval after it. */
  detailsChangedAt: time("details_changed_at").notNull(),
  createdBy: integer("created_by").notNull().references(() => users.id),
  createdAt: time("created_at").notNull(),
  updatedAt: time("updated_at").notNull(),
  deletedAt: time("deleted_at"),
}, (t) => [index("recipients_account").on(t.accountId, t.id)]);

/** Every change of a recipient, with the values before and after: shown on the recipient. */
export const recipientChanges = sqliteTable("recipient_changes", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  recipientId: integer("recipient_id").notNull().references(() => recipients.id),
  kind: text("kind", { enum: ["created", "details", "name", "deleted"] }).notNull(),
  before: text("before", { mode: "json" }),
  after: text("after", { mode: "json" }),
  changedBy: integer("changed_by").notNull().references(() => users.id),
  /** The administrator, when the change was made on the customer's behalf. */
  onBehalfAdminId: integer("on_behalf_admin_id").references(() => users.id),
  changedAt: time("changed_at").notNull(),
}, (t) => [index("recipient_changes_recipient").on(t.recipientId, t.id)]);

/**
 * The ways a payout reaches a bank: the recipient's scheme (lib/bank-details/requirements.ts), a
 * local scheme or SWIFT.
 */
export const PAYOUT_RAILS = SCHEMES;
export type PayoutRailName = Scheme;

/**
 * A price for a payment, held until it expires or is used once (like a conversion's quote, with
 * the recipient, the transfer fee and the rail). The payment screen's "draft" is this quote.
 */
export const paymentQuotes = sqliteTable("payment_quotes", {
  id: text("id").primaryKey(),
  accountId: integer("account_id").notNull().references(() => accounts.id),
  userId: integer("user_id").notNull().references(() => users.id),
  recipientId: integer("recipient_id").notNull().references(() => recipients.id),
  sellCurrency: text("sell_currency").notNull(),
  buyCurrency: text("buy_currency").notNull(),
  /** Everything debited: what converts (the markup is in the rate) plus the transfer fee. */
  sellMinor: integer("sell_minor").notNull(),
  buyMinor: integer("buy_minor").notNull(),
  /** The transfer fee, in the sell currency, part of sellMinor. */
  feeMinor: integer("fee_minor").notNull(),
  midRate: text("mid_rate").notNull(),
  rate: text("rate").notNull(),
  bps: integer("bps").notNull(),
  priority: bool("priority").notNull(),
  rail: text("rail", { enum: PAYOUT_RAILS }).notNull(),
  expectedArrival: time("expected_arrival").notNull(),
  expiresAt: time("expires_at").notNull(),
  usedAt: time("used_at"),
  createdAt: time("created_at").notNull(),
  /**
   * The recipient's bank details this cost was shown for (JSON, keys sorted): confirming refuses
   * a quote whose recipient's details changed since. Null for a quote held before it was recorded.
   */
  recipientDetails: text("recipient_details"),
}, (t) => [index("payment_quotes_account").on(t.accountId)]);

export { PAYMENT_STATUSES, type PaymentStatus };

/**
 * A payment from a balance to a recipient. Its money moved in the ledger: held when it was made
 * (hold_transfer_id), then released, or paid out (payout_transfer_id) and settled or refunded.
 * `recipient` is what was paid, whatever the recipient becomes later.
 */
export const payments = sqliteTable("payments", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  accountId: integer("account_id").notNull().references(() => accounts.id),
  recipientId: integer("recipient_id").notNull().references(() => recipients.id),
  recipient: text("recipient", { mode: "json" }).notNull().$type<{
    name: string;
    type: RecipientType;
    currency: string;
    country: string;
    email: string | null;
    details: Record<string, string>;
  }>(),
  quoteId: text("quote_id").notNull().unique().references(() => paymentQuotes.id),
  sellCurrency: text("sell_currency").notNull(),
  sellMinor: integer("sell_minor").notNull(),
  buyCurrency: text("buy_currency").notNull(),
  buyMinor: integer("buy_minor").notNull(),
  feeMinor: integer("fee_minor").notNull(),
  midRate: text("mid_rate").notNull(),
  rate: text("rate").notNull(),
  bps: integer("bps").notNull(),
  priority: bool("priority").notNull(),
  rail: text("rail", { enum: PAYOUT_RAILS }).notNull(),
  /** What the recipient sees on their statement; its length is the rail's. */
  reference: text("reference").notNull(),
  status: text("status", { enum: PAYMENT_STATUSES }).notNull(),
  expectedArrival: time("expected_arrival").notNull(),
  createdBy: integer("created_by").notNull().references(() => users.id),
  createdAt: time("created_at").notNull(),
  updatedAt: time("updated_at").notNull(),
  approvedBy: integer("approved_by").references(() => users.id),
  approvedAt: time("approved_at"),
  /** Why it was rejected, cancelled or failed. */
  reason: text("reason"),
  batchId: integer("batch_id").references(() => payoutBatches.id),
  railReference: text("rail_reference"),
  holdTransferId: integer("hold_transfer_id").notNull(),
  payoutTransferId: integer("payout_transfer_id"),
}, (t) => [
  index("payments_account").on(t.accountId, t.id),
  // The approval rule asks whether a recipient's current details were paid before.
  index("payments_recipient").on(t.recipientId, t.createdAt),
  index("payments_queue").on(t.status, t.rail, t.id),
  index("payments_batch").on(t.batchId),
  check("payments_amounts", sql`sell_minor > 0 AND buy_minor > 0 AND fee_minor >= 0 AND fee_minor < sell_minor`),
]);

export { PAYMENT_EVENTS, type PaymentEvent };

/** A payment's timeline: who did what and when. */
export const paymentEvents = sqliteTable("payment_events", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  paymentId: integer("payment_id").notNull().references(() => payments.id),
  event: text("event", { enum: PAYMENT_EVENTS }).notNull(),
  /** The customer's user, or the administrator (payout desk). */
  actorId: integer("actor_id").references(() => users.id),
  /** The administrator, when a customer's action was taken on their behalf. */
  onBehalfAdminId: integer("on_behalf_admin_id").references(() => users.id),
  note: text("note"),
  at: time("at").notNull(),
}, (t) => [index("payment_events_payment").on(t.paymentId, t.id)]);

/**
 * An account's rule for a second pair of eyes (maker-checker). No row: no approval needed.
 * `thresholds` are minor units per currency, for mode "above".
 */
export const approvalRules = sqliteTable("approval_rules", {
  accountId: integer("account_id").primaryKey().references(() => accounts.id),
  mode: text("mode", { enum: ["none", "all", "above"] }).notNull(),
  thresholds: text("thresholds", { mode: "json" }).notNull().$type<Record<string, number>>(),
  /** The first payment to a new recipient, or after its bank details changed, needs approval. */
  newRecipient: bool("new_recipient").notNull(),
  updatedBy: integer("updated_by").notNull().references(() => users.id),
  updatedAt: time("updated_at").notNull(),
});

/** An emailed invitation to join an account with a role; only the token's SHA-256 is kept. */
export const accountInvitations = sqliteTable("account_invitations", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  accountId: integer("account_id").notNull().references(() => accounts.id),
  email: text("email").notNull(),
  role: text("role", { enum: ACCOUNT_ROLES }).notNull(),
  tokenHash: text("token_hash").notNull().unique(),
  invitedBy: integer("invited_by").notNull().references(() => users.id),
  /** The administrator who made it acting on the inviter's behalf (they are "of our team"), else null. */
  onBehalfAdminId: integer("on_behalf_admin_id").references(() => users.id),
  createdAt: time("created_at").notNull(),
  expiresAt: time("expires_at").notNull(),
  acceptedAt: time("accepted_at"),
  acceptedBy: integer("accepted_by").references(() => users.id),
  revokedAt: time("revoked_at"),
}, (t) => [index("account_invitations_account").on(t.accountId)]);

/** One file of payouts sent to the bank (a SEPA pain.001 file): a payment is in at most one. */
export const payoutBatches = sqliteTable("payout_batches", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  scheme: text("scheme", { enum: ["sepa"] }).notNull(),
  messageId: text("message_id").notNull().unique(),
  currency: text("currency").notNull(),
  paymentCount: integer("payment_count").notNull(),
  totalMinor: integer("total_minor").notNull(),
  file: text("file").notNull(),
  createdBy: integer("created_by").notNull().references(() => users.id),
  createdAt: time("created_at").notNull(),
});

/**
 * In-app notifications: shown to the user on their next page (the notification queue) and listed
 * on the dashboard. Written with the event that causes them.
 */
export const notifications = sqliteTable("notifications", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  accountId: integer("account_id").references(() => accounts.id),
  kind: text("kind").notNull(),
  title: text("title").notNull(),
  body: text("body").notNull(),
  /** Where the notification leads (a path of the portal). */
  link: text("link"),
  /**
   * The payment a notice about a payment is about (null for any other notice): what reads it asks
   * this, never the link, which is only where the notice leads.
   */
  paymentId: integer("payment_id").references(() => payments.id),
  createdAt: time("created_at").notNull(),
  /** When it was handed to the user's notification queue on a page. */
  deliveredAt: time("delivered_at"),
  readAt: time("read_at"),
  /**
   * When it went out by email (server/notifications/email-outbox.ts): the table is the outbox, so
   * an email whose notification committed is sent even if the process stops first.
   */
  emailedAt: time("emailed_at"),
}, (t) => [
  index("notifications_user").on(t.userId, t.id),
  // The two queues are read on every signed-in page and by the email outbox: only pending rows.
  index("notifications_undelivered").on(t.userId).where(sql`delivered_at IS NULL`),
  index("notifications_unemailed").on(t.userId).where(sql`emailed_at IS NULL`),
]);
