/**
 * Rate alerts (issue 10 part 3, DESIGN.md section 4, decision 038): a customer account watches a
 * currency pair for a target rate; when a rate change puts the mid-market rate at or past the
 * target, the alert fires once (fired_at, fired_rate) and tells its creator.
 */
import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { RATE_ALERT_DIRECTIONS } from "../lib/ratealerts.ts";
import { accounts, users } from "./schema.ts";

const time = (name: string) => integer(name, { mode: "timestamp_ms" });

export const rateAlerts = sqliteTable("rate_alerts", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  accountId: integer("account_id").notNull().references(() => accounts.id),
  /** Who set it: they are told when it fires. */
  createdBy: integer("created_by").notNull().references(() => users.id),
  /** "1 sell_currency = target_rate buy_currency". */
  sellCurrency: text("sell_currency").notNull(),
  buyCurrency: text("buy_currency").notNull(),
  /** A plain positive decimal string, normalised ("1.15"). */
  targetRate: text("target_rate").notNull(),
  /** above: fires at or above the target; below: at or below. */
  direction: text("direction", { enum: RATE_ALERT_DIRECTIONS }).notNull(),
  paused: integer("paused", { mode: "boolean" }).notNull().default(false),
  createdAt: time("created_at").notNull(),
  /** When it fired (once; it is not watched after), at what rate and with which rate table. */
  firedAt: time("fired_at"),
  firedRate: text("fired_rate"),
  firedRateTableId: integer("fired_rate_table_id"),
}, (t) => [
  index("rate_alerts_account").on(t.accountId, t.id),
  // What a rate check reads: only the alerts still watching.
  index("rate_alerts_watching").on(t.sellCurrency, t.buyCurrency).where(sql`fired_at IS NULL AND paused = 0`),
  check("rate_alerts_direction", sql`${t.direction} IN ('above', 'below')`),
]);
