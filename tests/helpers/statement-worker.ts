/**
 * A job runner of statements in a process of its own, on the database file DATABASE_PATH, for the
 * test that kills it mid-statement (tests/integration/statements-crash.test.ts). Says "ready" once it runs.
 */
import { openDatabase } from "../../db/client.ts";
import { JobRunner } from "../../server/jobs/runner.ts";
import { statementJob } from "../../server/statements/job.ts";
import { testJobDeps } from "./jobs.ts";

const db = await openDatabase({ url: `file:${Deno.env.get("DATABASE_PATH")}` });
const runner = new JobRunner({
  db,
  jobs: [statementJob],
  deps: await testJobDeps(db),
  leaseMs: Number(Deno.env.get("LEASE_MS") ?? 1_000),
  pollMs: 50,
  owner: Deno.env.get("RUNNER_NAME"),
});
runner.start();
console.log("ready");
