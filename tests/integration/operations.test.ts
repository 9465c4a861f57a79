/**
 * What an operator relies on (decision 041): JSON log lines that carry the request's id, the id on
 * every answer and in error answers (and on the error page) so that a customer's report can be
 * found; GET /api/health with the database's round trip and the job queue; GET /metrics only with
 * its token; Strict-Transport-Security only when the portal is served over https; the graceful
 * stop's drain (the whole stop, on a real process: shutdown.test.ts).
 */
import { Hono } from "hono";
import { afterEach, describe, expect, test } from "vitest";
import type { AppEnv } from "../../server/env.ts";
import { Draining } from "../../server/http/draining.ts";
import { enqueue } from "../../server/jobs/queue.ts";
import { defineJob } from "../../server/jobs/define.ts";
import { captureLog, log } from "../../server/log.ts";
import { DURATION_BUCKETS } from "../../server/metrics.ts";
import { makeUser, testApp } from "../helpers/app.ts";
import { z } from "zod";

const TOKEN = "metrics-token-of-this-test-0123456789";

let restore: (() => void) | null = null;
afterEach(() => {
  restore?.();
  restore = null;
});

/** Every line the portal logs from now on, parsed (a line that is not JSON fails the test). */
function logLines(): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  restore = captureLog((line) => lines.push(JSON.parse(line)), "info");
  return lines;
}

