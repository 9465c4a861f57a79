/**
 * Background jobs (issue 10, decision 032): work that outlives a request, claimed by lease by one
 * runner at a time (server/jobs/), resumed after a crash without repeating what it already did.
 */
import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { JOB_STATUSES } from "../lib/jobs.ts";
import { accounts, users } from "./schema.ts";

const time = (name: string) => integer(name, { mode: "timestamp_ms" });

/**
 * One job. `queued` waits for `run_after`; a runner claims it by setting `lease_owner` and
 * `lease_expires_at` in one statement (status `running`) and renews the lease while it works; a
 * `running` job whose lease expired belongs to nobody and is claimed again (its runner died or
 * froze). A failure puts it back to `queued` with a later `run_after` until `max_attempts`, then
 * `failed` with `error`. `unique_key`, when set, makes enqueuing idempotent (a schedule's slot).
 */
export const jobs = sqliteTable("jobs", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  kind: text("kind").notNull(),
  payload: text("payload", { mode: "json" }).notNull().$type<unknown>(),
  status: text("status", { enum: JOB_STATUSES }).notNull(),
  progressDone: integer("progress_done"),
  progressTotal: integer("progress_total"),
  progressMessage: text("progress_message"),
  /** Attempts started, counting the one running now; an attempt stopped by a shutdown is given back. */
  attempts: integer("attempts").notNull().default(0),
  maxAttempts: integer("max_attempts").notNull(),
  /** Not claimed before this time: the backoff after a failure, or a job scheduled for later. */
  runAfter: time("run_after").notNull(),
  leaseOwner: text("lease_owner"),
  leaseExpiresAt: time("lease_expires_at"),
  result: text("result", { mode: "json" }).$type<unknown>(),
  /** The last attempt's error, in words an operator can act on. */
  error: text("error"),
  uniqueKey: text("unique_key"),
  /** Who asked for it; null when the portal did (a schedule). */
  createdBy: integer("created_by").references(() => users.id),
  /** Whose job it is: the customer account that may see it (GET account/jobs/{id}); null for the portal's own. */
  accountId: integer("account_id").references(() => accounts.id),
  createdAt: time("created_at").notNull(),
  startedAt: time("started_at"),
  finishedAt: time("finished_at"),
}, (t) => [
  // What a runner's claim looks for: queued jobs that are due, and running jobs whose lease expired.
  index("jobs_claimable").on(t.status, t.runAfter),
  index("jobs_by_account").on(t.accountId, t.createdAt),
  index("jobs_by_kind").on(t.kind, t.status, t.createdAt),
  uniqueIndex("jobs_unique_key").on(t.uniqueKey),
  check("jobs_status", sql.raw(`status IN (${JOB_STATUSES.map((s) => `'${s}'`).join(", ")})`)),
  check("jobs_attempts", sql`attempts >= 0 AND max_attempts >= 1`),
  check(
    "jobs_lease",
    sql`(status = 'running' AND lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL) OR (status <> 'running' AND lease_owner IS NULL AND lease_expires_at IS NULL)`,
  ),
]);

/**
 * The effects a job has made, one row per step key: a resumed job skips the steps found here and
 * takes their recorded result. A database step is recorded in the transaction that makes its
 * effects; an effect outside the database is recorded as begun (`done_at` null) before it is made
 * and as done after, so a resumed job knows when it may have happened (decision 032).
 */
export const jobSteps = sqliteTable("job_steps", {
  jobId: integer("job_id").notNull().references(() => jobs.id, { onDelete: "cascade" }),
  stepKey: text("step_key").notNull(),
  begunAt: time("begun_at").notNull(),
  doneAt: time("done_at"),
  result: text("result", { mode: "json" }).$type<unknown>(),
}, (t) => [primaryKey({ columns: [t.jobId, t.stepKey] })]);
