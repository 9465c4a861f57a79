import { createHash } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { lt } from "drizzle-orm";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { matchedRoutes } from "hono/route";
import type { Database } from "../../db/client.ts";
import { groupedTransaction } from "../../db/group-commit.ts";
import { columnList, fromColumns, rowOf, run, type Tx } from "../../db/sql.ts";
import { idempotencyKeys } from "../../db/schema.ts";
import { IDEMPOTENCY_HEADER } from "../../lib/api-types.ts";
import { IDEMPOTENCY_TTL_MS } from "../../lib/constants.ts";
import { accountChoice } from "../accounts/current.ts";
import type { AppEnv } from "../env.ts";
import { Conflict } from "../errors.ts";
import { failureBody } from "./api.ts";
import { requestIdOf } from "./request-log.ts";

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

/** An answer as the key keeps it: status, the headers worth replaying, and the body's text. */
export interface StoredAnswer {
  status: number;
  headers: [string, string][];
  body: string;
}

/**
 * A request's claim on its Idempotency-Key, for the handler (`c.get("idempotency")`, null when the
 * request has no key). A handler whose effect is one database transaction stores its answer in
 * that very transaction, so that the effect and the answer commit together: a process that dies
 * after the COMMIT has already stored what every retry must be told (docs/decisions/025).
 */
export interface IdempotencyClaim {
  /**
   * Writes `answer` as the key's answer inside `tx`, the transaction that makes the request's
   * effect; the request must then answer exactly that (server/http/route.ts does). Throws a
   * Conflict, and so rolls the effect back, when a retry has taken the key over (the first
   * attempt ran past the claim's lock), so that the request runs once whatever happens. Once per
   * request.
   */
  storeWith(tx: Tx, answer: StoredAnswer): Promise<void>;
}

/** Marks a handler whose every effect, and answer, is one transaction that calls `storeWith`. */
const CLAIMS_WITH_EFFECT = Symbol("claims its key with its effect");

/**
 * Marks `handler` as one that claims its Idempotency-Key in its effect's own transaction
 * (decision 053): every write it makes is in the one transaction where it calls `storeWith`, so
 * no claim needs to be committed before it runs. server/http/route.ts marks such calls.
 */
export function claimsWithEffect<H extends object>(handler: H): H {
  (handler as Record<symbol, boolean>)[CLAIMS_WITH_EFFECT] = true;
  return handler;
}

/** Whether the handler this request reaches claims its key with its effect. */
function claimedWithEffect(c: Context<AppEnv>): boolean {
  const routes = matchedRoutes(c);
  const last = routes[routes.length - 1]?.handler as unknown as Record<symbol, boolean> | undefined;
  return last?.[CLAIMS_WITH_EFFECT] === true;
}

/**
 * Idempotency-Key for POST, PUT and DELETE, kept in the database so that every instance sees the
 * same keys. Same key and same request: the first answer replayed byte for byte; same key with
 * another request: 422; same key while the first still runs: 409. Requests without the header, and
 * other methods, pass through untouched. Mount it after the session layer: keys are per user, and
 * per customer for an administrator acting on behalf of one.
 */
