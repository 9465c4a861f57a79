/**
 * Statements (issue 10, decision 037): a customer's statement for a period, made by a background
 * job (server/statements/) and kept here with its file, so that every server process can serve it.
 * The file is downloadable until `expires_at` (7 days after it was made); the hourly expiry job
 * then empties `content` and sets `purged_at`, keeping the row so that a late download is told the
 * file expired rather than that it never existed.
 */
import { sql } from "drizzle-orm";
import { blob, check, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { jobs } from "./schema-jobs.ts";
import { accounts, users } from "./schema.ts";

const time = (name: string) => integer(name, { mode: "timestamp_ms" });

export const STATEMENT_FORMATS = ["csv", "pdf"] as const;
export type StatementFormat = (typeof STATEMENT_FORMATS)[number];

export const statements = sqliteTable("statements", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  accountId: integer("account_id").notNull().references(() => accounts.id),
  requestedBy: integer("requested_by").notNull().references(() => users.id),
  /** One currency ("GBP"), or null for one statement across all the account's currencies. */
  currency: text("currency"),
  /** The first and last day of the period, as asked (YYYY-MM-DD, UTC days, both included). */
  periodFrom: text("period_from").notNull(),
  periodTo: text("period_to").notNull(),
  /**
   * The moment the closing balances are taken at: the end of `period_to`, or the request's time
   * when the period runs to today, so that a statement made later (a retried job) says the same.
   */
  closingAt: time("closing_at").notNull(),
  format: text("format", { enum: STATEMENT_FORMATS }).notNull(),
  /** The job that makes it (GET account/jobs/{id} shows its progress). */
  jobId: integer("job_id").references(() => jobs.id, { onDelete: "set null" }),
  /** The file, once made; emptied once it has expired. */
  content: blob("content", { mode: "buffer" }),
  fileName: text("file_name").notNull(),
  lineCount: integer("line_count"),
  sizeBytes: integer("size_bytes"),
  createdAt: time("created_at").notNull(),
  readyAt: time("ready_at"),
  /** Set with the file: `ready_at` + 7 days. */
  expiresAt: time("expires_at"),
  purgedAt: time("purged_at"),
}, (t) => [
  index("statements_account").on(t.accountId, t.id),
  index("statements_expiry").on(t.expiresAt).where(sql`content IS NOT NULL`),
  check("statements_format", sql`format IN ('csv', 'pdf')`),
]);
