import { Hono } from "hono";
import { isMigrated } from "../../db/client.ts";
import type { AppEnv } from "../../server/env.ts";
import { ApiError, ok } from "../../server/http/api.ts";

/** GET /api/health: ok once the database answers and holds every committed migration. */
export const health = new Hono<AppEnv>();

health.get("/health", async (c) => {
  if (!(await isMigrated(c.get("db")))) throw new ApiError(503, "The database is not ready yet.");
  return ok(c, { ok: true });
});
