/**
 * The console's customer migrations (issue 11 item 8, decision 049): a CSV of legacy customers,
 * tried as a dry run or committed; each upload is a run with a row per line of its file.
 */
import { z } from "zod";
import { idText, pageOf, pageQuery, text } from "./common.ts";
import { defineCall } from "./define.ts";
import { CONSOLE_GUARDS } from "./guards.ts";

/** What happened to a line: created (or would be, in a dry run), skipped as a duplicate, refused. */
export const MIGRATION_OUTCOMES = ["created", "skipped", "refused"] as const;
export const MIGRATION_RUN_STATUSES = ["dry run", "queued", "running", "done", "failed"] as const;

/** A file of 10,000 customers of about 250 bytes a line, with room to spare. */
export const MIGRATION_BODY_LIMIT = 5 * 1024 * 1024;

export const migrationRun = z.object({
  id: z.number(),
  dry_run: z.boolean(),
  file_name: z.string(),
  created_at: z.string(),
  /** The administrator who uploaded it. */
  created_by: z.string(),
  finished_at: z.string().nullable(),
  status: z.enum(MIGRATION_RUN_STATUSES),
  counts: z.object({
    total: z.number(),
    created: z.number(),
    skipped: z.number(),
    refused: z.number(),
    /** Set-password emails sent, and those whose sending a crash left in doubt (never sent twice). */
    emailed: z.number(),
    in_doubt: z.number(),
  }),
  /** The commit job's progress bar. */
  progress: z.object({ done: z.number(), total: z.number(), message: z.string().nullable() }).nullable(),
  error: z.string().nullable(),
});
export type MigrationRun = z.output<typeof migrationRun>;

export const migrationRow = z.object({
  line: z.number(),
  legacy_id: z.string().nullable(),
  email: z.string().nullable(),
  outcome: z.enum(MIGRATION_OUTCOMES),
  /** The column at fault, for a refused or skipped line. */
  field: z.string().nullable(),
  reason: z.string().nullable(),
  customer_id: z.number().nullable(),
  mail: z.enum(["sent", "in doubt"]).nullable(),
});
export type MigrationRow = z.output<typeof migrationRow>;

const DRY_RUN = "dry_run is true (report what would happen) or false (create the customers).";

export const uploadMigration = defineCall({
  method: "POST",
  path: "/console/migrations",
  summary: "Uploads a CSV of legacy customers (Content-Type: text/csv): a dry run reports per line what would " +
    "happen; a commit also queues the job that creates the customers and emails each a set-password link.",
  guards: CONSOLE_GUARDS,
  query: z.object({
    dry_run: z.enum(["true", "false"], { error: DRY_RUN }).transform((value) => value === "true"),
    file_name: text({ label: "file_name", max: 200 }).optional(),
  }),
  bodyLimit: MIGRATION_BODY_LIMIT,
  answer: migrationRun,
  status: 201,
});

export const listMigrations = defineCall({
  method: "GET",
  path: "/console/migrations",
  summary: "The migration runs, newest first, with their counts.",
  guards: CONSOLE_GUARDS,
  query: z.object(pageQuery),
  answer: pageOf(migrationRun),
});

export const getMigration = defineCall({
  method: "GET",
  path: "/console/migrations/:id",
  summary: "One migration run with its counts, its job's progress and a page of its lines (of one outcome if asked).",
  guards: CONSOLE_GUARDS,
  params: z.object({ id: idText }),
  query: z.object({
    ...pageQuery,
    outcome: z.enum(MIGRATION_OUTCOMES, { error: "outcome is created, skipped or refused." }).optional(),
  }),
  answer: migrationRun.extend({ rows: pageOf(migrationRow) }),
});
