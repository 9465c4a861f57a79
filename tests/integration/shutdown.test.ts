/**
 * A graceful stop in the middle of a stream of conversions (decision 041): the real portal
 * (main.ts) is sent SIGTERM while four loops of quote + execute run against it, and
 * - it exits with status 0, having answered the requests it was working on and given back its
 *   job leases (no job left `running`): one execution is deliberately in flight at the signal (its
 *   body half sent, the portal having logged its start) and is answered 201 once the rest of its
 *   body arrives after the signal;
 * - no request was cut off after its effect: no conversion is stored whose execution got no answer;
 * - after a restart on the same file, every acknowledged (201) conversion is there with its
 *   ledger transfer, the ledger check passes, and the restarted portal converts again;
 * - what it logged is one JSON object per line, each request's line with its id.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, test, vi } from "vitest";
import { openDatabase } from "../../db/client.ts";
import { checkLedger, formatReport } from "../../server/ledger/check.ts";
import { missingConversions, startConversions } from "../helpers/conversion-stream.ts";
import {
  createAdminOverHttp,
  fundedCustomerOverHttp,
  type HttpCustomer,
  startServerOn,
} from "../helpers/http-customer.ts";
import { type RunningServer, startServer } from "../helpers/server.ts";

vi.setConfig({ testTimeout: 240_000 });

const ENV = {
  APP_ENV: "test",
  APP_SECRET: crypto.randomUUID(),
  QUOTE_VALIDITY_SECONDS: "600",
  // Funding of 100,000 would otherwise wait for a second administrator (decision 026).
  RECEIPT_APPROVAL_GBP: "10000000",
  // A line per request, and one when each starts: the test waits for its slow request's.
  LOG_LEVEL: "debug",
};
const FUNDS: Record<string, string> = { GBP: "100000.00", EUR: "100000.00" };

let server: RunningServer | null = null;
let dataDir: string | null = null;
afterAll(async () => {
  if (server) {
    try {
      server.process.kill("SIGKILL");
    } catch { /* already gone */ }
    await server.process.status;
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test("SIGTERM during a stream of conversions loses no acknowledged conversion and cuts no request off", async () => {
  server = await startServer("main.ts", ENV);
  dataDir = server.dataDir;
  const databaseUrl = `file:${join(dataDir, "portal.db")}`;
  const mailbox = await openDatabase({ url: databaseUrl });
  let customers: HttpCustomer[];
  try {
    const admin = await createAdminOverHttp(server.url, mailbox);
    customers = [
      await fundedCustomerOverHttp(server.url, mailbox, admin, { funds: FUNDS, first: "Stop", last: "One" }),
      await fundedCustomerOverHttp(server.url, mailbox, admin, { funds: FUNDS, first: "Stop", last: "Two" }),
    ];
  } finally {
    mailbox.$client.close();
  }

  const stream = startConversions(customers, { loops: 4 });
  await stream.answeredAtLeast(30);
  const quote = await customers[0].session.post("account/conversions/quote", {
    sell_currency: "GBP",
    buy_currency: "EUR",
    amount: "25.00",
    fixed: "sell",
  });
  expect(quote.status, quote.text).toBe(200);
  const slow = await slowExecution(server.url, customers[0].session.cookieHeader(), quote.json.body.id);
  const running = server;
  await vi.waitFor(() => expect(running.output()).toContain(`"upstream_id":"${PROBE}"`), { timeout: 30_000 });
  stream.serverGoing();
  server.process.kill("SIGTERM");
  await vi.waitFor(() => expect(running.output()).toContain('"msg":"stopping"'), { timeout: 30_000 });
  const answer = await slow.finish();
  const status = await server.process.status;
  const outcome = await stream.stop();
  const linesOf = (text: string) => running.output().split("\n").filter((line) => line.includes(text)).join("\n");
  expect(answer.split("\r\n")[0], `${answer}\n${linesOf(PROBE)}\n${linesOf('"level":"error"')}`).toBe(
    "HTTP/1.1 201 Created",
  );
  // The body, whether sent whole or in chunks (one chunk here): from its first brace to its last.
  const inFlight = JSON.parse(answer.slice(answer.indexOf("{"), answer.lastIndexOf("}") + 1)).body;
  expect(inFlight).toMatchObject({ quote_id: quote.json.body.id, sell_amount: "25.00" });
  outcome.answered.push(inFlight);
  const output = await server.outputAtEnd();
  expect(outcome.unexpected, "answers before the signal").toEqual([]);
  expect(status.code, output.slice(-3000)).toBe(0);

  const stopped = await openDatabase({ url: databaseUrl });
  try {
    const running = await stopped.$client.execute("SELECT count(*) AS n FROM jobs WHERE status = 'running'");
    expect(Number(running.rows[0].n), "jobs still leased after the stop").toBe(0);
    const { rows } = await stopped.$client.execute({
      sql: "SELECT quote_id FROM conversions WHERE quote_id IN (SELECT value FROM json_each(?))",
      args: [JSON.stringify(outcome.unanswered)],
    });
    expect(rows.map((row) => row.quote_id), "conversions stored whose request got no answer").toEqual([]);
  } finally {
    stopped.$client.close();
  }

  // Every line the portal wrote is a JSON object; each request's line has its id. (Deno's own
  // notices on stderr, such as its note on Deno.serve's request.signal, are not the portal's log.)
  const lines = output.split("\n").filter((line) => line.trim() !== "" && !/^(Deno\.|Warning\b)/.test(line));
  const parsed = lines.map((line) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(`Not a JSON line: ${line}`);
    }
  });
  const requests = parsed.filter((line) => line.msg === "request");
  expect(requests.length).toBeGreaterThan(outcome.answered.length);
  for (const line of requests) {
    expect(line).toMatchObject({ level: "info", request_id: expect.stringMatching(/^[0-9a-f]{16}$/) });
  }
  expect(new Set(requests.map((line) => line.request_id)).size).toBe(requests.length);
  expect(requests.some((line) => line.route === "/api/account/conversions" && line.status === 201)).toBe(true);
  expect(parsed.map((line) => line.msg)).toEqual(expect.arrayContaining(["stopping", "stopped"]));
  const probe = parsed.find((line) => line.upstream_id === PROBE && line.msg === "request");
  expect(probe).toMatchObject({ route: "/api/account/conversions", status: 201 });

  // Restarted on the same file: everything acknowledged is there, and the ledger checks out.
  server = await startServerOn(dataDir, "main.ts", ENV, 60_000);
  const restarted = await openDatabase({ url: databaseUrl });
  try {
    const report = await checkLedger(restarted);
    expect(report.violations, formatReport(report)).toEqual([]);
    expect(await missingConversions(restarted, outcome.answered), "acknowledged conversions missing").toEqual([]);
  } finally {
    restarted.$client.close();
  }
  for (const customer of customers) customer.session.baseUrl = server.url;
  const again = startConversions(customers, { loops: 1 });
  await again.answeredAtLeast(1);
  const after = await again.stop();
  expect(after.unexpected).toEqual([]);
  expect(after.answered.length).toBeGreaterThan(0);
});

