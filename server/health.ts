import { isMigrated } from "../db/client.ts";
import type { Database } from "../db/client.ts";
import { Unavailable } from "./errors.ts";

export interface Health {
  ok: true;
  database: { round_trip_ms: number };
  jobs: { queued: number; running: number; failed: number };
}

/**
 * Ok once the database answers and holds every committed migration, with what an operator looks at
 * first: the database's round-trip time (one `SELECT 1`, a read: a busy writer does not slow it)
 * and the job queue's depth (counted on the claim index, so as cheap as the queue is short).
 */
export async function readiness(db: Database): Promise<Health> {
  if (!(await isMigrated(db))) throw new Unavailable("The database is not ready yet.");
  const started = performance.now();
  await db.$client.execute("SELECT 1");
  const roundTrip = performance.now() - started;
  const { rows } = await db.$client.execute(
    "SELECT status, count(*) AS n FROM jobs WHERE status IN ('queued', 'running', 'failed') GROUP BY status",
  );
  const jobs = { queued: 0, running: 0, failed: 0 };
  for (const row of rows) jobs[String(row.status) as keyof typeof jobs] = Number(row.n);
  return { ok: true, database: { round_trip_ms: Math.round(roundTrip * 100) / 100 }, jobs };
}
