/**
 * Partners (issue 11 item 6, decision 051): introducers who bring customers for a share of the
 * income those customers earn the house. A customer's partner is `users.partner_id`, a plain
 * column (db/schema.ts) so that anything can filter customers by partner (the bulk emails'
 * segment).
 */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./schema.ts";

const time = (name: string) => integer(name, { mode: "timestamp_ms" });

export const partners = sqliteTable("partners", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull(),
  /** Who to write to about commissions; optional. */
  email: text("email"),
  /**
   * The referral code customers type at registration (upper-case, unique): a customer who
   * registers with it is the partner's.
   */
  code: text("code").notNull().unique(),
  /** The partner's share of the fee and markup income of their customers, in basis points (1% = 100). */
  shareBps: integer("share_bps").notNull(),
  createdAt: time("created_at").notNull(),
  createdBy: integer("created_by").notNull().references(() => users.id),
  updatedAt: time("updated_at").notNull(),
}, (t) => [index("partners_name").on(t.name)]);

/**
 * A partner's share over time (decision 055): each share they were given, from when it applies.
 * Written with the partner's creation and with each change of share, in that transaction; a
 * commission applies to each movement the share in force at the movement's time. A partner created
 * before this table has no row until their share first changes: their share is then the current
 * one, and the first change records the one before it from their creation.
 */
export const partnerShares = sqliteTable("partner_shares", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  partnerId: integer("partner_id").notNull().references(() => partners.id),
  shareBps: integer("share_bps").notNull(),
  startsAt: time("starts_at").notNull(),
  createdBy: integer("created_by").notNull().references(() => users.id),
}, (t) => [index("partner_shares_partner").on(t.partnerId, t.startsAt)]);

/**
 * Whose customer a customer was, and from when (decision 062): one row per change of
 * `users.partner_id`, written in the same transaction as the change (registration with a partner's
 * code, an administrator's assignment); `partner_id` null is "nobody's" from then. `users.partner_id`
 * stays the current one, for the lists and segments; a commission and the profit report by partner
 * give each ledger movement to the partner of this history at the movement's time, so assigning,
 * moving or unassigning a customer never changes an earlier period's figures. A customer with a
 * partner from before the table gets one row from their sign-up (`backfillAssignments`).
 */
export const partnerAssignments = sqliteTable("partner_assignments", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  userId: integer("user_id").notNull().references(() => users.id),
  /** The partner from `starts_at`; null: nobody's from then. */
  partnerId: integer("partner_id").references(() => partners.id),
  startsAt: time("starts_at").notNull(),
  /**
   * Who made it: the administrator who assigned, the customer themselves when they registered with
   * the code; null for the row recorded from `users.partner_id` when the history began.
   */
  createdBy: integer("created_by").references(() => users.id),
}, (t) => [index("partner_assignments_user").on(t.userId, t.startsAt)]);

/**
 * Data changes that run once, in code, after the migrations (the generated SQL is never edited:
 * the migrations are regenerated at merge). A row is a change done: running again finds it and does
 * nothing. The first is `users.funded_at` filled from the ledger (server/partners/funded.ts,
 * decision 055).
 */
export const backfills = sqliteTable("backfills", {
  name: text("name").primaryKey(),
  doneAt: time("done_at").notNull(),
  /** How many rows it changed, for the record. */
  rows: integer("rows").notNull(),
});

/**
 * The fee and markup income of each customer account per day (UTC) and currency (decision 070), so
 * that a year's commissions read a summary, not every ledger movement. Filled lazily by the reads
 * (server/partners/income-days.ts), from the ledger's own reader, only for days that are over:
 * the ledger is append-only and dated when written, so such a day never gains income. `day` is
 * whole days since 1970-01-01; `account_id` 0 is income with no customer account (a correction of
 * the house's own). `irregular` counts the movements of that account, day and currency that are
 * not summed here and are read one by one instead: refunds (they count for the partner of their
 * payout's time, decision 065).
 */
export const incomeDays = sqliteTable("income_days", {
  day: integer("day").notNull(),
  accountId: integer("account_id").notNull(),
  currency: text("currency").notNull(),
  fees: integer("fees").notNull().default(0),
  markup: integer("markup").notNull().default(0),
  /** How many income entries are summed (fee entries and markups other than zero), as the figures count rows. */
  entries: integer("entries").notNull().default(0),
  /**
   * The times (epoch ms) of the first and the last income summed: a change of partner or share
   * before the first or after the last changes nothing within the row.
   */
  firstAt: integer("first_at"),
  lastAt: integer("last_at"),
  irregular: integer("irregular").notNull().default(0),
}, (t) => [primaryKey({ columns: [t.day, t.accountId, t.currency] })]);

/**
 * The days whose `income_days` rows are written (decision 070), recorded in the same write
 * transaction as the rows, so that a day is filled once, whoever reads it first.
 */
export const incomeDaysFilled = sqliteTable("income_days_filled", {
  day: integer("day").primaryKey(),
});