describe("the log", () => {
  test("a line with a big integer writes it as text; one with a field it cannot write still goes out", () => {
    const lines = logLines();
    log.info("ledger total", { total_minor: 12345678901234567890n, currency: "GBP" });
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    log.info("odd field", { cycle });
    expect(lines.map(({ msg, total_minor, currency, fields }) => ({ msg, total_minor, currency, fields }))).toEqual([
      { msg: "ledger total", total_minor: "12345678901234567890", currency: "GBP", fields: undefined },
      { msg: "odd field", total_minor: undefined, currency: undefined, fields: "(not serialisable)" },
    ]);
  });

  test("one JSON line per request, with its id, method, route pattern, status and duration; the id is on the answer", async () => {
    const t = await testApp();
    const lines = logLines();
    const res = await t.app.request("/api/health");
    expect(res.status).toBe(200);
    const id = res.headers.get("x-request-id");
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    const line = lines.find((l) => l.request_id === id);
    expect(line).toMatchObject({
      level: "info",
      msg: "request",
      method: "GET",
      route: "/api/health",
      status: 200,
      duration_ms: expect.any(Number),
    });
    expect(new Date(String(line!.time)).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  test("routes are patterns, not paths: two recipients are one route; the line names who asked", async () => {
    const t = await testApp();
    const lines = logLines();
    t.signIn(makeUser({ id: 4242 }));
    await t.app.request("/api/account/recipients/5");
    await t.app.request("/api/account/recipients/6");
    const requests = lines.filter((l) => l.msg === "request");
    expect(requests.map((l) => l.route)).toEqual(["/api/account/recipients/:id", "/api/account/recipients/:id"]);
    expect(requests.map((l) => l.path)).toEqual(["/api/account/recipients/5", "/api/account/recipients/6"]);
    expect(requests.map((l) => l.user_id)).toEqual([4242, 4242]);
  });

  test("a fault: its error logged with the request's id, which the error answer and the error page quote", async () => {
    const t = await testApp();
    t.app.get("/api/probe/broken", () => {
      throw new Error("secret detail of the fault");
    });
    t.app.get("/probe/broken", () => {
      throw new Error("secret detail of the fault");
    });
    const lines = logLines();

    const call = await t.app.request("/api/probe/broken");
    expect(call.status).toBe(500);
    const id = call.headers.get("x-request-id")!;
    const body = await call.json();
    expect(body).toEqual({ error: "Unexpected error occurred", message: "Internal Server Error", request_id: id });
    const logged = lines.filter((l) => l.request_id === id);
    expect(logged.map((l) => l.level)).toEqual(["error", "warn"]);
    expect(logged[0]).toMatchObject({ msg: "request failed", error: { message: "secret detail of the fault" } });
    expect(String((logged[0].error as { stack: string }).stack)).toContain("operations.test.ts");
    expect(logged[1]).toMatchObject({ route: "/api/probe/broken", status: 500 });

    const page = await t.app.request("/probe/broken", { headers: { "user-agent": "Mozilla/5.0 Firefox/128.0" } });
    expect(page.status).toBe(500);
    const html = await page.text();
    expect(html).toContain(`Reference: <span class="font-mono">${page.headers.get("x-request-id")}</span>`);
    expect(html).not.toContain("secret detail");
  });

  test("a refusal carries the request id too", async () => {
    const t = await testApp();
    const res = await t.app.request("/api/nothing-here");
    expect(res.status).toBe(404);
    expect((await res.json()).request_id).toBe(res.headers.get("x-request-id"));
  });

  test("an id the client sends is logged beside ours, never in its place", async () => {
    const t = await testApp();
    const lines = logLines();
    const res = await t.app.request("/api/health", { headers: { "x-request-id": "someone-elses-id" } });
    const id = res.headers.get("x-request-id");
    expect(id).not.toBe("someone-elses-id");
    expect(lines.find((l) => l.request_id === id)).toMatchObject({ upstream_id: "someone-elses-id" });
  });

  test("lines logged while a request is answered carry its id, even after an await", async () => {
    const t = await testApp();
    const { log } = await import("../../server/log.ts");
    t.app.get("/api/probe/logs", async (c) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      log.warn("something worth a look", { detail: 42 });
      return c.json({ body: true });
    });
    const lines = logLines();
    const [a, b] = await Promise.all([t.app.request("/api/probe/logs"), t.app.request("/api/probe/logs")]);
    for (const res of [a, b]) {
      const id = res.headers.get("x-request-id");
      expect(lines.filter((l) => l.request_id === id).map((l) => l.msg)).toEqual(["something worth a look", "request"]);
    }
  });
});

describe("GET /api/health", () => {
  test("answers the database's round trip and the job queue's depth", async () => {
    const t = await testApp();
    const probe = defineJob("test.probe", { payload: z.object({}), run: async () => {} });
    for (let i = 0; i < 3; i++) await enqueue(t.db, probe, {});
    await t.db.$client.execute("UPDATE jobs SET status = 'failed' WHERE id = (SELECT min(id) FROM jobs)");
    const res = await t.app.request("/api/health");
    expect(res.status).toBe(200);
    const { body } = await res.json();
    expect(body).toEqual({
      ok: true,
      database: { round_trip_ms: expect.any(Number) },
      jobs: { queued: 2, running: 0, failed: 1 },
    });
    expect(body.database.round_trip_ms).toBeGreaterThanOrEqual(0);
    expect(body.database.round_trip_ms).toBeLessThan(5_000);
  });
});

describe("GET /metrics", () => {
  test("does not exist without METRICS_TOKEN: the 404 of any unknown path", async () => {
    const t = await testApp();
    const res = await t.app.request("/metrics", { headers: { authorization: "Bearer anything" } });
    expect(res.status).toBe(404);
  });

  test("refuses a missing or wrong token with the same answer as an unknown path", async () => {
    const t = await testApp({ env: { METRICS_TOKEN: TOKEN } });
    const unknown = await t.app.request("/metrics-nothing");
    const pageOf = async (res: Response) =>
      (await res.text()).replace(/[0-9a-f]{16}/g, "ID").replace(/nonce-[^']+/g, "");
    const unknownPage = await pageOf(unknown);
    for (
      const headers of [
        {} as Record<string, string>,
        { authorization: `Bearer ${TOKEN}x` },
        { authorization: `Bearer ${TOKEN.slice(0, -1)}` },
        { authorization: TOKEN },
        { authorization: `Basic ${btoa(`x:${TOKEN}`)}` },
      ]
    ) {
      const res = await t.app.request("/metrics", { headers });
      expect(res.status, JSON.stringify(headers)).toBe(404);
      expect((await pageOf(res)).replace("/metrics", "/metrics-nothing")).toBe(unknownPage);
    }
  });

  test("answers the Prometheus text format to its token: requests by route pattern, jobs, transfers", async () => {
    const t = await testApp({ env: { METRICS_TOKEN: TOKEN } });
    await t.app.request("/api/health");
    await t.app.request("/api/health");
    t.signIn(makeUser());
    await t.app.request("/api/account/recipients/5");
    await t.app.request("/api/account/recipients/77");
    const probe = defineJob("test.probe", { payload: z.object({}), run: async () => {} });
    await enqueue(t.db, probe, {});

    const res = await t.app.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const text = await res.text();
    const samples = parseExposition(text);

    expect(samples.get('portal_http_requests_total{method="GET",route="/api/health",status="200"}')).toBe(2);
    const recipient = [...samples.keys()].filter((k) => k.includes("/api/account/recipients"));
    expect(recipient.every((k) => k.includes('route="/api/account/recipients/:id"'))).toBe(true);
    expect(text).not.toContain("recipients/77");
    const base = 'method="GET",route="/api/health"';
    expect(samples.get(`portal_http_request_duration_seconds_count{${base}}`)).toBe(2);
    expect(samples.get(`portal_http_request_duration_seconds_bucket{${base},le="+Inf"}`)).toBe(2);
    // Buckets are cumulative: each at least the one before.
    const buckets = DURATION_BUCKETS.map((le) =>
      samples.get(`portal_http_request_duration_seconds_bucket{${base},le="${le}"}`)!
    );
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]).toBeGreaterThanOrEqual(buckets[i - 1]);
    expect(samples.get('portal_jobs{kind="test.probe",status="queued"}')).toBe(1);
    expect(text).toContain("# TYPE portal_ledger_transfers_total counter");
    expect(text).toContain("# TYPE portal_http_request_duration_seconds histogram");
  });

  test("counts the ledger's transfers by kind, the new ones at each scrape", async () => {
    const t = await testApp({ env: { METRICS_TOKEN: TOKEN } });
    const scrape = async () =>
      parseExposition(
        await (await t.app.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } })).text(),
      );
    // Rows as the ledger writes them (the metrics only count them).
    const record = (kind: string, n: number) =>
      t.db.$client.execute({
        sql: `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
          INSERT INTO ledger_transfers (kind, description, reference, created_at)
          SELECT ?, 'counted', ? || '-' || i || '-' || random(), 0 FROM k`,
        args: [n, kind, kind],
      });
    const count = (samples: Map<string, number>, kind: string) =>
      samples.get(`portal_ledger_transfers_total{kind="${kind}"}`);

    const before = await scrape();
    const receipts = count(before, "receipt") ?? 0;
    await record("receipt", 3);
    const first = await scrape();
    expect(count(first, "receipt")).toBe(receipts + 3);
    await record("conversion", 2);
    await record("receipt", 1);
    const [second, third] = await Promise.all([scrape(), scrape()]);
    expect(count(second, "receipt")).toBe(receipts + 4);
    expect(count(second, "conversion")).toBe((count(before, "conversion") ?? 0) + 2);
    // Both read the same rows; this process's own request counts may move between them.
    const fromRows = (samples: Map<string, number>) =>
      [...samples].filter(([name]) => !name.startsWith("portal_http_"));
    expect(fromRows(third)).toEqual(fromRows(second));
    const { rows } = await t.db.$client.execute("SELECT kind, count(*) AS n FROM ledger_transfers GROUP BY kind");
    for (const row of rows) expect(count(third, String(row.kind)), String(row.kind)).toBe(Number(row.n));
  });
});

