import { and, eq } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { jobs } from "../../db/schema-jobs.ts";
import type { Tx } from "../../db/sql.ts";
import type { JobDefinition } from "./define.ts";
import { jobQueued } from "./wake.ts";

export interface EnqueueOptions {
  /** The customer account whose job it is (it may then read it with GET account/jobs/{id}). */
  accountId?: number | null;
  /** The user who asked for it; none when the portal did. */
  createdBy?: number | null;
  /** Not before this time (default: now). */
  runAfter?: Date;
  /**
   * Makes queuing idempotent: a second job with the same key is not created, and the first one's id
   * is answered (a schedule's slot, a customer's Idempotency-Key).
   */
  uniqueKey?: string;
  now?: Date;
}

/**
 * Queues a job of `job`'s kind. Inside a transaction (`db` is a `tx`), the job exists only if the
 * transaction commits, with whatever made it needed. The payload is checked against the kind's
 * schema here, so that a wrong one fails its caller (a programming error: callers check what people
 * send with their call's contract) rather than the job later.
 */
export async function enqueue<P>(
  db: Database | Tx,
  job: Pick<JobDefinition<P>, "kind" | "payload" | "maxAttempts">,
  payload: P,
  options: EnqueueOptions = {},
): Promise<{ id: number; created: boolean }> {
  const checked = job.payload.safeParse(payload);
  if (!checked.success) {
    throw new Error(`The ${job.kind} job's payload is not valid: ${checked.error.message}`);
  }
  const now = options.now ?? new Date();
  const [row] = await db.insert(jobs).values({
    kind: job.kind,
    payload: checked.data,
    status: "queued",
    maxAttempts: job.maxAttempts,
    runAfter: options.runAfter ?? now,
    uniqueKey: options.uniqueKey ?? null,
    accountId: options.accountId ?? null,
    createdBy: options.createdBy ?? null,
    createdAt: now,
  }).onConflictDoNothing().returning({ id: jobs.id });
  if (row) {
    jobQueued();
    return { id: row.id, created: true };
  }
  const [existing] = await db.select({ id: jobs.id }).from(jobs).where(
    and(eq(jobs.uniqueKey, options.uniqueKey ?? ""), eq(jobs.kind, job.kind)),
  );
  if (!existing) throw new Error(`The ${job.kind} job was neither queued nor found by its unique key.`);
  return { id: existing.id, created: false };
}
