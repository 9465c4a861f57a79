import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { users } from "../../db/schema.ts";
import { jobs } from "../../db/schema-jobs.ts";
import { defineJob } from "../../server/jobs/define.ts";
import { enqueue } from "../../server/jobs/queue.ts";
import { JobRunner } from "../../server/jobs/runner.ts";
import { captureLog } from "../../server/log.ts";
import { saveProfile } from "../../server/profile/store.ts";
import { expectStatus, personalProfile } from "../helpers/client.ts";
import { testDatabaseFile } from "../helpers/db.ts";
import { test } from "../helpers/fixtures.ts";
import { testJobDeps } from "../helpers/jobs.ts";

/**
 * What a customer trusts us with stays out of the server's log and the console's record of a
 * failed job: when saving their profile fails (the database refuses the write), the operator reads
 * which statement failed and why, never the values the customer typed: their passport number, date
 * of birth, phone and address.
 */

/** The database refuses every new profile, as a full disk or a broken file would. */
const REFUSE_PROFILES =
  "CREATE TRIGGER refuse_profiles BEFORE INSERT ON profiles BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END";
/** What the customer typed, as saved (the phone in E.164) and as typed. */
const TYPED = { identity: "PX9912345", dob: "1987-03-09", phone: "+44 7911 123457" };
const SECRETS = ["PX9912345", "1987-03-09", "7911123457", "7911 123457", "Downing"];
const WHAT_FAILED = /^Failed query: insert into "profiles" .*: disk I\/O error$/s;

vi.setConfig({ testTimeout: 30_000 });

let restore: (() => void) | null = null;
afterEach(() => {
  restore?.();
  restore = null;
});

describe("a profile save that fails", () => {
  test("logs what failed, without the customer's passport number, date of birth, phone or address", async ({ app, customer }) => {
    await app.db.$client.execute(REFUSE_PROFILES);
    const lines: string[] = [];
    restore = captureLog((line) => lines.push(line), "warn");
    try {
      const res = await customer.client.post("account/profile", personalProfile(TYPED));
      expectStatus(res, 500);
      expect(res.json.error).toBe("Unexpected error occurred");
    } finally {
      await app.db.$client.execute("DROP TRIGGER refuse_profiles");
    }
    const logged = lines.join("\n");
    // The operator still reads what went wrong: the statement and the database's reason.
    const failure = lines.map((line) => JSON.parse(line)).find((line) => line.msg === "request failed" && line.error);
    expect(failure.error.message).toMatch(WHAT_FAILED);
    // Not what the customer typed.
    for (const secret of SECRETS) expect(logged).not.toContain(secret);
  });
});

describe("a background job that fails on a refused write", () => {
  it("keeps the statement and the reason for the console, without the customer's details", async () => {
    const { db } = await testDatabaseFile();
    const deps = await testJobDeps(db);
    const [person] = await db.insert(users).values({ username: "migrated@portal.test", createdAt: new Date() })
      .returning({ id: users.id });
    await db.$client.execute(REFUSE_PROFILES);
    // A job that saves what a customer gave, as importing a customer from the old system does.
    const saving = defineJob("test.saves-a-profile", {
      payload: z.object({ userId: z.number() }),
      maxAttempts: 1,
      run: async ({ userId }, ctx) => {
        const customer = { id: userId, type: "Personal" as const, account: false, identity: false };
        await saveProfile(ctx.db, customer, personalProfile(TYPED), ctx.now(), "support@portal.test");
      },
    });
    const lines: string[] = [];
    restore = captureLog((line) => lines.push(line), "warn");
    const { id } = await enqueue(db, saving, { userId: person.id });
    await new JobRunner({ db, jobs: [saving], deps }).drain();

    const [job] = await db.select().from(jobs).where(eq(jobs.id, id));
    expect(job.status).toBe("failed");
    expect(job.error).toMatch(WHAT_FAILED);
    for (const secret of SECRETS) {
      expect(job.error).not.toContain(secret);
      expect(lines.join("\n")).not.toContain(secret);
    }
  });
});