export function idempotency(): MiddlewareHandler<AppEnv> {
  return async function idempotencyKey(c, next) {
    const key = c.req.header(IDEMPOTENCY_HEADER);
    if (key === undefined || !METHODS.has(c.req.method)) return next();
    if (!KEY_PATTERN.test(key)) return fail(c, 422, "Idempotency-Key must be 1 to 255 visible characters.");

    const db = c.get("db");
    const scope = await scopeOf(c);
    const requestHash = await hashRequest(c);
    const now = Date.now();

    if (claimedWithEffect(c)) return await claimWithEffect(c, next, db, scope, key, requestHash, now);

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
    const ours = [scope, key, now + LOCK_MS];
    const release = () => groupedTransaction(db, (tx) => run(tx, RELEASE, ours));
    // Set by storeWith: the answer written in the effect's transaction.
    const withEffect: { answer?: StoredAnswer } = {};
    c.set("idempotency", {
      async storeWith(tx, answer) {
        if (withEffect.answer) throw new Error("A request stores its answer with its effect once.");
        const stored = await run(tx, STORE, [answer.status, JSON.stringify(answer.headers), answer.body, ...ours]);
        if (stored === 0) {
          throw new Conflict(
            "A retry with this Idempotency-Key has taken this request over; this attempt did nothing.",
          );
        }
        withEffect.answer = answer;
      },
    });

    try {
      // Hono's compose turns an error thrown by the handler into c.res (through onError) before
      // next() returns, so what is stored below is the answer the client actually gets.
      await next();
    } catch (error) {
      await release();
      throw error;
    }

    if (withEffect.answer) {
      // The usual case: the effect and its answer committed together, and that answer is c.res.
      if (c.res.status === withEffect.answer.status) return;
      // The handler stored an answer and then failed: if the transaction did commit, the stored
      // answer is the truth (the money moved), and this client gets it like any retry would.
      const row = await readKey(db, scope, key);
      if (row?.state === "done" && row.lockedUntil.getTime() === now + LOCK_MS) {
        c.res = answerOf(row);
        return;
      }
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
    await groupedTransaction(db, (tx) => run(tx, STORE, [res.status, JSON.stringify(headers), body, ...ours]));
  };
}

/**
 * A key claimed with its effect (decision 053): a read first (a key already answered is replayed,
 * one still running is a 409, as for any call); then the handler runs with no claim written, and
 * `storeWith` inserts the key, already answered, in the effect's own transaction. No COMMIT of its
 * own, and nothing to release if the request fails or the process dies before the effect commits:
 * then nothing of the request is on disk and a retry simply runs it. Two attempts with one key at
 * once both run their handler, but only one can insert the key: the other's `storeWith` throws a
 * Conflict, which rolls its effect back, so the effect still happens once; and the other, refused,
 * gets the first one's answer, as any retry would.
 */
async function claimWithEffect(
  c: Context<AppEnv>,
  next: () => Promise<void>,
  db: Database,
  scope: string,
  key: string,
  requestHash: string,
  now: number,
): Promise<Response | void> {
  const held = await readKey(db, scope, key);
  if (held && !takeable(held, requestHash, now)) {
    if (held.requestHash !== requestHash) {
      return fail(c, 422, "This Idempotency-Key was already used for a different request.");
    }
    if (held.state === "done") return replay(held);
    return fail(c, 409, "A request with this Idempotency-Key is still in progress.");
  }
  const ours = now + LOCK_MS;
  const answered = (executor: Database | Tx, answer: StoredAnswer) =>
    rowOf(executor, ANSWERED, [
      scope,
      key,
      requestHash,
      ours,
      now,
      now - IDEMPOTENCY_TTL_MS,
      answer.status,
      JSON.stringify(answer.headers),
      answer.body,
    ]);
  const stored: { answer?: StoredAnswer } = {};
  c.set("idempotency", {
    async storeWith(tx, answer) {
      if (stored.answer) throw new Error("A request stores its answer with its effect once.");
      if (!(await answered(tx, answer))) {
        throw new Conflict(
          "Another request with this Idempotency-Key was answered meanwhile; this attempt did nothing.",
        );
      }
      stored.answer = answer;
    },
  });

  await next();

  if (stored.answer) {
    if (c.res.status === stored.answer.status) return;
    // The handler stored an answer and then failed: if its transaction committed, the stored
    // answer is the truth (the money moved), and this client gets it like any retry would.
    const row = await readKey(db, scope, key);
    if (row?.state === "done" && row.lockedUntil.getTime() === ours) {
      c.res = answerOf(row);
      return;
    }
  }
  const res = c.res;
  // An answer not stored with an effect (a refusal: nothing changed) is stored as the key's first
  // answer like any call's, in a grouped transaction of its own. A 5xx, a 429 or a body that is
  // not text: nothing stored, and nothing to release.
  if (res.status >= 500 || res.status === 429) return;
  const body = res.body === null ? "" : decodeExactly(await res.clone().arrayBuffer());
  if (body === undefined) return;
  const headers = STORED_HEADERS.flatMap((name) => {
    const value = res.headers.get(name);
    return value === null ? [] : [[name, value] as [string, string]];
  });
  if (await groupedTransaction(db, (tx) => answered(tx, { status: res.status, headers, body }))) return;
  // Another attempt with this key answered first: two at once, whose effect is most often why this
  // one was refused ("This quote was already used"). The key's first answer is every attempt's, so
  // a double-click shows the conversion made, not a refusal beside it.
  const first = await readKey(db, scope, key);
  if (first?.state === "done" && first.requestHash === requestHash) c.res = replay(first);
}

/**
 * Whether a held key counts as free for this request, as the claim's own condition says: past its
 * TTL, or a running claim of the same request whose lock has passed (its process died).
 */
function takeable(row: Row, requestHash: string, now: number): boolean {
  return row.createdAt.getTime() < now - IDEMPOTENCY_TTL_MS ||
    (row.state === "running" && row.requestHash === requestHash && row.lockedUntil.getTime() < now);
}

/**
 * The scope of a request's keys: who acts, for whom, and on which account. An administrator acting
 * on behalf of a customer has a scope per customer, so a key sent for one customer never answers for
 * another (issue 14). A login on several accounts has a scope per account it works on (the session's
 * current one): the same key and body sent on another account is another request there, never a
 * replay of the first account's answer (a second security review found a conversion of one account
 * answered on the other). A visitor's keys share one scope: a replay there needs the same key *and*
 * a byte-identical request, so it shows nothing the sender could not get by sending that request,
 * and no cookie is ever replayed; clients generate random keys, so visitors do not collide.
 */
async function scopeOf(c: Context<AppEnv>): Promise<string> {
  const user = c.get("user");
  if (!user) return "anon";
  const customer = c.get("onBehalf");
  const who = customer ? `user:${user.id}:for:${customer.id}` : `user:${user.id}`;
  // Read once per request (the call's own currentAccount reuses it); null before an account opens.
  const { current } = await accountChoice(c);
  return current ? `${who}:account:${current.accountId}` : who;
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
 * Takes the key for this request, or answers the row that holds it. One statement claims a new
 * key, a key past its TTL (it counts as never used) and a key whose first request died without
 * answering (after its lock, the same request may take it over); the transaction makes the claim
 * and the read of a held key one step, so two requests (in one process or two instances) can never
 * both claim the key. Run as a grouped transaction: claims that arrive together, and the
 * conversions beside them, share one COMMIT (db/group-commit.ts).
 */
function claimKey(
  db: Database,
  scope: string,
  key: string,
  requestHash: string,
  now: number,
): Promise<"claimed" | Row | undefined> {
  return groupedTransaction(db, async (tx) => {
    const claimed = await rowOf(tx, CLAIM, [scope, key, requestHash, now + LOCK_MS, now, now - IDEMPOTENCY_TTL_MS]);
    if (claimed) return "claimed" as const;
    return await readKey(tx, scope, key);
  });
}

async function readKey(executor: Database | Tx, scope: string, key: string): Promise<Row | undefined> {
  const row = await rowOf<Record<string, unknown>>(executor, HELD, [scope, key]);
  return row ? fromColumns(idempotencyKeys, row) : undefined;
}

/**
 * The statements, as fixed SQL (db/sql.ts): every POST, PUT and DELETE that carries a key runs
 * two or three of them, and Drizzle's query builder cost more than SQLite's work here.
 */
const CLAIM = `INSERT INTO idempotency_keys (scope, key, request_hash, state, locked_until, created_at)
  VALUES (?1, ?2, ?3, 'running', ?4, ?5)
  ON CONFLICT (scope, key) DO UPDATE SET request_hash = excluded.request_hash, state = 'running',
    response_status = NULL, response_headers = NULL, response_body = NULL,
    locked_until = excluded.locked_until, created_at = excluded.created_at
  WHERE idempotency_keys.created_at < ?6
    OR (idempotency_keys.state = 'running' AND idempotency_keys.request_hash = excluded.request_hash
      AND idempotency_keys.locked_until < ?5)
  RETURNING 1 AS claimed`;
/** The claim and the answer in one statement, for a key claimed with its effect (decision 053). */
const ANSWERED = `INSERT INTO idempotency_keys
    (scope, key, request_hash, state, locked_until, created_at, response_status, response_headers, response_body)
  VALUES (?1, ?2, ?3, 'done', ?4, ?5, ?7, ?8, ?9)
  ON CONFLICT (scope, key) DO UPDATE SET request_hash = excluded.request_hash, state = 'done',
    response_status = excluded.response_status, response_headers = excluded.response_headers,
    response_body = excluded.response_body, locked_until = excluded.locked_until, created_at = excluded.created_at
  WHERE idempotency_keys.created_at < ?6
    OR (idempotency_keys.state = 'running' AND idempotency_keys.request_hash = excluded.request_hash
      AND idempotency_keys.locked_until < ?5)
  RETURNING 1 AS answered`;
const HELD = `SELECT ${columnList(idempotencyKeys)} FROM idempotency_keys WHERE scope = ? AND key = ?`;
const OURS = "scope = ? AND key = ? AND state = 'running' AND locked_until = ?";
const STORE =
  `UPDATE idempotency_keys SET state = 'done', response_status = ?, response_headers = ?, response_body = ? WHERE ${OURS}`;
const RELEASE = `DELETE FROM idempotency_keys WHERE ${OURS}`;

/**
 * Hex SHA-256 of method, path with query and raw body: "the same request". The body is read from a
 * clone, so the handler and its validators still find the request untouched.
 */
async function hashRequest(c: Context): Promise<string> {
  const url = new URL(c.req.url);
  const body = new Uint8Array(await c.req.raw.clone().arrayBuffer());
  // node:crypto hashes synchronously: a fraction of crypto.subtle's cost for a body this small.
  return createHash("sha256").update(`${c.req.method}\n${url.pathname}${url.search}\n`, "utf8").update(body).digest(
    "hex",
  );
}

/** UTF-8 text that encodes back to the very same bytes (BOM kept), or undefined if there is none. */
function decodeExactly(buffer: ArrayBuffer): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(buffer);
  } catch {
    return undefined;
  }
}

/** The stored answer, as it was first given. */
function answerOf(row: Row): Response {
  const headers = new Headers(JSON.parse(row.responseHeaders ?? "[]") as [string, string][]);
  return new Response(row.responseBody, { status: row.responseStatus ?? 200, headers });
}

/** The stored answer again, marked as a replay. */
function replay(row: Row): Response {
  const res = answerOf(row);
  res.headers.set(REPLAYED_HEADER, "true");
  return res;
}

function fail(c: Context<AppEnv>, status: ContentfulStatusCode, error: string): Response {
  return c.json({ ...failureBody(status, error), request_id: requestIdOf(c) }, status);
}
