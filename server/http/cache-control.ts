import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";

/**
 * The calls whose answer is the same for everyone and holds nothing personal, and which set their
 * own Cache-Control: the OpenAPI document (decision 042).
 */
export const SHARED_ANSWERS: ReadonlySet<string> = new Set(["/api/openapi.json"]);

/**
 * Nothing personal is kept by a browser's cache, its back button, or a proxy (decision 023): every
 * call under /api/ and every page a signed-in person sees is answered `Cache-Control: no-store`,
 * whatever its status. A visitor's public pages and the built assets keep their own headers.
 */
export function noStoreWhenPersonal(): MiddlewareHandler<AppEnv> {
  return async function noStore(c, next) {
    await next();
    if (SHARED_ANSWERS.has(c.req.path) && c.res.status < 400) return;
    if (c.req.path.startsWith("/api/") || c.get("user")) c.res.headers.set("cache-control", "no-store");
  };
}
