import { and, eq, inArray, lt, lte, notInArray, or, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { jobs } from "../../db/schema-jobs.ts";
import type { Tx } from "../../db/sql.ts";

/**
 * The statements that give a job to one runner at a time. Every write a runner makes about a job
 * it runs is conditional on still holding its lease: the job is running, leased to this runner, in
 * the attempt this runner claimed (each claim counts one more). So a runner that froze past its
 * lease and wakes up changes nothing the new holder owns, even when the new holder is itself.
 */

export type ClaimedJob = typeof jobs.$inferSelect;

/** One claim of a job: the fencing token of every write about it. */
export interface Lease {
  jobId: number;
  owner: string;
  attempt: number;
}

export const leaseOf = (job: ClaimedJob): Lease => ({ jobId: job.id, owner: job.leaseOwner!, attempt: job.attempts });

/** Where a runner's write about its job applies: only while the lease is still its own. */
const held = (lease: Lease) =>
  and(
    eq(jobs.id, lease.jobId),
    eq(jobs.leaseOwner, lease.owner),
    eq(jobs.attempts, lease.attempt),
    eq(jobs.status, "running"),
  );

/**
 * Claims the next due job of `kinds` in one conditional statement: a queued job whose time has
 * come, or a running one whose lease expired (its runner died or froze). SQLite runs the statement
 * under its write lock, so two runners (one process or several on one database) never both get a
 * job. Answers the job with this attempt counted, or null. `running`: the jobs this runner runs.
 */
export async function claimNext(
  db: Database,
  options: { owner: string; kinds: string[]; now: Date; leaseMs: number; running: number[] },
): Promise<ClaimedJob | null> {
  const { owner, kinds, now, leaseMs, running } = options;
  if (kinds.length === 0) return null;
  const next = db.select({ id: jobs.id }).from(jobs).where(
    and(
      inArray(jobs.kind, kinds),
      // A job this runner is still running, whose lease expired while its renewal was late, is
      // not claimed by it a second time; its renewal will find the lease still its own.
      running.length > 0 ? notInArray(jobs.id, running) : undefined,
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
export async function renewLease(db: Database | Tx, lease: Lease, until: Date): Promise<boolean> {
  const rows = await db.update(jobs).set({ leaseExpiresAt: until }).where(held(lease)).returning({
    id: jobs.id,
  });
  return rows.length > 0;
}

/** Records progress while the lease is held. */
export async function recordProgress(
  db: Database,
  lease: Lease,
  progress: { done: number; total: number; message: string | null },
): Promise<void> {
  await db.update(jobs).set({
    progressDone: progress.done,
    progressTotal: progress.total,
    progressMessage: progress.message,
  }).where(held(lease));
}

const unleased = { leaseOwner: null, leaseExpiresAt: null } as const;

export async function markSucceeded(db: Database, lease: Lease, result: unknown, now: Date) {
  await db.update(jobs).set({ ...unleased, status: "succeeded", result: result ?? null, error: null, finishedAt: now })
    .where(held(lease));
}

export async function markFailed(db: Database, lease: Lease, error: string, now: Date) {
  await db.update(jobs).set({ ...unleased, status: "failed", error, finishedAt: now }).where(held(lease));
}

/** Back to the queue after a failure, to be tried again at `runAfter`. */
export async function markForRetry(db: Database, lease: Lease, error: string, runAfter: Date) {
  await db.update(jobs).set({ ...unleased, status: "queued", error, runAfter }).where(held(lease));
}

/**
 * Gives the job back at once, its attempt not counted: its runner is stopping (a deployment, a
 * restart), which says nothing about the job.
 */
export async function release(db: Database, lease: Lease, now: Date) {
  await db.update(jobs).set({
    ...unleased,
    status: "queued",
    runAfter: now,
    attempts: sql`max(${jobs.attempts} - 1, 0)`,
  }).where(held(lease));
}
