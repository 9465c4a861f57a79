/**
 * The console's own records: alerts raised for an administrator's attention (lib/alerts.ts says
 * what each kind is about; server/alerts/ raises them).
 */
import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { ALERT_KINDS, ALERT_SEVERITIES } from "../lib/alerts.ts";
import { users } from "./schema.ts";

const time = (name: string) => integer(name, { mode: "timestamp_ms" });

/**
 * Something a person should look at. Raised by a service (`created_by` is the administrator whose
 * action raised it, or null when the portal raised it by itself, as the rate feed does), perhaps
 * given to someone (`assigned_to`), and resolved once, with a note. An alert raised by an
 * administrator's own action is for a second administrator: the one who raised it does not
 * resolve it (issue 11 enforces this on the alerts screen).
 */
export const consoleAlerts = sqliteTable("console_alerts", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  kind: text("kind", { enum: ALERT_KINDS }).notNull(),
  severity: text("severity", { enum: ALERT_SEVERITIES }).notNull(),
  /** What it is about, for the screen to link and show: ids and the values that matter. */
  subject: text("subject", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
  /** One or two sentences for the administrator. */
  message: text("message").notNull(),
  createdAt: time("created_at").notNull(),
  createdBy: integer("created_by").references(() => users.id),
  assignedTo: integer("assigned_to").references(() => users.id),
  resolvedAt: time("resolved_at"),
  resolvedBy: integer("resolved_by").references(() => users.id),
  resolutionNote: text("resolution_note"),
  /**
   * What makes it the same alert ("large_payment:42"): an event seen again (a retried webhook, the
   * daily unmatched-receipt job) raises nothing new. Null for alerts that may repeat.
   */
  dedupeKey: text("dedupe_key"),
}, (t) => [
  uniqueIndex("console_alerts_dedupe").on(t.dedupeKey),
  index("console_alerts_assigned").on(t.assignedTo, t.resolvedAt),
  index("console_alerts_open").on(t.resolvedAt, t.kind, t.createdAt),
  check("console_alerts_kind", sql.raw(`kind IN (${ALERT_KINDS.map((k) => `'${k}'`).join(", ")})`)),
  check("console_alerts_severity", sql.raw(`severity IN (${ALERT_SEVERITIES.map((s) => `'${s}'`).join(", ")})`)),
  check(
    "console_alerts_resolution",
    sql`(resolved_at IS NULL AND resolved_by IS NULL) OR (resolved_at IS NOT NULL AND resolved_by IS NOT NULL)`,
  ),
]);

/**
 * What the console knows about an administrator beyond their user row (decision 044): the name
 * shown in the list, who invited them and when, and whether they are disabled. The first
 * administrator (/setup, `deno task admin:create`) has no row until someone changes them: no row
 * is an active administrator with no name. A disabled administrator cannot sign in.
 */
export const administrators = sqliteTable("administrators", {
  userId: integer("user_id").primaryKey().references(() => users.id, { onDelete: "cascade" }),
  name: text("name").notNull().default(""),
  invitedBy: integer("invited_by").references(() => users.id),
  invitedAt: time("invited_at"),
  disabledAt: time("disabled_at"),
  disabledBy: integer("disabled_by").references(() => users.id),
});

/**
 * Settings an administrator changes in the console instead of by a redeploy (decision 057): one
 * row per key, with who changed it last (each change is also in the audit log). Today only
 * "alert_payment_gbp", the large-payment alert's threshold; without a row the environment's value
 * holds.
 */
export const consoleSettings = sqliteTable("console_settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: time("updated_at").notNull(),
  updatedBy: integer("updated_by").notNull().references(() => users.id),
});
