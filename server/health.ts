import { isMigrated } from "../db/client.ts";
import type { Database } from "../db/client.ts";
import { Unavailable } from "./errors.ts";

/** Ok once the database answers and holds every committed migration. */
export async function readiness(db: Database): Promise<{ ok: true }> {
  if (!(await isMigrated(db))) throw new Unavailable("The database is not ready yet.");
  return { ok: true };
}
