import { zValidator } from "@hono/zod-validator";
import { eq } from "drizzle-orm";
import { type Context, Hono } from "hono";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test, vi } from "vitest";
import { z } from "zod";
import { type Database, openDatabase, openMigratedDatabase } from "../../db/client.ts";
import { groupedTransaction } from "../../db/group-commit.ts";
import { run } from "../../db/sql.ts";
import { idempotencyKeys } from "../../db/schema.ts";
import { IDEMPOTENCY_TTL_MS } from "../../lib/constants.ts";
import type { SessionUser } from "../../server/auth/session-user.ts";
import type { AppEnv } from "../../server/env.ts";
import { failureBody, ok } from "../../server/http/api.ts";
import { claimsWithEffect, idempotency, purgeExpiredIdempotencyKeys } from "../../server/http/idempotency.ts";
import { testDatabase } from "../helpers/db.ts";

const db = await testDatabase();

/**
 * A small app shaped like the real one: the session layer puts db and user on the request (the
 * user from a test header), then idempotency, then handlers that count how often they ran.
 */
function testApp(database: Database = db, { held = [1] } = {}) {
  const runs = { count: 0, slow: 0, crash: 0, deleted: 0 };
  // The calls of /api/slow that wait: each tells when it started and runs on when released.
  const slow = new Map(
    held.map((n) => [n, { started: Promise.withResolvers<void>(), gate: Promise.withResolvers<void>() }]),
  );
  const app = new Hono<AppEnv>();
  // Like the app's error handler: a thrown error becomes a 500 failure envelope.
  app.onError((_error, c) => c.json(failureBody(500, "Something went wrong."), 500));
  app.use(async (c, next) => {
    const id = c.req.header("x-test-user");
    c.set("db", database);
    c.set("user", id ? ({ id: Number(id) } as SessionUser) : null);
    await next();
  });
  app.use("/api/*", idempotency());
  app.get("/api/count", (c) => ok(c, { n: ++runs.count }));
  app.post("/api/count", (c) => ok(c, { n: ++runs.count }));
  app.put("/api/count", (c) => ok(c, { n: ++runs.count }));
  app.post("/api/created", (c) => {
    c.header("Location", `/api/things/${++runs.count}`);
    return ok(c, { n: runs.count }, { status: 201 });
  });
  app.delete("/api/thing", (c) => {
    runs.deleted++;
    return c.body(null, 204);
  });
  // Only the held calls wait, so another one can finish while they still run.
  app.post("/api/slow", async (c) => {
    const n = ++runs.slow;
    const hold = slow.get(n);
    if (hold) {
      hold.started.resolve();
      await hold.gate.promise;
    }
    return ok(c, { n });
  });
  // Fails the first time only, like a crash that a retry gets past.
  app.post("/api/crash", (c) => {
    if (++runs.crash === 1) throw new Error("crashed mid-way");
    return ok(c, { n: runs.crash });
  });
  // Refused by a rate limit the first time only.
  app.post("/api/limited", (c) => {
    if (++runs.count === 1) return c.json(failureBody(429, "Too many attempts."), 429);
    return ok(c, { n: runs.count });
  });
  app.post("/api/login", (c) => {
    c.header("Set-Cookie", "session=secret-token; HttpOnly");
    return ok(c, { n: ++runs.count });
  });
  app.post("/api/transfer", zValidator("json", z.object({ amount: z.number().positive() })), (c) => {
    runs.count++;
    return ok(c, { amount: c.req.valid("json").amount });
  });
  const slowCall = (n: number) => ({
    started: slow.get(n)!.started.promise,
    release: () => slow.get(n)!.gate.resolve(),
  });
  return { app, runs, slowCall };
}

let keys = 0;
/** A fresh key per test, so tests sharing the database never meet. */
const newKey = () => `key-${++keys}-${crypto.randomUUID()}`;

function send(
  app: Hono<AppEnv>,
  path: string,
  { method = "POST", key, user, body }: { method?: string; key?: string; user?: number; body?: unknown } = {},
) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key !== undefined) headers["Idempotency-Key"] = key;
  if (user !== undefined) headers["x-test-user"] = String(user);
  return app.request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

async function rowOf(key: string) {
  const [row] = await db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key));
  return row;
}

