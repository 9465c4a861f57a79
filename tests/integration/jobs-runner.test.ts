import { eq, sql } from "drizzle-orm";
import { afterAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { type Database, openDatabase } from "../../db/client.ts";
import { jobs, jobSteps } from "../../db/schema-jobs.ts";
import { defineJob, PermanentJobFailure } from "../../server/jobs/define.ts";
import { enqueue } from "../../server/jobs/queue.ts";
import { JobRunner } from "../../server/jobs/runner.ts";
import { testDatabaseFile } from "../helpers/db.ts";
import { testClock, testJobDeps } from "../helpers/jobs.ts";

const { db, path } = await testDatabaseFile();
const deps = await testJobDeps(db);

/** A second connection to the same file, as a second process would have. */
async function secondConnection(): Promise<Database> {
  const other = await openDatabase({ url: `file:${path}` });
  afterAll(() => other.$client.close());
  return other;
}

async function jobRow(id: number) {
  const [row] = await db.select().from(jobs).where(eq(jobs.id, id));
  return row;
}

describe("two runners on one database", () => {
  it("never run one job twice, nor one job in both at once", async () => {
    const other = await secondConnection();
    const executions = new Map<number, number>();
    const inFlight = new Set<number>();
    const ranBy = new Map<Database, number>();
    let overlaps = 0;
    const counted = defineJob("test.counted", {
      payload: z.object({ n: z.number() }),
      run: async ({ n }, ctx) => {
        if (inFlight.has(ctx.jobId)) overlaps++;
        inFlight.add(ctx.jobId);
        executions.set(ctx.jobId, (executions.get(ctx.jobId) ?? 0) + 1);
        ranBy.set(ctx.db, (ranBy.get(ctx.db) ?? 0) + 1);
        // Lets the other runner's claims interleave with this job's run.
        await new Promise((resolve) => setTimeout(resolve, 0));
        inFlight.delete(ctx.jobId);
        return { n };
      },
    });
    const JOBS = 120;
    const ids: number[] = [];
    await db.transaction(async (tx) => {
      for (let n = 0; n < JOBS; n++) ids.push((await enqueue(tx, counted, { n })).id);
    });

    const first = new JobRunner({ db, jobs: [counted], deps, concurrency: 3 });
    const second = new JobRunner({ db: other, jobs: [counted], deps, concurrency: 3 });
    await Promise.all([first.drain(), second.drain()]);

    expect(executions.size).toBe(JOBS);
    expect([...executions.values()].every((count) => count === 1)).toBe(true);
    expect(overlaps).toBe(0);
    // Both took part: the test raced two runners, not one after the other.
    expect(ranBy.get(db)).toBeGreaterThan(0);
    expect(ranBy.get(other)).toBeGreaterThan(0);
    const [summary] = await db.select({
      succeeded: sql<number>`sum(status = 'succeeded')`,
      once: sql<number>`sum(attempts = 1)`,
    }).from(jobs).where(eq(jobs.kind, "test.counted"));
    expect(summary).toEqual({ succeeded: JOBS, once: JOBS });
  }, 60_000);
});

describe("a failing job", () => {
  it("is retried with a growing backoff, then stops as failed with its error shown", async () => {
    const clock = testClock();
    let tries = 0;
    const flaky = defineJob("test.flaky", {
      payload: z.object({}),
      maxAttempts: 3,
      retry: { baseMs: 1_000, capMs: 60_000 },
      // deno-lint-ignore require-await
      run: async () => {
        tries++;
        throw new Error("The bank's service answered 503.");
      },
    });
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    // The longest delay the jitter allows, so the test knows when each retry is due.
    const runner = new JobRunner({ db, jobs: [flaky], deps, now: clock.now, random: () => 1 });
    const { id } = await enqueue(db, flaky, {}, { now: new Date(clock.now()) });

    await runner.drain();
    expect(tries).toBe(1);
    let job = await jobRow(id);
    expect(job).toMatchObject({ status: "queued", attempts: 1, error: "The bank's service answered 503." });
    expect(job.runAfter.getTime()).toBe(clock.now() + 1_000);

    clock.advance(999);
    await runner.drain();
    expect(tries).toBe(1);

    clock.advance(1);
    await runner.drain();
    expect(tries).toBe(2);
    job = await jobRow(id);
    expect(job).toMatchObject({ status: "queued", attempts: 2 });
    expect(job.runAfter.getTime()).toBe(clock.now() + 2_000);

    clock.advance(2_000);
    await runner.drain();
    expect(tries).toBe(3);
    job = await jobRow(id);
    expect(job).toMatchObject({
      status: "failed",
      attempts: 3,
      error: "The bank's service answered 503.",
      leaseOwner: null,
    });
    expect(job.finishedAt?.getTime()).toBe(clock.now());
    expect(errors.mock.calls.map((call) => JSON.parse(String(call[0])).msg)).toEqual([
      `jobs: job ${id} (test.flaky) failed after 3 attempt(s): The bank's service answered 503.`,
    ]);

    clock.advance(24 * 60 * 60 * 1000);
    await runner.drain();
    expect(tries).toBe(3);
  });

  it("draws its backoff between half and all of the doubled delay", async () => {
    const { retryDelayMs } = await import("../../server/jobs/backoff.ts");
    const policy = { baseMs: 1_000, capMs: 5_000 };
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, policy, () => 0))).toEqual([500, 1_000, 2_000, 2_500]);
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, policy, () => 1))).toEqual([
      1_000,
      2_000,
      4_000,
      5_000,
    ]);
  });

  it("stops at once when the failure cannot be cured by trying again", async () => {
    const clock = testClock();
    const refused = defineJob("test.refused", {
      payload: z.object({}),
      // deno-lint-ignore require-await
      run: async () => {
        throw new PermanentJobFailure("The statement's account no longer exists.");
      },
    });
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const runner = new JobRunner({ db, jobs: [refused], deps, now: clock.now });
    const { id } = await enqueue(db, refused, {}, { now: new Date(clock.now()) });
    await runner.drain();
    expect(await jobRow(id)).toMatchObject({
      status: "failed",
      attempts: 1,
      error: "The statement's account no longer exists.",
    });
    expect(errors).toHaveBeenCalledOnce();
  });
});

