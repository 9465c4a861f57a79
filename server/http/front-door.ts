/**
 * What the portal answers before any of the app's layers (decision 059): a public page kept for
 * every visitor (decision 058), as bytes already made. Everything else, and every case this cannot
 * settle without waiting (the versions or the redirects table due for a read, a stop under way),
 * goes through the layers as before, which read what is due and keep the page again.
 *
 * Why in front of Hono and not as its first layer: for a kept page the routing, the chain of
 * layers and the request's log context cost more than the answer itself (docs/PERFORMANCE.md,
 * "Kept pages at the front door, and the first paint"). The answer still gets what every answer
 * gets from the outer layers: its request id (X-Request-Id), its line in the log and its count in
 * the metrics.
 */
import type { Hono } from "hono";
import type { AppEnv } from "../env.ts";
import type { HttpMetrics } from "../metrics.ts";
import type { PageCache } from "../render/page-cache.ts";
import type { Draining } from "./draining.ts";
import type { RedirectTable } from "./redirects.ts";
import { newRequestId, recordRequest, REQUEST_ID_HEADER } from "./request-log.ts";

export interface FrontDoorParts {
  cache: PageCache;
  redirects: RedirectTable;
  metrics: HttpMetrics;
  draining: Draining;
}

/** The path of a request's URL: what follows the origin, up to the query. */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const query = url.indexOf("?", start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}

/** The kept answer for this request, with its request id, logged and counted; null to go through the app. */
export function keptAnswer(request: Request, { cache, redirects, metrics, draining }: FrontDoorParts): Response | null {
  if (draining.stopping || request.method !== "GET") return null;
  const started = performance.now();
  const url = request.url;
  const path = pathOf(url);
  // A path an operator redirects is the redirect's (and the table, when due, is read by the app's
  // layer); a path with escapes, or a fragment (which no browser sends), is the router's to read.
  const redirect = redirects.peek(path);
  if (!redirect || redirect.target || path.includes("%") || url.includes("#")) return null;
  const kept = cache.answer(request);
  if (!kept) return null;
  const res = kept.response;
  const id = newRequestId();
  res.headers.set(REQUEST_ID_HEADER, id);
  recordRequest(metrics, {
    id,
    method: "GET",
    route: kept.route,
    path,
    status: res.status,
    durationMs: performance.now() - started,
    upstream: request.headers.get(REQUEST_ID_HEADER)?.slice(0, 128),
  });
  return res;
}

/** Makes the app's fetch (Deno.serve's handler, and `app.request` in tests) answer kept pages first. */
export function answerKeptPagesFirst(app: Hono<AppEnv>, parts: FrontDoorParts): void {
  const throughTheLayers = app.fetch;
  app.fetch = (request, ...rest) => keptAnswer(request, parts) ?? throughTheLayers(request, ...rest);
}