describe("Idempotency-Key", () => {
  test("the same key and request replays the first answer byte for byte without running again", async () => {
    const { app, runs } = testApp();
    const key = newKey();
    const first = await send(app, "/api/created", { key, user: 1, body: { to: "a", amount: 5 } });
    const firstBody = new Uint8Array(await first.arrayBuffer());
    expect(first.status).toBe(201);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();

    const again = await send(app, "/api/created", { key, user: 1, body: { to: "a", amount: 5 } });
    expect(again.status).toBe(201);
    expect(new Uint8Array(await again.arrayBuffer())).toEqual(firstBody);
    expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
    expect(again.headers.get("location")).toBe("/api/things/1");
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(runs.count).toBe(1);
  });

  test("a finished request is still replayed once its lock has passed, until the key expires", async () => {
    const { app, runs } = testApp();
    const key = newKey();
    await send(app, "/api/count", { key, user: 1, body: {} });
    // An hour later: the claim's 60 s lock is long gone, the 24 h are not.
    const hourAgo = new Date(Date.now() - 3_600_000);
    await db.update(idempotencyKeys).set({ lockedUntil: hourAgo, createdAt: hourAgo }).where(
      eq(idempotencyKeys.key, key),
    );

    const again = await send(app, "/api/count", { key, user: 1, body: {} });
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await again.json()).toEqual({ body: { n: 1 } });
    // Nor can another request take the key over.
    expect((await send(app, "/api/count", { key, user: 1, body: { other: 1 } })).status).toBe(422);
    expect(runs.count).toBe(1);
    expect((await rowOf(key))?.state).toBe("done");
  });

  test("PUT replays too, and a DELETE's empty 204 replays as an empty 204", async () => {
    const { app, runs } = testApp();
    const putKey = newKey();
    const put1 = await (await send(app, "/api/count", { method: "PUT", key: putKey, body: { x: 1 } })).text();
    const put2 = await send(app, "/api/count", { method: "PUT", key: putKey, body: { x: 1 } });
    expect(await put2.text()).toBe(put1);
    expect(runs.count).toBe(1);

    const delKey = newKey();
    expect((await send(app, "/api/thing", { method: "DELETE", key: delKey })).status).toBe(204);
    const replayed = await send(app, "/api/thing", { method: "DELETE", key: delKey });
    expect(replayed.status).toBe(204);
    expect(replayed.body).toBeNull();
    expect(replayed.headers.get("Idempotent-Replayed")).toBe("true");
    expect(runs.deleted).toBe(1);
  });

  test("the same key with another body or path is refused with 422 and runs nothing", async () => {
    const { app, runs } = testApp();
    const key = newKey();
    await send(app, "/api/count", { key, user: 1, body: { amount: 5 } });

    const others = [
      ["/api/count", { amount: 6 }],
      ["/api/count?x=1", { amount: 5 }],
      ["/api/created", { amount: 5 }],
    ] as const;
    for (const [path, body] of others) {
      const res = await send(app, path, { key, user: 1, body });
      expect(res.status).toBe(422);
      expect(await res.json()).toEqual({
        error: "This Idempotency-Key was already used for a different request.",
        message: "Unprocessable Entity",
        request_id: expect.any(String),
      });
    }
    expect(runs.count).toBe(1);
  });

  test("two requests at once with one key run once: the second gets 409, a later retry the replay", async () => {
    const { app, runs, slowCall } = testApp();
    const key = newKey();
    const first = send(app, "/api/slow", { key, user: 1, body: { amount: 5 } });
    await slowCall(1).started;

    const second = await send(app, "/api/slow", { key, user: 1, body: { amount: 5 } });
    expect(second.status).toBe(409);
    expect((await second.json()).error).toBe("A request with this Idempotency-Key is still in progress.");

    slowCall(1).release();
    const firstText = await (await first).text();
    expect(JSON.parse(firstText)).toEqual({ body: { n: 1 } });
    const retry = await send(app, "/api/slow", { key, user: 1, body: { amount: 5 } });
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await retry.text()).toBe(firstText);
    expect(runs.slow).toBe(1);
  });

  test("keys are per user: the same key from two users runs for each", async () => {
    const { app, runs } = testApp();
    const key = newKey();
    const alice = await (await send(app, "/api/count", { key, user: 1, body: {} })).json();
    const bob = await (await send(app, "/api/count", { key, user: 2, body: {} })).json();
    const visitor = await (await send(app, "/api/count", { key, body: {} })).json();
    expect([alice, bob, visitor]).toEqual([{ body: { n: 1 } }, { body: { n: 2 } }, { body: { n: 3 } }]);
    // Each one's retry gets its own first answer back.
    expect(await (await send(app, "/api/count", { key, user: 2, body: {} })).json()).toEqual(bob);
    expect(await (await send(app, "/api/count", { key, user: 1, body: {} })).json()).toEqual(alice);
    expect(runs.count).toBe(3);
  });

  test("a key older than 24 hours counts as new, and the purge removes only such keys", async () => {
    const { app, runs } = testApp();
    const [oldKey, freshKey] = [newKey(), newKey()];
    await send(app, "/api/count", { key: oldKey, user: 1, body: {} });
    await send(app, "/api/count", { key: freshKey, user: 1, body: {} });
    const dayAgo = new Date(Date.now() - IDEMPOTENCY_TTL_MS - 1000);
    await db.update(idempotencyKeys).set({ createdAt: dayAgo }).where(eq(idempotencyKeys.key, oldKey));

    // A different request even: an expired key is free again.
    const reused = await send(app, "/api/count", { key: oldKey, user: 1, body: { other: true } });
    expect(reused.headers.get("Idempotent-Replayed")).toBeNull();
    expect(await reused.json()).toEqual({ body: { n: 3 } });

    await db.update(idempotencyKeys).set({ createdAt: dayAgo }).where(eq(idempotencyKeys.key, oldKey));
    expect(await purgeExpiredIdempotencyKeys(db)).toBe(1);
    expect(await rowOf(oldKey)).toBeUndefined();
    expect(await rowOf(freshKey)).toBeDefined();
    expect(runs.count).toBe(3);
  });

  test("a 5xx answer releases the key, so a retry runs again", async () => {
    const { app, runs } = testApp();
    const key = newKey();
    const crashed = await send(app, "/api/crash", { key, user: 1, body: {} });
    expect(crashed.status).toBe(500);
    expect(await rowOf(key)).toBeUndefined();

    const retry = await send(app, "/api/crash", { key, user: 1, body: {} });
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual({ body: { n: 2 } });
    const replay = await send(app, "/api/crash", { key, user: 1, body: {} });
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(runs.crash).toBe(2);
  });

  test("a 429 answer releases the key too: the request did not run and may be retried", async () => {
    const { app, runs } = testApp();
    const key = newKey();
    expect((await send(app, "/api/limited", { key, user: 1, body: {} })).status).toBe(429);
    expect(await (await send(app, "/api/limited", { key, user: 1, body: {} })).json()).toEqual({ body: { n: 2 } });
    expect(runs.count).toBe(2);
  });

  test("a replay never carries the first answer's cookie, and the cookie is not stored", async () => {
    const { app, runs } = testApp();
    const key = newKey();
    const first = await send(app, "/api/login", { key, body: { username: "ann" } });
    expect(first.headers.get("set-cookie")).toContain("secret-token");
    const replayed = await send(app, "/api/login", { key, body: { username: "ann" } });
    expect(replayed.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replayed.headers.get("set-cookie")).toBeNull();
    expect(JSON.stringify(await rowOf(key))).not.toContain("secret-token");
    expect(runs.count).toBe(1);
  });

  test("a running claim whose lock has passed is taken over, and the late first answer is not stored", async () => {
    const { app, runs, slowCall } = testApp(db, { held: [1, 2] });
    const key = newKey();
    const first = send(app, "/api/slow", { key, user: 1, body: {} });
    await slowCall(1).started;
    // As if the first request's process had died a while ago.
    await db.update(idempotencyKeys).set({ lockedUntil: new Date(Date.now() - 1) }).where(eq(idempotencyKeys.key, key));

    // Another request cannot take the stale key: it is still refused as different.
    expect((await send(app, "/api/slow", { key, user: 1, body: { other: 1 } })).status).toBe(422);
    const takeover = send(app, "/api/slow", { key, user: 1, body: {} });
    await slowCall(2).started;
    // The takeover holds a fresh lock.
    expect((await send(app, "/api/slow", { key, user: 1, body: {} })).status).toBe(409);

    // The first one ends while the takeover still runs: its answer must not become the key's.
    slowCall(1).release();
    expect(await (await first).json()).toEqual({ body: { n: 1 } });
    expect((await rowOf(key))?.state).toBe("running");
    slowCall(2).release();
    expect(await (await takeover).json()).toEqual({ body: { n: 2 } });

    const retry = await send(app, "/api/slow", { key, user: 1, body: {} });
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await retry.json()).toEqual({ body: { n: 2 } });
    expect(runs.slow).toBe(2);
  });

  test("an answer stored with its effect: a late first attempt whose key was taken over undoes its effect", async () => {
    await db.$client.execute("CREATE TABLE IF NOT EXISTS test_effects (key TEXT NOT NULL, attempt INTEGER NOT NULL)");
    const gates = [Promise.withResolvers<void>(), Promise.withResolvers<void>()];
    const started = [Promise.withResolvers<void>(), Promise.withResolvers<void>()];
    let attempts = 0;
    const app = new Hono<AppEnv>();
    app.onError((error, c) => c.json(failureBody(409, error.message), 409));
    app.use(async (c, next) => {
      c.set("db", db);
      c.set("user", { id: 1 } as SessionUser);
      await next();
    });
    app.use("/api/*", idempotency());
    // The effect (a row) and the answer are written in one transaction, after the attempt waited.
    app.post("/api/effect", async (c) => {
      const attempt = attempts++;
      started[attempt].resolve();
      await gates[attempt].promise;
      const key = c.req.header("Idempotency-Key")!;
      const answer = JSON.stringify({ body: { attempt } });
      await groupedTransaction(db, async (tx) => {
        await run(tx, "INSERT INTO test_effects (key, attempt) VALUES (?, ?)", [key, attempt]);
        await c.get("idempotency")!.storeWith(tx, {
          status: 201,
          headers: [["content-type", "application/json"]],
          body: answer,
        });
      });
      return c.body(answer, 201, { "content-type": "application/json" });
    });
    const key = newKey();
    const first = send(app, "/api/effect", { key, body: {} });
    await started[0].promise;
    // The first attempt outlives its claim (its process seemed dead): a retry takes the key over.
    vi.spyOn(Date, "now").mockReturnValue(Date.now() + 61_000);
    const retry = send(app, "/api/effect", { key, body: {} });
    await started[1].promise;
    gates[1].resolve();
    expect(await (await retry).json()).toEqual({ body: { attempt: 1 } });

    gates[0].resolve();
    const late = await first;
    expect(late.status).toBe(409);
    expect((await late.json()).error).toMatch(/taken this request over/);
    const effects = await db.$client.execute({ sql: "SELECT attempt FROM test_effects WHERE key = ?", args: [key] });
    expect(effects.rows.map((row) => row.attempt)).toEqual([1]);
    const replayed = await send(app, "/api/effect", { key, body: {} });
    expect(await replayed.json()).toEqual({ body: { attempt: 1 } });
    vi.restoreAllMocks();
  });

  test("a handler marked as claiming its key with its effect runs with no claim written; the key arrives with the effect", async () => {
    await db.$client.execute("CREATE TABLE IF NOT EXISTS test_effects (key TEXT NOT NULL, attempt INTEGER NOT NULL)");
    const seenWhileRunning: unknown[] = [];
    let attempts = 0;
    const app = new Hono<AppEnv>();
    app.onError((error, c) => c.json(failureBody(409, error.message), 409));
    app.use(async (c, next) => {
      c.set("db", db);
      c.set("user", { id: 1 } as SessionUser);
      await next();
    });
    app.use("/api/*", idempotency());
    app.post(
      "/api/effect",
      claimsWithEffect(async (c: Context<AppEnv>) => {
        const key = c.req.header("Idempotency-Key")!;
        seenWhileRunning.push(await rowOf(key));
        const answer = JSON.stringify({ body: { attempt: ++attempts } });
        await groupedTransaction(db, async (tx) => {
          await run(tx, "INSERT INTO test_effects (key, attempt) VALUES (?, ?)", [key, attempts]);
          await c.get("idempotency")!.storeWith(tx, {
            status: 201,
            headers: [["content-type", "application/json"]],
            body: answer,
          });
        });
        return c.body(answer, 201, { "content-type": "application/json" });
      }),
    );
    const key = newKey();
    const first = await send(app, "/api/effect", { key, body: {} });
    expect([first.status, await first.text()]).toEqual([201, JSON.stringify({ body: { attempt: 1 } })]);
    expect(seenWhileRunning, "no claim was on the disk while the handler ran").toEqual([undefined]);
    expect((await rowOf(key))?.state).toBe("done");

    const again = await send(app, "/api/effect", { key, body: {} });
    expect([again.status, again.headers.get("Idempotent-Replayed")]).toEqual([201, "true"]);
    expect((await send(app, "/api/effect", { key, body: { other: 1 } })).status).toBe(422);
    const effects = await db.$client.execute({ sql: "SELECT attempt FROM test_effects WHERE key = ?", args: [key] });
    expect(effects.rows.map((row) => row.attempt)).toEqual([1]);
  });

  test("a request without the header is untouched and leaves no record", async () => {
    const { app, runs } = testApp();
    const before = await db.$count(idempotencyKeys);
    const a = await send(app, "/api/count", { user: 1, body: {} });
    const b = await send(app, "/api/count", { user: 1, body: {} });
    expect([await a.json(), await b.json()]).toEqual([{ body: { n: 1 } }, { body: { n: 2 } }]);
    expect(b.headers.get("Idempotent-Replayed")).toBeNull();
    expect(await db.$count(idempotencyKeys)).toBe(before);
    expect(runs.count).toBe(2);
  });

  test("GET ignores the header, even a malformed one", async () => {
    const { app, runs } = testApp();
    const key = newKey();
    await send(app, "/api/count", { method: "GET", key, user: 1 });
    const again = await send(app, "/api/count", { method: "GET", key, user: 1 });
    expect(await again.json()).toEqual({ body: { n: 2 } });
    expect(await rowOf(key)).toBeUndefined();
    expect((await send(app, "/api/count", { method: "GET", key: "x".repeat(300) })).status).toBe(200);
    expect(runs.count).toBe(3);
  });

  test("a malformed key is refused with 422 and runs nothing", async () => {
    const { app, runs } = testApp();
    for (const key of ["", "x".repeat(256), "two words", "caf\u00e9", "tab\there"]) {
      const res = await app.request("/api/count", { method: "POST", headers: { "Idempotency-Key": key }, body: "{}" });
      expect(res.status, JSON.stringify(key)).toBe(422);
      expect(await res.json()).toEqual({
        error: "Idempotency-Key must be 1 to 255 visible characters.",
        message: "Unprocessable Entity",
        request_id: expect.any(String),
      });
    }
    expect(runs.count).toBe(0);
    expect((await send(app, "/api/count", { key: `${"k".repeat(254)}~`, body: {} })).status).toBe(200);
    expect(runs.count).toBe(1);
  });

  test("after the middleware, validators and handlers still read the JSON body", async () => {
    const { app, runs } = testApp();
    const res = await send(app, "/api/transfer", { key: newKey(), user: 1, body: { amount: 12.5 } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ body: { amount: 12.5 } });

    // A validation failure is an answer too: stored, and replayed on retry.
    const key = newKey();
    const invalid = await send(app, "/api/transfer", { key, user: 1, body: { amount: -1 } });
    expect(invalid.status).toBe(400);
    const replayed = await send(app, "/api/transfer", { key, user: 1, body: { amount: -1 } });
    expect(replayed.status).toBe(400);
    expect(await replayed.text()).toBe(await invalid.text());
    expect(runs.count).toBe(1);
  });
});

