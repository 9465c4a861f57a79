/**
 * Customer migrations (issue 11 item 8, decision 049): a CSV of legacy customers uploaded in the
 * console, tried as a dry run or committed. Each upload is a run; each data line of its file is a
 * row with what happened to it (or, in a dry run, what would). A committed run's customers are made
 * by a background job (server/migrations/job.ts), whose progress the run's page shows.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { MIGRATION_OUTCOMES } from "../lib/contracts/migrations.ts";
import { jobs } from "./schema-jobs.ts";
import { users } from "./schema.ts";

const bool = (name: string) => integer(name, { mode: "boolean" });
const time = (name: string) => integer(name, { mode: "timestamp_ms" });

export type MigrationOutcome = (typeof MIGRATION_OUTCOMES)[number];

export const migrationRuns = sqliteTable("migration_runs", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  /** A dry run only reports; a committed one creates the customers it reports as created. */
  dryRun: bool("dry_run").notNull(),
  fileName: text("file_name").notNull(),
  createdBy: integer("created_by").notNull().references(() => users.id),
  createdAt: time("created_at").notNull(),
  /** The job that creates a committed run's customers and emails them. */
  jobId: integer("job_id").references(() => jobs.id, { onDelete: "set null" }),
  /** When the job had done every row (a dry run is finished when it is stored). */
  finishedAt: time("finished_at"),
});

export const migrationRows = sqliteTable("migration_rows", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  runId: integer("run_id").notNull().references(() => migrationRuns.id, { onDelete: "cascade" }),
  /** The line of the file (the header is line 1), as a spreadsheet shows it. */
  line: integer("line").notNull(),
  legacyId: text("legacy_id"),
  email: text("email"),
  /**
   * created (or would be, in a dry run or before the job reaches it), skipped as a duplicate, or
   * refused; `reason` says why for the last two, `field` names the column at fault.
   */
  outcome: text("outcome", { enum: MIGRATION_OUTCOMES }).notNull(),
  field: text("field"),
  reason: text("reason"),
  /** The line's values, checked, as the customer will find them on their profile form. */
  data: text("data", { mode: "json" }).$type<Record<string, string>>(),
  /** The customer made from it, once the job made them: set only in committed runs. */
  userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
  /** The set-password email: begun before it is handed to the mailer, sent after (never sent twice). */
  mailBegunAt: time("mail_begun_at"),
  mailedAt: time("mailed_at"),
}, (t) => [
  index("migration_rows_run").on(t.runId, t.line),
  // A legacy customer is migrated once, whatever file or run names them again.
  uniqueIndex("migration_rows_legacy_migrated").on(t.legacyId).where(sql`user_id IS NOT NULL`),
  index("migration_rows_user").on(t.userId),
]);
