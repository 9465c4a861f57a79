import { createClient } from "@libsql/client";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { type HranaServer, startHranaServer } from "../helpers/hrana/server.ts";

/**
 * The test Hrana server (tests/helpers/hrana/, decision 014) against the protocol's specification:
 * the tests of the "hrana" project are only as honest as it is. Requests here are the protocol's
 * JSON, sent with fetch; one test goes through @libsql/client as the portal does.
 */

const dir = mkdtempSync(join(tmpdir(), "hrana-server-"));
const servers: HranaServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const TOKEN = "a-test-token";

function serve(options: { streamIdleMs?: number } = {}): HranaServer {
  const server = startHranaServer({ path: join(dir, `db-${servers.length}.db`), authToken: TOKEN, ...options });
  servers.push(server);
  return server;
}

// deno-lint-ignore no-explicit-any
type Json = any;

async function pipeline(server: HranaServer, baton: string | null, requests: Json[], version = 2) {
  const response = await fetch(`${server.url}/v${version}/pipeline`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ baton, requests }),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: response.headers.get("content-type") === "application/json" ? JSON.parse(text) : text,
  };
}

const execute = (sql: string, args: Json[] = []) => ({ type: "execute", stmt: { sql, args } });

describe("streams and batons", () => {
  const server = serve();

  test("a baton continues its stream: a transaction begun in one request is still open in the next", async () => {
    await pipeline(server, null, [execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"), {
      type: "close",
    }]);
    const first = await pipeline(server, null, [execute("BEGIN"), execute("INSERT INTO notes (body) VALUES ('held')")]);
    expect(first.status).toBe(200);
    expect(first.body.results.map((r: Json) => r.type)).toEqual(["ok", "ok"]);
    expect(typeof first.body.baton).toBe("string");

    const second = await pipeline(server, first.body.baton, [{ type: "get_autocommit" }], 3);
    expect(second.body.results[0].response).toEqual({ type: "get_autocommit", is_autocommit: false });
    // Another stream does not see the uncommitted row.
    const other = await pipeline(server, null, [execute("SELECT count(*) FROM notes"), { type: "close" }]);
    expect(other.body.results[0].response.result.rows).toEqual([[{ type: "integer", value: "0" }]]);

    const closed = await pipeline(server, second.body.baton, [execute("COMMIT"), { type: "close" }]);
    expect(closed.body.baton).toBeNull();
    const after = await pipeline(server, null, [execute("SELECT body FROM notes"), { type: "close" }]);
    expect(after.body.results[0].response.result.rows).toEqual([[{ type: "text", value: "held" }]]);
  });

  test("a baton used twice, forged, or naming a closed stream is refused with HTTP 400", async () => {
    const opened = await pipeline(server, null, [execute("SELECT 1")]);
    const baton = opened.body.baton as string;
    expect((await pipeline(server, baton, [execute("SELECT 2")])).status).toBe(200);
    expect((await pipeline(server, baton, [execute("SELECT 3")])).status).toBe(400);
    const forged = baton.slice(0, -4) + (baton.endsWith("AAAA") ? "BBBB" : "AAAA");
    expect((await pipeline(server, forged, [execute("SELECT 4")])).status).toBe(400);
  });

  test("without the auth token every request is refused (401)", async () => {
    const response = await fetch(`${server.url}/v2/pipeline`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ baton: null, requests: [execute("SELECT 1")] }),
    });
    expect(response.status).toBe(401);
    await response.body?.cancel();
  });

  test("a stream left idle past its limit expires: its transaction is rolled back and its baton answers STREAM_EXPIRED", async () => {
    const quick = serve({ streamIdleMs: 50 });
    await pipeline(quick, null, [execute("CREATE TABLE t (n INTEGER)"), { type: "close" }]);
    const open = await pipeline(quick, null, [execute("BEGIN"), execute("INSERT INTO t VALUES (1)")]);
    await new Promise((resolve) => setTimeout(resolve, 120));
    const seen = await pipeline(quick, null, [execute("SELECT count(*) FROM t"), { type: "close" }]);
    expect(seen.body.results[0].response.result.rows).toEqual([[{ type: "integer", value: "0" }]]);
    const late = await pipeline(quick, open.body.baton, [execute("COMMIT")]);
    expect(late.status).toBe(500);
    expect(late.body).toEqual({ message: "The stream has expired due to inactivity", code: "STREAM_EXPIRED" });
  });
});