describe("Idempotency-Key across instances", () => {
  const dir = mkdtempSync(join(tmpdir(), "portal-idem-"));
  const url = `file:${join(dir, "shared.db")}`;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("two app instances over one database share the keys", async () => {
    const dbA = await openMigratedDatabase({ url });
    const dbB = await openDatabase({ url });
    try {
      const a = testApp(dbA);
      const b = testApp(dbB);
      const key = newKey();
      const first = await (await send(a.app, "/api/count", { key, user: 1, body: {} })).text();
      const onB = await send(b.app, "/api/count", { key, user: 1, body: {} });
      expect(onB.headers.get("Idempotent-Replayed")).toBe("true");
      expect(await onB.text()).toBe(first);
      expect([a.runs.count, b.runs.count]).toEqual([1, 0]);

      // While A still runs a request, B refuses the same key.
      const slowKey = newKey();
      const running = send(a.app, "/api/slow", { key: slowKey, user: 1, body: {} });
      await a.slowCall(1).started;
      expect((await send(b.app, "/api/slow", { key: slowKey, user: 1, body: {} })).status).toBe(409);
      a.slowCall(1).release();
      await running;
      expect(b.runs.slow).toBe(0);
    } finally {
      dbA.$client.close();
      dbB.$client.close();
    }
  });
});
