import type { Context, MiddlewareHandler } from "hono";
import { and, eq, lt } from "drizzle-orm";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Database } from "../../db/client.ts";
import { idempotencyKeys } from "../../db/schema.ts";
import { IDEMPOTENCY_HEADER } from "../../lib/api-types.ts";
import { IDEMPOTENCY_TTL_MS } from "../../lib/constants.ts";
import type { AppEnv } from "../env.ts";
import { failureBody } from "./api.ts";

/** Set on an answer that was replayed from the store instead of running the handler again. */
export const REPLAYED_HEADER = "Idempotent-Replayed";

/** Only these methods change things; GET and HEAD ignore the header (DESIGN.md section 6). */
const METHODS = new Set(["POST", "PUT", "DELETE"]);

/**
 * How long a `running` claim holds. If the process that claimed a key dies, a retry may take the
 * key over after this; a handler running longer than this could be run twice, so it is kept well
 * above any call's duration.
 */
const LOCK_MS = 60_000;

/**
 * The answer headers worth replaying. Not Set-Cookie: a session token must never sit in this table
 * in clear (sessions store only its hash), so a replay never re-issues a cookie. Security headers
 * (CSP nonce and the like) are added per response by outer middleware, replay or not.
 */
const STORED_HEADERS = ["content-type", "location"];

/** Visible ASCII only, so a key is safe to store, log and compare. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

type Row = typeof idempotencyKeys.$inferSelect;

/**
 * Idempotency-Key for POST, PUT and DELETE, kept in the database so that every instance sees the
 * same keys. Same key and same request: the first answer replayed byte for byte; same key with
 * another request: 422; same key while the first still runs: 409. Requests without the header, and
 * other methods, pass through untouched. Mount it after the session layer: keys are per user.
 */
export function idempotency(): MiddlewareHandler<AppEnv> {
  return async function idempotencyKey(c, next) {
    const key = c.req.header(IDEMPOTENCY_HEADER);
    if (key === undefined || !METHODS.has(c.req.method)) return next();
    if (!KEY_PATTERN.test(key)) return fail(c, 422, "Idempotency-Key must be 1 to 255 visible characters.");

    const db = c.get("db");
    // A visitor's keys share one scope. A replay there needs the same key *and* a byte-identical
    // request, so it shows nothing the sender could not get by sending that request, and no
    // cookie is ever replayed; clients generate random keys, so visitors do not collide.
    const user = c.get("user");
    const scope = user ? `user:${user.id}` : "anon";
    const requestHash = await hashRequest(c);
    const now = Date.now();

    const claim = await claimKey(db, scope, key, requestHash, now);
    if (claim !== "claimed") {
      if (claim && claim.requestHash !== requestHash) {
        return fail(c, 422, "This Idempotency-Key was already used for a different request.");
      }
      if (claim?.state === "done") return replay(claim);
      return fail(c, 409, "A request with this Idempotency-Key is still in progress.");
    }

    // The claim's lockedUntil marks it as ours: a takeover always sets a later one, so once the
    // key has been taken over, the writes below change nothing.
    const ours = and(
      eq(idempotencyKeys.scope, scope),
      eq(idempotencyKeys.key, key),
      eq(idempotencyKeys.state, "running"),
      eq(idempotencyKeys.lockedUntil, new Date(now + LOCK_MS)),
    );
    const release = () => db.delete(idempotencyKeys).where(ours);

    try {
      // Hono's compose turns an error thrown by the handler into c.res (through onError) before
      // next() returns, so what is stored below is the answer the client actually gets.
      await next();
    } catch (error) {
      await release();
      throw error;
    }

    const res = c.res;
    const body = res.body === null ? null : decodeExactly(await res.clone().arrayBuffer());
    // A 5xx (a crash mid-way: the ledger rolled back) and a 429 (refused before running) are
    // answers a client should retry, so the key is released rather than pinned to them. Every
    // other answer, 4xx included, is what "the first answer" means. A body that is not text
    // cannot go into the text column unchanged, so it is not stored either.
    if (res.status >= 500 || res.status === 429 || body === undefined) {
      await release();
      return;
    }
    const headers = STORED_HEADERS.flatMap((name) => {
      const value = res.headers.get(name);
      return value === null ? [] : [[name, value]];
    });
    await db
      .update(idempotencyKeys)
      .set({ state: "done", responseStatus: res.status, responseHeaders: JSON.stringify(headers), responseBody: body })
      .where(ours);
  };
}

/**
 * Deletes the keys older than the TTL; the server calls it from time to time. Until then an expired
 * key is already treated as absent by the middleware. Answers how many were removed.
 */
export async function purgeExpiredIdempotencyKeys(db: Database, now: Date = new Date()): Promise<number> {
  const result = await db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, new Date(now.getTime() - IDEMPOTENCY_TTL_MS)));
  return result.rowsAffected;
}

/**
 * Takes the key for this request, or answers the row that holds it. Each step is one statement, so
 * two requests (in one process or two instances) can never both claim the key.
 */
async function claimKey(db: Database, scope: string, key: string, requestHash: string, now: number) {
  const thisKey = and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key));
  const lockedUntil = new Date(now + LOCK_MS);
  // A key past its TTL counts as never used.
  await db
    .delete(idempotencyKeys)
    .where(and(thisKey, lt(idempotencyKeys.createdAt, new Date(now - IDEMPOTENCY_TTL_MS))));
  // Bounded: the row can vanish between two statements (released after a 5xx), so try again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await db
      .insert(idempotencyKeys)
      .values({ scope, key, requestHash, state: "running", lockedUntil, createdAt: new Date(now) })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    if (inserted.length) return "claimed" as const;
    // The first request died without answering: after its lock, the same request may take over.
    const taken = await db
      .update(idempotencyKeys)
      .set({ lockedUntil, createdAt: new Date(now) })
      .where(
        and(
          thisKey,
          eq(idempotencyKeys.state, "running"),
          eq(idempotencyKeys.requestHash, requestHash),
          lt(idempotencyKeys.lockedUntil, new Date(now)),
        ),
      )
      .returning({ key: idempotencyKeys.key });
    if (taken.length) return "claimed" as const;
    const [row] = await db.select().from(idempotencyKeys).where(thisKey);
    if (row) return row;
  }
  return undefined;
}

/**
 * Hex SHA-256 of method, path with query and raw body: "the same request". The body is read from a
 * clone, so the handler and its validators still find the request untouched.
 */
async function hashRequest(c: Context): Promise<string> {
  const url = new URL(c.req.url);
  const head = new TextEncoder().encode(`${c.req.method}\n${url.pathname}${url.search}\n`);
  const body = new Uint8Array(await c.req.raw.clone().arrayBuffer());
  const bytes = new Uint8Array(head.length + body.length);
  bytes.set(head);
  bytes.set(body, head.length);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** UTF-8 text that encodes back to the very same bytes (BOM kept), or undefined if there is none. */
function decodeExactly(buffer: ArrayBuffer): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(buffer);
  } catch {
    return undefined;
  }
}

function replay(row: Row): Response {
  const headers = new Headers(JSON.parse(row.responseHeaders ?? "[]") as [string, string][]);
  headers.set(REPLAYED_HEADER, "true");
  return new Response(row.responseBody, { status: row.responseStatus ?? 200, headers });
}

function fail(c: Context, status: ContentfulStatusCode, error: string): Response {
  return c.json(failureBody(status, error), status);
}
