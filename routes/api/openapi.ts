import { Hono } from "hono";
import * as calls from "../../lib/contracts/openapi.ts";
import type { AppEnv } from "../../server/env.ts";
import { type OpenApiDocument, openApiDocument } from "../../server/http/openapi.ts";
import { REGISTERED_CALLS, route } from "../../server/http/route.ts";

/**
 * GET /api/openapi.json: the same for everyone and changed only by a release, so it is made once,
 * at its first request (when every call is registered), and may be cached by anyone for an hour.
 */
/** How the document may be cached: by browsers and proxies, for an hour (it changes with a release). */
export const PUBLIC_DOCUMENT_CACHE = "public, max-age=3600";

export const openApiCalls = new Hono<AppEnv>();

let document: { json: string; etag: string } | undefined;

/** The document of the calls this process registered, as sent. */
export async function servedDocument(): Promise<{ json: string; etag: string }> {
  if (!document) {
    const json = JSON.stringify(openApiDocument(REGISTERED_CALLS) satisfies OpenApiDocument);
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(json));
    const etag = `"${[...new Uint8Array(digest).slice(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join("")}"`;
    document = { json, etag };
  }
  return document;
}

route(openApiCalls, calls.openApi, async (c) => {
  const { json, etag } = await servedDocument();
  const headers = { "content-type": "application/json", "cache-control": PUBLIC_DOCUMENT_CACHE, etag };
  if (c.req.header("if-none-match") === etag) return c.body(null, 304, headers);
  return c.body(json, 200, headers);
});
