import { and, inArray, lt } from "drizzle-orm";
import { z } from "zod";
import { jobs } from "../../db/schema-jobs.ts";
import { purgeExpiredIdempotencyKeys } from "../http/idempotency.ts";
import { defineJob } from "./define.ts";
import { defineSchedule } from "./schedules.ts";

/** How long a finished job stays readable (its customer's status call, the console's list). */
export const FINISHED_JOBS_KEPT_MS = 30 * 24 * 60 * 60 * 1000;
/** Failed jobs stay longer: someone may still be finding out why. */
export const FAILED_JOBS_KEPT_MS = 90 * 24 * 60 * 60 * 1000;

/**
 * The hourly clearing of what has expired: idempotency keys (kept 24 hours), sessions (at most
 * 12), and finished jobs past their keeping time. Each delete is idempotent, so no steps are needed:
 * a run interrupted half-way does the rest when it is resumed.
 */
export const purgeJob = defineJob("housekeeping.purge", {
  payload: z.object({}),
  maxAttempts: 2,
  run: async (_payload, ctx) => {
    const now = ctx.now();
    const idempotencyKeys = await purgeExpiredIdempotencyKeys(ctx.db, now);
    await ctx.deps.services.sessions.purge();
    const finished = await ctx.db.delete(jobs).where(
      and(
        inArray(jobs.status, ["succeeded", "cancelled"]),
        lt(jobs.finishedAt, new Date(now.getTime() - FINISHED_JOBS_KEPT_MS)),
      ),
    );
    const failed = await ctx.db.delete(jobs).where(
      and(inArray(jobs.status, ["failed"]), lt(jobs.finishedAt, new Date(now.getTime() - FAILED_JOBS_KEPT_MS))),
    );
    return { idempotencyKeys, jobs: finished.rowsAffected + failed.rowsAffected };
  },
});

export const purgeSchedule = defineSchedule("housekeeping.purge", {
  pattern: "0 * * * *",
  job: purgeJob,
  payload: () => ({}),
});