describe("a job whose runners keep dying", () => {
  it("is not started again once it has used its attempts, and fails saying why", async () => {
    const clock = testClock();
    let runs = 0;
    const fatal = defineJob("test.fatal", {
      payload: z.object({}),
      maxAttempts: 2,
      run: () => Promise.resolve(runs++),
    });
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const { id } = await enqueue(db, fatal, {}, { now: new Date(clock.now()) });
    // Its second runner died with it, as the first had: the lease expired, the attempts are used.
    await db.update(jobs).set({
      status: "running",
      attempts: 2,
      leaseOwner: "a runner that died",
      leaseExpiresAt: new Date(clock.now() - 1),
    }).where(eq(jobs.id, id));

    await new JobRunner({ db, jobs: [fatal], deps, now: clock.now }).drain();
    expect(runs).toBe(0);
    const job = await jobRow(id);
    expect(job).toMatchObject({ status: "failed", attempts: 3, leaseOwner: null });
    expect(job.error).toContain("Stopped after 2 attempts that ended without finishing");
    expect(errors).toHaveBeenCalledOnce();
  });
});

describe("a runner that froze past its lease", () => {
  it("loses the job to another runner, and changes nothing when it wakes up", async () => {
    const clock = testClock();
    const other = await secondConnection();
    const { promise: frozen, resolve: froze } = Promise.withResolvers<void>();
    const { promise: thaw, resolve: wakeUp } = Promise.withResolvers<void>();
    let lateError: unknown = null;
    const report = defineJob("test.report", {
      payload: z.object({}),
      run: async (_payload, ctx) => {
        if (ctx.attempt === 1) {
          froze();
          await thaw;
          try {
            await ctx.step("late", () => Promise.resolve("written by the frozen runner"));
          } catch (error) {
            lateError = error;
            throw error;
          }
          return "the frozen runner's result";
        }
        return await ctx.step("write", () => Promise.resolve("written by the new holder"));
      },
    });
    const stuck = new JobRunner({ db, jobs: [report], deps, now: clock.now, leaseMs: 30_000 });
    const rescuer = new JobRunner({ db: other, jobs: [report], deps, now: clock.now, leaseMs: 30_000 });
    const { id } = await enqueue(db, report, {}, { now: new Date(clock.now()) });

    const stuckRun = stuck.drain();
    await frozen;
    // Before its lease expires the job is nobody else's.
    clock.advance(30_000);
    await rescuer.drain();
    expect((await jobRow(id)).leaseOwner).toBe(stuck.owner);

    clock.advance(1);
    await rescuer.drain();
    const taken = await jobRow(id);
    expect(taken).toMatchObject({ status: "succeeded", attempts: 2, result: "written by the new holder" });

    wakeUp();
    await stuckRun;
    expect(String(lateError)).toContain("no longer leased to this runner");
    expect(await jobRow(id)).toEqual(taken);
    const steps = await db.select({ key: jobSteps.stepKey }).from(jobSteps).where(eq(jobSteps.jobId, id));
    expect(steps).toEqual([{ key: "write" }]);
  });
});

describe("a job queued in the runner's process", () => {
  it("starts at once, without waiting for the next poll", async () => {
    const { promise: started, resolve: start } = Promise.withResolvers<void>();
    const prompt = defineJob("test.prompt", { payload: z.object({}), run: () => Promise.resolve(start()) });
    const runner = new JobRunner({ db, jobs: [prompt], deps, pollMs: 60 * 60 * 1000 });
    // The queue was empty at its first look: the next poll is an hour away.
    await runner.start();
    await enqueue(db, prompt, {});
    await started;
    await runner.stop();
  });
});

