/**
 * Partners (issue 11 item 6, decision 051): introducers who bring customers for a share of the
 * income those customers earn the house. A customer's partner is `users.partner_id`, a plain
 * column (db/schema.ts) so that anything can filter customers by partner (the bulk emails'
 * segment).
 */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
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