/** The X-Request-Id of the slow execution, to find its lines in the portal's log. */
const PROBE = "in-flight-probe";

/**
 * An execution sent over a raw connection with half its body: the portal starts answering it
 * (its body is read as it comes) and waits for the rest. `finish` sends the rest and answers the
 * raw HTTP answer, or throws when the connection was cut.
 */
async function slowExecution(baseUrl: string, cookie: string, quoteId: string) {
  const { hostname, port } = new URL(baseUrl);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const body = new TextEncoder().encode(JSON.stringify({ quote_id: quoteId }));
  const head = [
    "POST /api/account/conversions HTTP/1.1",
    `Host: ${hostname}:${port}`,
    `Cookie: ${cookie}`,
    "Content-Type: application/json",
    `Content-Length: ${body.length}`,
    `Idempotency-Key: slow-${crypto.randomUUID()}`,
    `X-Request-Id: ${PROBE}`,
    "Connection: close",
    "",
    "",
  ].join("\r\n");
  const half = Math.floor(body.length / 2);
  await writeAll(conn, new TextEncoder().encode(head));
  await writeAll(conn, body.subarray(0, half));
  return {
    async finish(): Promise<string> {
      await writeAll(conn, body.subarray(half));
      const chunks: Uint8Array<ArrayBuffer>[] = [];
      const buffer = new Uint8Array(16 * 1024);
      for (;;) {
        const n = await conn.read(buffer);
        if (n === null) break;
        chunks.push(buffer.slice(0, n));
      }
      conn.close();
      return new TextDecoder().decode(await new Blob(chunks).arrayBuffer());
    },
  };
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array) {
  for (let written = 0; written < bytes.length;) written += await conn.write(bytes.subarray(written));
}
