import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { idempotencyKeys } from "../../db/schema.ts";
import { jobs, jobSteps } from "../../db/schema-jobs.ts";
import { FAILED_JOBS_KEPT_MS, FINISHED_JOBS_KEPT_MS, purgeJob } from "../../server/jobs/housekeeping.ts";
import { enqueue } from "../../server/jobs/queue.ts";
import { JobRunner } from "../../server/jobs/runner.ts";
import { rateFeedJob } from "../../server/money/rate-feed-job.ts";
import { currentRates, seedMoney } from "../../server/money/store.ts";
import { testDatabase } from "../helpers/db.ts";
import { testClock, testJobDeps } from "../helpers/jobs.ts";

/** The portal's own scheduled jobs: the hourly purge and the ECB feed. */

const db = await testDatabase();
await seedMoney(db);
const DAY = 24 * 60 * 60 * 1000;

describe("the hourly purge", () => {
  it("clears expired idempotency keys and finished jobs past their keeping time, and nothing else", async () => {
    const clock = testClock();
    const now = clock.now();
    const key = (name: string, age: number) => ({
      scope: "user:1",
      key: name,
      requestHash: "x",
      state: "done" as const,
      lockedUntil: new Date(now - age),
      createdAt: new Date(now - age),
    });
    await db.insert(idempotencyKeys).values([key("expired", 25 * 60 * 60 * 1000), key("fresh", 60_000)]);
    const finished = (status: "succeeded" | "failed", age: number) => ({
      kind: "test.old",
      payload: {},
      status,
      maxAttempts: 1,
      attempts: 1,
      runAfter: new Date(now - age),
      createdAt: new Date(now - age),
      finishedAt: new Date(now - age),
    });
    const old = await db.insert(jobs).values([
      finished("succeeded", FINISHED_JOBS_KEPT_MS + DAY),
      finished("succeeded", FINISHED_JOBS_KEPT_MS - DAY),
      finished("failed", FINISHED_JOBS_KEPT_MS + DAY),
      finished("failed", FAILED_JOBS_KEPT_MS + DAY),
    ]).returning({ id: jobs.id });
    await db.insert(jobSteps).values({
      jobId: old[0].id,
      stepKey: "done",
      begunAt: new Date(now),
      doneAt: new Date(now),
    });

    const deps = await testJobDeps(db);
    const { id } = await enqueue(db, purgeJob, {}, { now: new Date(now) });
    await new JobRunner({ db, jobs: [purgeJob], deps, now: clock.now }).drain();

    expect(await db.select({ status: jobs.status, result: jobs.result }).from(jobs).where(eq(jobs.id, id))).toEqual([
      { status: "succeeded", result: { idempotencyKeys: 1, jobs: 2 } },
    ]);
    expect((await db.select({ key: idempotencyKeys.key }).from(idempotencyKeys)).map((row) => row.key)).toEqual([
      "fresh",
    ]);
    const left = await db.select({ id: jobs.id }).from(jobs).where(eq(jobs.kind, "test.old")).orderBy(jobs.id);
    expect(left.map((row) => row.id)).toEqual([old[1].id, old[2].id]);
    expect(await db.select().from(jobSteps).where(eq(jobSteps.jobId, old[0].id))).toEqual([]);
  });
});

describe("the ECB feed job", () => {
  it("reads the feed at RATES_URL and makes its rates current", async () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
  <gesmes:subject>Reference rates</gesmes:subject>
  <gesmes:Sender><gesmes:name>European Central Bank</gesmes:name></gesmes:Sender>
  <Cube><Cube time="2026-11-24"><Cube currency="USD" rate="1.16"/><Cube currency="GBP" rate="0.87"/></Cube></Cube>
</gesmes:Envelope>`;
    const feed = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () => new Response(xml, { headers: { "content-type": "text/xml" } }),
    );
    afterAll(() => feed.shutdown());
    const clock = testClock(Date.UTC(2026, 10, 25, 12, 0, 0));
    const deps = await testJobDeps(db, { RATES_URL: `http://127.0.0.1:${feed.addr.port}/daily.xml` });
    const { id } = await enqueue(db, rateFeedJob, {}, { now: new Date(clock.now()) });
    await new JobRunner({ db, jobs: [rateFeedJob], deps, now: clock.now }).drain();

    const [job] = await db.select().from(jobs).where(eq(jobs.id, id));
    expect(job).toMatchObject({ status: "succeeded", result: { outcome: "updated" } });
    const rates = await currentRates(db);
    expect(rates).toMatchObject({ source: "ecb", as_of: "2026-11-24" });
  });
});