describe("Strict-Transport-Security", () => {
  test("is sent when PUBLIC_URL is https, for a year and the subdomains", async () => {
    const t = await testApp({ env: { PUBLIC_URL: "https://portal.example" } });
    for (const path of ["/", "/api/health", "/nowhere"]) {
      const res = await t.app.request(path);
      expect(res.headers.get("strict-transport-security"), path).toBe("max-age=31536000; includeSubDomains");
    }
  });

  test("is not sent when PUBLIC_URL is http (a developer's machine)", async () => {
    const t = await testApp({ env: { PUBLIC_URL: "http://localhost:8000" } });
    for (const path of ["/", "/api/health"]) {
      expect((await t.app.request(path)).headers.get("strict-transport-security"), path).toBeNull();
    }
  });
});

/**
 * The text format, read strictly: every line a comment (# HELP / # TYPE name type) or a sample
 * `name{label="value",...} number` of a family declared before it. Answers the samples by their
 * name and labels as written.
 */
function parseExposition(text: string): Map<string, number> {
  expect(text.endsWith("\n")).toBe(true);
  const declared = new Map<string, string>();
  const samples = new Map<string, number>();
  for (const line of text.slice(0, -1).split("\n")) {
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      expect(declared.has(type[1]), `${type[1]} declared twice`).toBe(false);
      declared.set(type[1], type[2]);
      continue;
    }
    if (/^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .+$/.test(line)) continue;
    const sample =
      /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*"(?:,|(?=\})))*\})? (-?[0-9.e+-]+|NaN|[+-]Inf)$/
        .exec(line);
    expect(sample, `not a sample: ${line}`).not.toBeNull();
    const name = sample![1];
    const family = declared.has(name) ? name : name.replace(/_(bucket|sum|count)$/, "");
    expect(declared.has(family), `${name} has no # TYPE before it`).toBe(true);
    samples.set(name + (sample![2] ?? ""), Number(sample![3]));
  }
  return samples;
}

describe("the graceful stop's drain", () => {
  test("lets the requests under way finish, refuses new ones with a 503 to retry, and ends when the last answers", async () => {
    const draining = new Draining();
    const app = new Hono<AppEnv>();
    app.use(draining.middleware());
    const started = Promise.withResolvers<void>();
    const gate = Promise.withResolvers<void>();
    app.get("/slow", async (c) => {
      started.resolve();
      await gate.promise;
      return c.text("done");
    });
    const slow = app.request("/slow");
    await started.promise;
    let drained = false;
    const drain = draining.drain(60_000).then(() => (drained = true));

    const refused = await app.request("/slow");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect((await refused.json()).error).toBe("The portal is restarting: try again in a moment.");
    expect(drained).toBe(false);

    gate.resolve();
    const answer = await slow;
    expect([answer.status, await answer.text()]).toEqual([200, "done"]);
    await drain;
    expect(drained).toBe(true);
  });
});
