import { Hono } from "hono";
import * as calls from "../../lib/contracts/jobs.ts";
import { currentAccount } from "../../server/accounts/current.ts";
import type { AppEnv } from "../../server/env.ts";
import { route } from "../../server/http/route.ts";
import { accountJob, consoleJobWithSteps, listJobs } from "../../server/jobs/status.ts";

/** Background jobs' status: a customer's own, and every job for administrators (issue 10). */

export const jobCalls = new Hono<AppEnv>();

route(
  jobCalls,
  calls.getAccountJob,
  async (c, { params }) => await accountJob(c.get("db"), (await currentAccount(c)).accountId, params.id),
);

route(jobCalls, calls.listConsoleJobs, async (c, { query }) => await listJobs(c.get("db"), query));

route(jobCalls, calls.getConsoleJob, async (c, { params }) => await consoleJobWithSteps(c.get("db"), params.id));
