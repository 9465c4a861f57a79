import { and, eq, inArray, lt, lte, or, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { jobs } from "../../db/schema-jobs.ts";
import type { Tx } from "../../db/sql.ts";

/**
 * The statements that give a job to one runner at a time. Every write a runner makes about a job
 * it runs is conditional on still holding its lease (`lease_owner` is this runner and the job is
 * running), so a runner that froze past its lease and wakes up changes nothing the new holder owns.
 */

export type ClaimedJob = typeof jobs.$inferSelect;

/** Where a runner's write about its job applies: only while the lease is still its own. */
const held = (jobId: number, owner: string) =>
  and(eq(jobs.id, jobId), eq(jobs.leaseOwner, owner), eq(jobs.status, "running"));

/**
 * Claims the next due job of `kinds` in one conditional statement: a queued job whose time has
 * come, or a running one whose lease expired (its runner died or froze). SQLite runs the statement
 * under its write lock, so two runners (one process or several on one database) never both get a
 * job. Answers the job with this attempt counted, or null.
 */
export async function claimNext(
  db: Database,
  options: { owner: string; kinds: string[]; now: Date; leaseMs: number },
): Promise<ClaimedJob | null> {
  const { owner, kinds, now, leaseMs } = options;
  if (kinds.length === 0) return null;
  const next = db.select({ id: jobs.id }).from(jobs).where(
    and(
      inArray(jobs.kind, kinds),
      or(
        and(eq(jobs.status, "queued"), lte(jobs.runAfter, now)),
        and(eq(jobs.status, "running"), lt(jobs.leaseExpiresAt, now)),
      ),
    ),
  ).orderBy(jobs.runAfter, jobs.id).limit(1);
  const [job] = await db.update(jobs).set({
    status: "running",
    leaseOwner: owner,
    leaseExpiresAt: new Date(now.getTime() + leaseMs),
    attempts: sql`${jobs.attempts} + 1`,
    startedAt: sql`coalesce(${jobs.startedAt}, ${now.getTime()})`,
  }).where(inArray(jobs.id, next)).returning();
  return job ?? null;
}

/** Extends the lease; false when it is no longer this runner's. */
export async function renewLease(
  db: Database | Tx,
  jobId: number,
  owner: string,
  until: Date,
): Promise<boolean> {
  const rows = await db.update(jobs).set({ leaseExpiresAt: until }).where(held(jobId, owner)).returning({
    id: jobs.id,
  });
  return rows.length > 0;
}

/** Records progress while the lease is held. */
export async function recordProgress(
  db: Database,
  jobId: number,
  owner: string,
  progress: { done: number; total: number; message: string | null },
): Promise<void> {
  await db.update(jobs).set({
    progressDone: progress.done,
    progressTotal: progress.total,
    progressMessage: progress.message,
  }).where(held(jobId, owner));
}

const unleased = { leaseOwner: null, leaseExpiresAt: null } as const;

export async function markSucceeded(db: Database, jobId: number, owner: string, result: unknown, now: Date) {
  await db.update(jobs).set({ ...unleased, status: "succeeded", result: result ?? null, error: null, finishedAt: now })
    .where(held(jobId, owner));
}

export async function markFailed(db: Database, jobId: number, owner: string, error: string, now: Date) {
  await db.update(jobs).set({ ...unleased, status: "failed", error, finishedAt: now }).where(held(jobId, owner));
}

/** Back to the queue after a failure, to be tried again at `runAfter`. */
export async function markForRetry(db: Database, jobId: number, owner: string, error: string, runAfter: Date) {
  await db.update(jobs).set({ ...unleased, status: "queued", error, runAfter }).where(held(jobId, owner));
}

/**
 * Gives the job back at once, its attempt not counted: its runner is stopping (a deployment, a
 * restart), which says nothing about the job.
 */
export async function release(db: Database, jobId: number, owner: string, now: Date) {
  await db.update(jobs).set({
    ...unleased,
    status: "queued",
    runAfter: now,
    attempts: sql`max(${jobs.attempts} - 1, 0)`,
  }).where(held(jobId, owner));
}
