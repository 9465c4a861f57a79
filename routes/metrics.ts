import { createHash, timingSafeEqual } from "node:crypto";
import type { Handler } from "hono";
import type { AppEnv } from "../server/env.ts";
import { databaseMetricsText, type HttpMetrics, TransferCounts } from "../server/metrics.ts";

/** The Prometheus text format's media type. */
export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** SHA-256 of a text: both sides of the comparison then have one length, compared in constant time. */
const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();

/**
 * GET /metrics for Prometheus, only with `Authorization: Bearer <METRICS_TOKEN>` (decision 041).
 * Without a token configured, or without the right one, the answer is the app's 404 for any
 * unknown path: nobody learns from it that there is something to find here. The token is compared in constant time (hashes of equal length).
 */
export function metricsEndpoint(token: string | undefined, metrics: HttpMetrics): Handler<AppEnv> {
  const expected = token ? digest(`Bearer ${token}`) : null;
  const transfers = new TransferCounts();
  return async function metricsAccess(c) {
    const given = c.req.header("authorization");
    if (!expected || given === undefined || !timingSafeEqual(digest(given), expected)) return c.notFound();
    const text = metrics.text() + await databaseMetricsText(c.get("db"), transfers);
    return c.body(text, 200, { "content-type": METRICS_CONTENT_TYPE, "cache-control": "no-store" });
  };
}
