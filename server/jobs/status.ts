import { and, count, desc, eq, type SQL } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { jobs, jobSteps } from "../../db/schema-jobs.ts";
import type { ConsoleJob, CustomerJob } from "../../lib/contracts/jobs.ts";
import type { JobStatus } from "../../lib/jobs.ts";
import { NotFound } from "../errors.ts";

/** What the status calls answer about jobs (lib/contracts/jobs.ts). */

type JobRow = typeof jobs.$inferSelect;

const iso = (date: Date | null) => date?.toISOString() ?? null;

function customerView(job: JobRow): CustomerJob {
  return {
    id: job.id,
    kind: job.kind,
    status: job.status,
    progress: job.progressTotal === null
      ? null
      : { done: job.progressDone ?? 0, total: job.progressTotal, message: job.progressMessage },
    result: job.status === "succeeded" ? job.result : null,
    error: job.status === "failed" ? job.error : null,
    created_at: job.createdAt.toISOString(),
    started_at: iso(job.startedAt),
    finished_at: iso(job.finishedAt),
  };
}

function consoleView(job: JobRow): ConsoleJob {
  return {
    ...customerView(job),
    error: job.error,
    payload: job.payload,
    attempts: job.attempts,
    max_attempts: job.maxAttempts,
    run_after: job.runAfter.toISOString(),
    lease_owner: job.leaseOwner,
    lease_expires_at: iso(job.leaseExpiresAt),
    account_id: job.accountId,
    created_by: job.createdBy,
  };
}

const NOT_FOUND = "There is no such job.";

/** One of an account's jobs; another account's, or the portal's own, is not found. */
export async function accountJob(db: Database, accountId: number, id: number): Promise<CustomerJob> {
  const [job] = await db.select().from(jobs).where(and(eq(jobs.id, id), eq(jobs.accountId, accountId)));
  if (!job) throw new NotFound(NOT_FOUND);
  return customerView(job);
}

/** A page of jobs for the console, newest first. */
export async function listJobs(
  db: Database,
  filters: { status?: JobStatus; kind?: string; page: number; per_page: number },
) {
  const conditions: SQL[] = [];
  if (filters.status) conditions.push(eq(jobs.status, filters.status));
  if (filters.kind) conditions.push(eq(jobs.kind, filters.kind));
  const where = conditions.length > 0 ? and(...conditions) : undefined;
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(jobs).where(where).orderBy(desc(jobs.id)).limit(filters.per_page)
      .offset((filters.page - 1) * filters.per_page),
    db.select({ total: count() }).from(jobs).where(where),
  ]);
  return { items: rows.map(consoleView), page: filters.page, per_page: filters.per_page, total };
}

/** One job for the console, with its recorded steps. */
export async function consoleJobWithSteps(db: Database, id: number) {
  const [job] = await db.select().from(jobs).where(eq(jobs.id, id));
  if (!job) throw new NotFound(NOT_FOUND);
  const steps = await db.select().from(jobSteps).where(eq(jobSteps.jobId, id)).orderBy(jobSteps.begunAt);
  return {
    ...consoleView(job),
    steps: steps.map((step) => ({
      key: step.stepKey,
      begun_at: step.begunAt.toISOString(),
      done_at: iso(step.doneAt),
      result: step.result,
    })),
  };
}
