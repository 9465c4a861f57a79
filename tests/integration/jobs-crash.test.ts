import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { jobs, jobSteps } from "../../db/schema-jobs.ts";
import { enqueue } from "../../server/jobs/queue.ts";
import { rowsAndMails } from "../helpers/crash-job.ts";
import { testDatabaseFile } from "../helpers/db.ts";
import { workerProcesses } from "../helpers/worker-processes.ts";

/**
 * Issue 10: a runner killed mid-job (SIGKILL, no chance to clean up) finishes the job after a
 * restart with each of its effects made once: each row written once, each mail sent once.
 */

const { db, path } = await testDatabaseFile();
await db.run(sql`CREATE TABLE crash_rows (job_id INTEGER NOT NULL, item INTEGER NOT NULL)`);

/** Starts tests/helpers/job-worker.ts on this database as a process of its own. */
const startWorker = workerProcesses("tests/helpers/job-worker.ts", { DATABASE_PATH: path, LEASE_MS: "1000" });

describe("a runner killed in the middle of a job", () => {
  it("is resumed by the next runner, and each row and each mail happens exactly once", async () => {
    const received: { item: number; key: string }[] = [];
    const { promise: midSend, resolve: mailThreeArrived } = Promise.withResolvers<void>();
    const { promise: killed, resolve: afterKill } = Promise.withResolvers<void>();
    // The recorder holds the answer to the first runner's fourth mail: the runner is killed after
    // the mail arrived and before it could record it as sent.
    const recorder = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
      const mail = await request.json() as { item: number; key: string };
      received.push(mail);
      if (mail.item === 3 && received.filter((m) => m.item === 3).length === 1) {
        mailThreeArrived();
        await killed;
      }
      return new Response("accepted");
    });
    onTestFinished(() => recorder.shutdown());
    const items = 6;
    const { id } = await enqueue(db, rowsAndMails, { items, recorder: `http://127.0.0.1:${recorder.addr.port}/` });

    const first = startWorker("first");
    await midSend;
    first.child.kill("SIGKILL");
    await first.child.status;
    afterKill();

    const [interrupted] = await db.select().from(jobs).where(eq(jobs.id, id));
    expect(interrupted).toMatchObject({ status: "running", leaseOwner: "first", attempts: 1, progressDone: 3 });
    const [mailThree] = await db.select().from(jobSteps).where(
      and(eq(jobSteps.jobId, id), eq(jobSteps.stepKey, "mail 3")),
    );
    expect(mailThree.doneAt).toBeNull();

    const second = startWorker("second");
    await vi.waitFor(async () => {
      const [job] = await db.select({ status: jobs.status }).from(jobs).where(eq(jobs.id, id));
      if (job.status !== "succeeded") throw new Error(`The job is ${job.status}. The runner said:\n${second.log()}`);
    }, { timeout: 90_000, interval: 100 });

    const rows = await db.all<{ item: number; times: number }>(
      sql`SELECT item, count(*) AS times FROM crash_rows WHERE job_id = ${id} GROUP BY item ORDER BY item`,
    );
    expect(rows).toEqual(Array.from({ length: items }, (_, item) => ({ item, times: 1 })));
    expect(received.map((mail) => mail.item).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(new Set(received.map((mail) => mail.key)).size).toBe(items);

    const [done] = await db.select().from(jobs).where(eq(jobs.id, id));
    expect(done).toMatchObject({ attempts: 2, progressDone: items, progressTotal: items, result: { items } });
    const mailSteps = await db.select({ key: jobSteps.stepKey, result: jobSteps.result }).from(jobSteps).where(
      and(eq(jobSteps.jobId, id), sql`${jobSteps.stepKey} LIKE 'mail %'`),
    ).orderBy(jobSteps.stepKey);
    expect(mailSteps.map((step) => step.result)).toEqual(["sent", "sent", "sent", "in doubt", "sent", "sent"]);
  }, 150_000);

  it(
    "killed at a random moment, leaves each row once and each mail at most once, a missing one reported in doubt",
    async () => {
      const received: number[] = [];
      const items = 40;
      // The kill comes after a random number of mails, and a random moment after that one.
      const killAfter = 5 + Math.floor(Math.random() * 25);
      const { promise: reached, resolve: reach } = Promise.withResolvers<void>();
      const recorder = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
        const mail = await request.json() as { item: number };
        received.push(mail.item);
        if (received.length === killAfter) reach();
        return new Response("accepted");
      });
      onTestFinished(() => recorder.shutdown());
      const { id } = await enqueue(db, rowsAndMails, { items, recorder: `http://127.0.0.1:${recorder.addr.port}/` });

      const first = startWorker("first at random");
      await reached;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 30));
      first.child.kill("SIGKILL");
      await first.child.status;

      const second = startWorker("second at random");
      await vi.waitFor(async () => {
        const [job] = await db.select({ status: jobs.status }).from(jobs).where(eq(jobs.id, id));
        if (job.status !== "succeeded") throw new Error(`The job is ${job.status}. The runner said:\n${second.log()}`);
      }, { timeout: 90_000, interval: 100 });

      const rows = await db.all<{ item: number; times: number }>(
        sql`SELECT item, count(*) AS times FROM crash_rows WHERE job_id = ${id} GROUP BY item ORDER BY item`,
      );
      expect(rows).toEqual(Array.from({ length: items }, (_, item) => ({ item, times: 1 })));
      const times = (item: number) => received.filter((m) => m === item).length;
      expect(Array.from({ length: items }, (_, item) => item).filter((item) => times(item) > 1)).toEqual([]);
      const mailSteps = await db.select({ key: jobSteps.stepKey, result: jobSteps.result }).from(jobSteps).where(
        and(eq(jobSteps.jobId, id), sql`${jobSteps.stepKey} LIKE 'mail %'`),
      );
      const inDoubt = mailSteps.filter((step) => step.result === "in doubt").map((step) => Number(step.key.slice(5)));
      // Only the mail being sent at the kill can be in doubt; every mail not received is one of those.
      expect(inDoubt.length).toBeLessThanOrEqual(1);
      const missing = Array.from({ length: items }, (_, item) => item).filter((item) => times(item) === 0);
      expect(missing.every((item) => inDoubt.includes(item))).toBe(true);
      expect(mailSteps).toHaveLength(items);
    },
    60_000,
  );
});
