import { and, eq } from "drizzle-orm";
import { extractText, getDocumentProxy } from "unpdf";
import { describe, expect, it, vi } from "vitest";
import { accounts, users } from "../../db/schema.ts";
import { jobs, jobSteps } from "../../db/schema-jobs.ts";
import { statements } from "../../db/schema-statements.ts";
import { creditReceipt } from "../../server/ledger/movements.ts";
import { requestStatement } from "../../server/statements/service.ts";
import { testDatabaseFile } from "../helpers/db.ts";
import { workerProcesses } from "../helpers/worker-processes.ts";

/**
 * A statement's job killed (SIGKILL) while it draws the PDF is resumed by another process's runner,
 * which makes the statement once: one file, stored by one step, with every line on it.
 */

const { db, path } = await testDatabaseFile();
const LINES = 3_000;

const startWorker = workerProcesses("tests/helpers/statement-worker.ts", { DATABASE_PATH: path, LEASE_MS: "1000" });

describe("a statement's job killed while it draws the PDF", () => {
  it("is finished by the next runner, the file made and stored once", async () => {
    const [user] = await db.insert(users).values({ username: "crash@portal.test", level: "User" }).returning({
      id: users.id,
    });
    const [account] = await db.insert(accounts).values({
      accountRef: "P00000042",
      type: "Personal",
      name: "Crash Statement",
      openedAt: new Date(),
    }).returning({ id: accounts.id });
    await db.transaction(async (tx) => {
      for (let i = 1; i <= LINES; i++) {
        await creditReceipt(tx, { accountId: account.id, currency: "GBP", amount: 100, reference: `crash-${i}` });
      }
    });
    const today = new Date().toISOString().slice(0, 10);
    const { job, statement } = await requestStatement(db, { accountId: account.id, userId: user.id }, {
      currency: "GBP",
      from: today,
      to: today,
      format: "pdf",
    }, new Date());

    const first = startWorker("first");
    // Killed once it has written some of the lines and not all.
    await vi.waitFor(async () => {
      const [row] = await db.select({ done: jobs.progressDone }).from(jobs).where(eq(jobs.id, job.id));
      if (!row.done || row.done < 500) throw new Error(`Not drawing yet. The runner said:\n${first.log()}`);
    }, { timeout: 60_000, interval: 20 });
    first.child.kill("SIGKILL");
    await first.child.status;
    const [interrupted] = await db.select().from(jobs).where(eq(jobs.id, job.id));
    expect(interrupted).toMatchObject({ status: "running", leaseOwner: "first", attempts: 1 });
    const [unmade] = await db.select({ readyAt: statements.readyAt }).from(statements).where(
      eq(statements.id, statement.id),
    );
    expect(unmade.readyAt).toBeNull();

    const second = startWorker("second");
    await vi.waitFor(async () => {
      const [row] = await db.select({ status: jobs.status }).from(jobs).where(eq(jobs.id, job.id));
      if (row.status !== "succeeded") throw new Error(`The job is ${row.status}. The runner said:\n${second.log()}`);
    }, { timeout: 90_000, interval: 100 });

    const [done] = await db.select().from(jobs).where(eq(jobs.id, job.id));
    expect(done).toMatchObject({ attempts: 2, leaseOwner: null, progressDone: LINES, progressTotal: LINES });
    const steps = await db.select().from(jobSteps).where(
      and(eq(jobSteps.jobId, job.id), eq(jobSteps.stepKey, "store the file")),
    );
    expect(steps).toHaveLength(1);
    const [made] = await db.select().from(statements).where(eq(statements.id, statement.id));
    expect(made.lineCount).toBe(LINES);
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(made.content!)), { mergePages: true });
    expect(text).toContain("Account reference: P00000042");
    expect(text).toContain(`Closing balance on ${today}: 3,000.00 GBP`);
  }, 180_000);
});
