import { Hono } from "hono";
import * as calls from "../../lib/contracts/health.ts";
import type { AppEnv } from "../../server/env.ts";
import { readiness } from "../../server/health.ts";
import { route } from "../../server/http/route.ts";

/** GET /api/health, for load balancers and deployment checks. */
export const health = new Hono<AppEnv>();

route(health, calls.health, (c) => readiness(c.get("db")));
