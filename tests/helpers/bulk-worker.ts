/**
 * A runner of bulk emails in a process of its own, on the database file DATABASE_PATH, mailing
 * through SMTP_URL, for the test that kills it mid-send (tests/integration/bulkemails-crash.test.ts).
 * Says "ready" on stdout once it runs.
 */
import { openDatabase } from "../../db/client.ts";
import { bulkEmailJob } from "../../server/bulkemails/job.ts";
import { JobRunner } from "../../server/jobs/runner.ts";
import { testJobDeps } from "./jobs.ts";

const db = await openDatabase({ url: `file:${Deno.env.get("DATABASE_PATH")}` });
const runner = new JobRunner({
  db,
  jobs: [bulkEmailJob],
  deps: await testJobDeps(db, { SMTP_URL: Deno.env.get("SMTP_URL")! }),
  leaseMs: Number(Deno.env.get("LEASE_MS") ?? 1_000),
  pollMs: 50,
  owner: Deno.env.get("RUNNER_NAME"),
});
runner.start();
console.log("ready");
