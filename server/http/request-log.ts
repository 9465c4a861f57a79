import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { currentRequestId, log, withLogContext } from "../log.ts";
import type { AppEnv } from "../env.ts";
import type { HttpMetrics } from "../metrics.ts";

export const REQUEST_ID_HEADER = "X-Request-Id";

/** The route of a request no route answered: one label for every unknown path (decision 041). */
export const UNMATCHED_ROUTE = "(unmatched)";

/**
 * A request's id: 16 hex characters (64 random bits), short enough for a customer to read out from
 * an error page and unique enough to find one request among years of logs. Always ours: an id sent
 * by the client (or a proxy) is logged beside it as `upstream_id`, never trusted in its place, so
 * that nobody can make their requests' lines look like someone else's.
 */
export function newRequestId(): string {
  const bytes = crypto.getRandomValues(ID_BYTES);
  let id = "";
  for (const b of bytes) id += HEX[b];
  return id;
}

// Every request makes one: a table and one reused buffer instead of an array of strings joined.
const ID_BYTES = new Uint8Array(8);
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/** The id of the request being answered (for error answers), else a fresh one. */
export function requestIdOf(c: Context<AppEnv>): string {
  return c.get("requestId") ?? currentRequestId() ?? newRequestId();
}

/**
 * The pattern of the route that answered (`/api/account/conversions/:id`), not the raw path: the
 * metrics' labels and the log's `route` stay few, and hold no ids. Middleware is registered for
 * every method ("ALL"); the first route with a method of its own is the handler that answered.
 * The built assets are one route; anything else no route answered is UNMATCHED_ROUTE.
 */
export function routeOf(c: Context): string {
  try {
    const handler = matchedRoutes(c).find((route) => route.method !== "ALL" && route.path !== "/*");
    if (handler) return handler.path;
  } catch { /* no match result (a request refused before routing) */ }
  return c.req.path.startsWith("/assets/") ? "/assets/*" : UNMATCHED_ROUTE;
}

/**
 * The outermost layer: gives the request its id (on `c.var.requestId`, on every log line logged
 * while it is answered, and on the answer as X-Request-Id), then logs one line per request
 * (method, route, status, duration) and counts it in the metrics; to an administrator the
 * duration is also on the answer, as Server-Timing.
 */
export function requestLog(metrics: HttpMetrics): MiddlewareHandler<AppEnv> {
  return async function requestLogging(c, next) {
    const id = newRequestId();
    const started = performance.now();
    c.set("requestId", id);
    const upstream = c.req.header(REQUEST_ID_HEADER)?.slice(0, 128);
    await withLogContext({ request_id: id }, async () => {
      // At debug level, the start too: what was in flight when something stopped.
      log.debug("request started", { method: c.req.method, path: c.req.path, upstream_id: upstream });
      try {
        await next();
      } finally {
        const duration = performance.now() - started;
        c.res.headers.set(REQUEST_ID_HEADER, id);
        // The server's own time, apart from the network and the client's queue: what the
        // benchmarks' budgets are about (docs/PERFORMANCE.md). To administrators only: to anyone
        // else, a console call must answer exactly as an unknown one, its time included.
        if (c.get("user")?.level === "Admin") {
          c.res.headers.set("Server-Timing", `app;dur=${duration.toFixed(1)}`);
        }
        recordRequest(metrics, {
          id,
          method: c.req.method,
          route: routeOf(c),
          path: c.req.path,
          status: c.res.status,
          durationMs: duration,
          userId: c.get("user")?.id,
          onBehalfOf: c.get("onBehalf")?.id,
          upstream,
        });
      }
    });
  };
}

/** A request answered, as its log line and the metrics know it. */
export interface AnsweredRequest {
  id: string;
  method: string;
  /** The route's pattern (routeOf), not the path. */
  route: string;
  path: string;
  status: number;
  durationMs: number;
  userId?: number;
  onBehalfOf?: number;
  /** The id a client or a proxy sent as X-Request-Id, if any. */
  upstream?: string;
}

/**
 * Its count in the metrics and its one line in the log, for every answer: those of the app's
 * layers (requestLog) and the kept public pages answered before them (server/http/front-door.ts).
 */
export function recordRequest(metrics: HttpMetrics, answered: AnsweredRequest): void {
  metrics.observe(answered.method, answered.route, answered.status, answered.durationMs / 1000);
  const fields = {
    request_id: answered.id,
    method: answered.method,
    route: answered.route,
    path: answered.path,
    status: answered.status,
    duration_ms: Math.round(answered.durationMs * 10) / 10,
    // Who asked (an id, no personal data): the customer's other requests are then a search away.
    user_id: answered.userId,
    on_behalf_of: answered.onBehalfOf,
    ...(answered.upstream ? { upstream_id: answered.upstream } : {}),
  };
  if (answered.status >= 500) log.warn("request failed", fields);
  else log.info("request", fields);
}