describe("statements, values and errors", () => {
  const server = serve();

  test("integers travel as decimal strings (64 bits exactly), floats as numbers, blobs in base64", async () => {
    const { body } = await pipeline(server, null, [
      execute("SELECT 9223372036854775807 AS big, ? AS echoed, 1.5 AS f, x'00ff' AS b, 'é' AS t, NULL AS n", [
        { type: "integer", value: "9007199254740993" },
      ]),
      { type: "close" },
    ]);
    const result = body.results[0].response.result;
    expect(result.cols.map((c: Json) => c.name)).toEqual(["big", "echoed", "f", "b", "t", "n"]);
    expect(result.rows[0]).toEqual([
      { type: "integer", value: "9223372036854775807" },
      { type: "integer", value: "9007199254740993" },
      { type: "float", value: 1.5 },
      { type: "blob", base64: "AP8=" },
      { type: "text", value: "é" },
      { type: "null" },
    ]);
  });

  test("two statements in one execute are refused (SQL_MANY_STATEMENTS); a sequence runs them all; SQLite's errors come with the base code", async () => {
    const { body } = await pipeline(server, null, [
      execute("CREATE TABLE s (n INTEGER UNIQUE); INSERT INTO s VALUES (1)"),
      {
        type: "sequence",
        sql: "CREATE TABLE s (n INTEGER UNIQUE); INSERT INTO s VALUES (1); INSERT INTO s VALUES (2);",
      },
      execute("INSERT INTO s VALUES (1)"),
      execute("SELECT count(*) FROM s"),
      { type: "close" },
    ]);
    const [many, sequence, duplicate, countAfter] = body.results;
    expect(many.error.code).toBe("SQL_MANY_STATEMENTS");
    expect(sequence).toEqual({ type: "ok", response: { type: "sequence" } });
    expect(duplicate.error).toEqual({
      message: "SQLite error: UNIQUE constraint failed: s.n",
      code: "SQLITE_CONSTRAINT",
    });
    expect(countAfter.response.result.rows).toEqual([[{ type: "integer", value: "2" }]]);
  });

  test("batch steps run on their conditions (ok, error, not, and, or, is_autocommit), and report a result or an error each", async () => {
    const step = (sql: string, condition?: Json) => ({ stmt: { sql }, ...(condition ? { condition } : {}) });
    const { body } = await pipeline(server, null, [{
      type: "batch",
      batch: {
        steps: [
          step("SELECT 1"),
          step("SELECT nonsense FROM nowhere"),
          step("SELECT 'after ok'", { type: "ok", step: 0 }),
          step("SELECT 'after error'", { type: "error", step: 1 }),
          step("SELECT 'skipped'", { type: "and", conds: [{ type: "ok", step: 0 }, { type: "ok", step: 1 }] }),
          step("SELECT 'either'", {
            type: "or",
            conds: [{ type: "ok", step: 1 }, { type: "not", cond: { type: "ok", step: 1 } }],
          }),
          step("SELECT 'in autocommit'", { type: "is_autocommit" }),
        ],
      },
    }, { type: "close" }], 3);
    const { step_results: results, step_errors: errors } = body.results[0].response.result;
    expect(results.map((r: Json) => r?.rows[0][0].value ?? null)).toEqual([
      "1",
      null,
      "after ok",
      "after error",
      null,
      "either",
      "in autocommit",
    ]);
    expect(errors.map((e: Json) => e?.code ?? null)).toEqual([null, "SQLITE_ERROR", null, null, null, null, null]);
  });

  test("a stored SQL text runs by its id within its stream; past 50 texts, storing is refused", async () => {
    const store = Array.from({ length: 51 }, (_, i) => ({ type: "store_sql", sql_id: i, sql: `SELECT ${i}` }));
    const { body } = await pipeline(server, null, [
      ...store,
      { type: "execute", stmt: { sql_id: 7 } },
      { type: "close" },
    ]);
    expect(body.results.slice(0, 50).every((r: Json) => r.type === "ok")).toBe(true);
    expect(body.results[50].error.code).toBe("SQL_STORE_TOO_MANY");
    expect(body.results[51].response.result.rows).toEqual([[{ type: "integer", value: "7" }]]);
  });
});

test("through @libsql/client, a write that meets another transaction's lock waits for it, then commits after it", async () => {
  const server = serve();
  const client = createClient({ url: server.url, authToken: TOKEN });
  try {
    await client.execute("CREATE TABLE turns (who TEXT)");
    const first = await client.transaction("write");
    await first.execute("INSERT INTO turns VALUES ('first')");
    const waitsBefore = server.stats.lockWaits;
    const second = client.execute("INSERT INTO turns VALUES ('second')");
    await expect.poll(() => server.stats.lockWaits).toBeGreaterThan(waitsBefore);
    await first.commit();
    await second;
    expect((await client.execute("SELECT who FROM turns ORDER BY rowid")).rows.map((row) => row.who)).toEqual([
      "first",
      "second",
    ]);
  } finally {
    client.close();
  }
});
