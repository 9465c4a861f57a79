import { Hono } from "hono";
import * as calls from "../../lib/contracts/openapi.ts";
import type { AppEnv } from "../../server/env.ts";
import { isConsoleCall, type OpenApiDocument, openApiDocument } from "../../server/http/openapi.ts";
import { REGISTERED_CALLS, route } from "../../server/http/route.ts";

/**
 * GET /api/openapi.json: the same for everyone and changed only by a release, so it is made once,
 * at its first request (when every call is registered), and may be cached by anyone for an hour.
 * It leaves out the console's calls (decision 074): administrators read the whole document at
 * GET /api/console/openapi.json, a console call like any other (404 to anyone else, no-store).
 */
/** How the document may be cached: by browsers and proxies, for an hour (it changes with a release). */
export const PUBLIC_DOCUMENT_CACHE = "public, max-age=3600";

export const openApiCalls = new Hono<AppEnv>();

/** "public": every call but the console's; "whole": every call. */
export type DocumentFor = "public" | "whole";

const documents = new Map<DocumentFor, { json: string; etag: string }>();

/** The document of the calls this process registered, as sent. */
export async function servedDocument(which: DocumentFor = "public"): Promise<{ json: string; etag: string }> {
  let document = documents.get(which);
  if (!document) {
    const calls = [...REGISTERED_CALLS].filter((call) => which === "whole" || !isConsoleCall(call));
    const json = JSON.stringify(openApiDocument(calls) satisfies OpenApiDocument);
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(json));
    const etag = `"${[...new Uint8Array(digest).slice(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join("")}"`;
    document = { json, etag };
    documents.set(which, document);
  }
  return document;
}

route(openApiCalls, calls.openApi, async (c) => {
  const { json, etag } = await servedDocument("public");
  const headers = { "content-type": "application/json", "cache-control": PUBLIC_DOCUMENT_CACHE, etag };
  if (c.req.header("if-none-match") === etag) return c.body(null, 304, headers);
  return c.body(json, 200, headers);
});

// An administrator's: personal like every other answer under /api/ (no-store), so no cache keeps it.
route(openApiCalls, calls.consoleOpenApi, async (c) => {
  const { json } = await servedDocument("whole");
  return c.body(json, 200, { "content-type": "application/json" });
});