describe("a runner whose job takes longer than its lease", () => {
  it("renews the lease while the job runs, so no other runner takes it", async () => {
    const clock = testClock();
    const other = await secondConnection();
    const { promise: started, resolve: start } = Promise.withResolvers<void>();
    const { promise: finish, resolve: letFinish } = Promise.withResolvers<void>();
    const slow = defineJob("test.slow", {
      payload: z.object({}),
      run: async () => {
        start();
        await finish;
        return "finished by the first runner";
      },
    });
    // The lease is 600 ms of the test's clock, renewed every 200 ms of real time.
    const first = new JobRunner({ db, jobs: [slow], deps, now: clock.now, leaseMs: 600 });
    const second = new JobRunner({ db: other, jobs: [slow], deps, now: clock.now, leaseMs: 600 });
    const { id } = await enqueue(db, slow, {}, { now: new Date(clock.now()) });
    const running = first.drain();
    await started;
    const claimedUntil = (await jobRow(id)).leaseExpiresAt!.getTime();

    clock.advance(500);
    await vi.waitFor(async () => expect((await jobRow(id)).leaseExpiresAt!.getTime()).toBe(clock.now() + 600), {
      timeout: 5_000,
      interval: 20,
    });
    clock.advance(500);
    expect(clock.now()).toBeGreaterThan(claimedUntil);
    await second.drain();
    expect(await jobRow(id)).toMatchObject({ status: "running", leaseOwner: first.owner, attempts: 1 });

    letFinish();
    await running;
    expect(await jobRow(id)).toMatchObject({ status: "succeeded", result: "finished by the first runner" });
  });
});

describe("a runner whose lease renewal comes late", () => {
  it("does not claim its own running job a second time", async () => {
    const clock = testClock();
    const { promise: started, resolve: start } = Promise.withResolvers<void>();
    const { promise: finish, resolve: letFinish } = Promise.withResolvers<void>();
    let runs = 0;
    const long = defineJob("test.own_long", {
      payload: z.object({}),
      run: async () => {
        runs++;
        start();
        await finish;
      },
    });
    const quick = defineJob("test.own_quick", { payload: z.object({}), run: () => Promise.resolve("quick") });
    const runner = new JobRunner({ db, jobs: [long, quick], deps, now: clock.now, pollMs: 10, concurrency: 3 });
    const { id } = await enqueue(db, long, {}, { now: new Date(clock.now()) });
    runner.start();
    await started;
    // Its lease has expired (the renewal, every 10 s of real time, has not come yet): the next
    // claim looks at it first, being due the earliest.
    clock.advance(31_000);
    const { id: next } = await enqueue(db, quick, {}, { now: new Date(clock.now()) });
    await vi.waitFor(async () => expect((await jobRow(next)).status).toBe("succeeded"), { timeout: 10_000 });
    expect(runs).toBe(1);
    expect(await jobRow(id)).toMatchObject({ status: "running", attempts: 1, leaseOwner: runner.owner });

    letFinish();
    await runner.stop();
    expect(await jobRow(id)).toMatchObject({ status: "succeeded", attempts: 1 });
  });
});

describe("a runner that stops", () => {
  it("aborts its handlers and gives their jobs back for another runner to take at once", async () => {
    const other = await secondConnection();
    const { promise: started, resolve: start } = Promise.withResolvers<void>();
    let runs = 0;
    const long = defineJob("test.long", {
      payload: z.object({}),
      run: async (_payload, ctx) => {
        runs++;
        if (runs > 1) return "finished by the next runner";
        start();
        await new Promise((_resolve, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason)));
      },
    });
    const stopping = new JobRunner({ db, jobs: [long], deps, pollMs: 60_000 });
    const { id } = await enqueue(db, long, {});
    stopping.start();
    await started;
    expect(await jobRow(id)).toMatchObject({ status: "running", leaseOwner: stopping.owner, attempts: 1 });

    await stopping.stop();
    const released = await jobRow(id);
    expect(released).toMatchObject({ status: "queued", leaseOwner: null, leaseExpiresAt: null, attempts: 0 });
    expect(released.runAfter.getTime()).toBeLessThanOrEqual(Date.now());

    await new JobRunner({ db: other, jobs: [long], deps }).drain();
    expect(await jobRow(id)).toMatchObject({ status: "succeeded", attempts: 1, result: "finished by the next runner" });
  });

  it("keeps the lease of a handler that does not stop in time, so no second runner starts it meanwhile", async () => {
    const { promise: started, resolve: start } = Promise.withResolvers<void>();
    const { promise: never, resolve: finallyEnd } = Promise.withResolvers<void>();
    const deaf = defineJob("test.deaf", {
      payload: z.object({}),
      run: async () => {
        start();
        await never;
      },
    });
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const stopping = new JobRunner({ db, jobs: [deaf], deps, pollMs: 60_000 });
    const { id } = await enqueue(db, deaf, {});
    stopping.start();
    await started;
    await stopping.stop(10);
    expect(await jobRow(id)).toMatchObject({ status: "running", leaseOwner: stopping.owner });
    expect(String(warn.mock.calls.at(-1)?.[0])).toContain(`jobs ${id} still running`);
    finallyEnd();
  });
});
