import { eq, like } from "drizzle-orm";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { openDatabase } from "../../db/client.ts";
import { jobs } from "../../db/schema-jobs.ts";
import { defineJob } from "../../server/jobs/define.ts";
import { defineSchedule, enqueueSlot, Scheduler, slotAt } from "../../server/jobs/schedules.ts";
import { testDatabaseFile } from "../helpers/db.ts";

const { db, path } = await testDatabaseFile();
/** The second process's connection to the same file. */
const other = await openDatabase({ url: `file:${path}` });
afterAll(() => other.$client.close());

const report = defineJob("test.hourly_report", {
  payload: z.object({ hour: z.string() }),
  run: () => Promise.resolve(),
});
const hourly = defineSchedule("test.hourly_report", {
  pattern: "0 * * * *",
  job: report,
  payload: (slot) => ({ hour: slot.toISOString() }),
});

const queued = async () =>
  await db.select({ key: jobs.uniqueKey, payload: jobs.payload, runAfter: jobs.runAfter }).from(jobs)
    .where(eq(jobs.kind, report.kind)).orderBy(jobs.id);

afterEach(() => {
  vi.useRealTimers();
});

describe("a schedule's slots", () => {
  it("are the times the pattern was due, a late firing still its own slot", () => {
    expect(slotAt(hourly, new Date("2026-11-25T10:00:00.000Z"))).toEqual(new Date("2026-11-25T10:00:00.000Z"));
    expect(slotAt(hourly, new Date("2026-11-25T10:00:00.900Z"))).toEqual(new Date("2026-11-25T10:00:00.000Z"));
    expect(slotAt(hourly, new Date("2026-11-25T10:59:59.000Z"))).toEqual(new Date("2026-11-25T10:00:00.000Z"));
    const sixHourly = { pattern: "0 */6 * * *" };
    expect(slotAt(sixHourly, new Date("2026-11-25T17:30:00.000Z"))).toEqual(new Date("2026-11-25T12:00:00.000Z"));
  });

  it("refuse a pattern that is not one, when the schedule is declared", () => {
    expect(() => defineSchedule("test.wrong", { pattern: "every hour", job: report, payload: () => ({ hour: "" }) }))
      .toThrow();
  });
});

describe("two processes running the same schedule", () => {
  it("queue its job once per slot: at start for the slot they missed, and at each slot after", async () => {
    vi.useFakeTimers({ now: new Date("2026-11-25T10:59:59.500Z"), toFake: ["setTimeout", "clearTimeout", "Date"] });
    const first = new Scheduler(db, [hourly]);
    const second = new Scheduler(other, [hourly]);
    await Promise.all([first.start(), second.start()]);
    expect(await queued()).toEqual([{
      key: "schedule:test.hourly_report@2026-11-25T10:00:00.000Z",
      payload: { hour: "2026-11-25T10:00:00.000Z" },
      runAfter: new Date("2026-11-25T10:00:00.000Z"),
    }]);

    // The clock moves only while no write is waiting: the database's own time limits run on it too.
    await vi.advanceTimersByTimeAsync(1_000);
    await Promise.all([first.settled(), second.settled()]);
    expect(await queued()).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(60 * 60 * 1000);
    await Promise.all([first.settled(), second.settled()]);
    await Promise.all([first.stop(), second.stop()]);
    expect((await queued()).map((job) => job.key)).toEqual([
      "schedule:test.hourly_report@2026-11-25T10:00:00.000Z",
      "schedule:test.hourly_report@2026-11-25T11:00:00.000Z",
      "schedule:test.hourly_report@2026-11-25T12:00:00.000Z",
    ]);
  });

  it("queue one job when both ask for the same slot at the same moment", async () => {
    const slot = new Date("2026-11-26T00:00:00.000Z");
    const answers = await Promise.all([enqueueSlot(db, hourly, slot), enqueueSlot(other, hourly, slot)]);
    expect(answers.map((answer) => answer.created).sort()).toEqual([false, true]);
    expect(answers[0].id).toBe(answers[1].id);
    const rows = await db.select({ id: jobs.id }).from(jobs).where(like(jobs.uniqueKey, "%2026-11-26T00:00:00%"));
    expect(rows).toHaveLength(1);
  });
});
