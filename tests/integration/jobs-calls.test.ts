import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { z } from "zod";
import { accountMembers } from "../../db/schema.ts";
import { defineJob } from "../../server/jobs/define.ts";
import { enqueue } from "../../server/jobs/queue.ts";
import { JobRunner } from "../../server/jobs/runner.ts";
import { type Admin, expectStatus } from "../helpers/client.ts";
import { testJobDeps } from "../helpers/jobs.ts";
import { type MoneyApp, moneyApp, type OpenCustomer, openCustomer } from "../helpers/money.ts";

/**
 * GET account/jobs/{id}: a customer follows their own account's job (another account's is a 404);
 * GET console/jobs and console/jobs/{id}: administrators see every job (and nobody else does).
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;
let owner: OpenCustomer;
let stranger: OpenCustomer;
let ownersJob: number;
let portalJob: number;

const statement = defineJob("test.statement", {
  payload: z.object({ lines: z.number() }),
  run: async ({ lines }, ctx) => {
    await ctx.step("lines", () => Promise.resolve(lines));
    await ctx.progress(lines, lines, "All lines written");
    return { statement_id: 7 };
  },
});

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  owner = await openCustomer(t);
  stranger = await openCustomer(t);
  const [{ accountId }] = await t.db.select({ accountId: accountMembers.accountId }).from(accountMembers)
    .where(eq(accountMembers.userId, owner.id));
  ownersJob = (await enqueue(t.db, statement, { lines: 3 }, { accountId, createdBy: owner.id })).id;
  portalJob = (await enqueue(t.db, statement, { lines: 1 })).id;
  await new JobRunner({ db: t.db, jobs: [statement], deps: await testJobDeps(t.db) }).drain();
});

describe("a customer's job", () => {
  test("answers its status, progress and result to its account", async () => {
    const res = await owner.client.get(`account/jobs/${ownersJob}`);
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({
      id: ownersJob,
      kind: "test.statement",
      status: "succeeded",
      progress: { done: 3, total: 3, message: "All lines written" },
      result: { statement_id: 7 },
      error: null,
    });
  });

  test("is not found for another account, nor is the portal's own job", async () => {
    expectStatus(await stranger.client.get(`account/jobs/${ownersJob}`), 404);
    expectStatus(await owner.client.get(`account/jobs/${portalJob}`), 404);
    expectStatus(await owner.client.get("account/jobs/999999"), 404);
  });
});

describe("the console's jobs", () => {
  test("lists every job by status and kind, newest first", async () => {
    const res = await admin.client.get("console/jobs?status=succeeded&kind=test.statement");
    expectStatus(res, 200);
    expect(res.json.body.total).toBe(2);
    expect(res.json.body.items.map((job: { id: number }) => job.id)).toEqual([portalJob, ownersJob]);
    const none = await admin.client.get("console/jobs?status=failed");
    expect(none.json.body).toMatchObject({ items: [], total: 0 });
  });

  test("shows one job with its recorded steps", async () => {
    const res = await admin.client.get(`console/jobs/${ownersJob}`);
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({ attempts: 1, payload: { lines: 3 }, created_by: owner.id });
    expect(res.json.body.steps).toEqual([expect.objectContaining({ key: "lines", result: 3 })]);
  });

  test("refuses a status that is not one, naming the field", async () => {
    const res = await admin.client.get("console/jobs?status=done");
    expectStatus(res, 422);
    expect(res.text).toContain("status");
  });

  test("are not there for customers", async () => {
    expectStatus(await owner.client.get("console/jobs"), 404);
    expectStatus(await owner.client.get(`console/jobs/${ownersJob}`), 404);
  });
});
