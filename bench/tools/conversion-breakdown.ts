/**
 * Where a conversion's CPU time goes, in-process (not run by the task): the portal is built as
 * main.ts builds it, on a fresh database, served on a free port only for the set-up over HTTP (an
 * administrator, one funded customer); then each kind of call is driven through `app.fetch` (no
 * sockets) or called directly, and timed in CPU µs per call of this process (the libSQL binding
 * runs on the calling thread, commit's disk sync included as wall time of a blocked thread, not
 * CPU: see "wall µs").
 *
 *   NODE_ENV=production deno run -A bench/tools/conversion-breakdown.ts [--n 400] [--only TEXT]
 *   NODE_ENV=production deno run -A --cpu-prof --cpu-prof-dir=/tmp/prof bench/tools/conversion-breakdown.ts --only balances
 *
 * Run it with nothing else busy. When createApp's dependencies change, this needs the same change.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { openMigratedDatabase } from "../../db/client.ts";
import { createApp, createServices } from "../../app.ts";
import { loadConfig } from "../../server/config.ts";
import { executeQuote } from "../../server/money/conversions.ts";
import { seedMoney } from "../../server/money/store.ts";
import { loadAssets } from "../../server/render/assets.ts";
import { createAdminOverHttp, fundedCustomerOverHttp } from "../../tests/helpers/http-customer.ts";

const arg = (name: string) => (Deno.args.includes(name) ? Deno.args[Deno.args.indexOf(name) + 1] : undefined);
const n = Number(arg("--n") ?? 400);
/** Only the measurements whose label contains this text (to profile one with --cpu-prof). */
const only = arg("--only");
const dir = mkdtempSync(join(tmpdir(), "portal-breakdown-"));
const port = 20_000 + Math.floor(Math.random() * 20_000);
for (
  const [k, v] of Object.entries({
    DATABASE_URL: `file:${join(dir, "portal.db")}`,
    APP_ENV: "production",
    APP_SECRET: crypto.randomUUID() + crypto.randomUUID(),
    QUOTE_VALIDITY_SECONDS: "3600",
    // Funding the customer is one receipt, credited at once.
    RECEIPT_APPROVAL_GBP: "1000000000",
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
  })
) Deno.env.set(k, v);

const config = loadConfig();
const db = await openMigratedDatabase({ url: config.databaseUrl });
await seedMoney(db);
const services = await createServices(db, config);
const app = createApp({ db, config, assets: loadAssets(config.distDir), services });
const server = Deno.serve({ port, hostname: "127.0.0.1", onListen: () => {} }, app.fetch);

try {
  const base = `http://127.0.0.1:${port}`;
  const admin = await createAdminOverHttp(base, db);
  const customer = await fundedCustomerOverHttp(base, db, admin, { funds: { GBP: "100000000.00" } });
  const cookie = customer.session.cookieHeader();
  const headers = { "Content-Type": "application/json", Accept: "application/json", Cookie: cookie };
  const call = async (method: string, path: string, body?: unknown, idempotencyKey?: string) => {
    const res = await app.fetch(
      new Request(base + "/api/" + path, {
        method,
        headers: idempotencyKey ? { ...headers, "Idempotency-Key": idempotencyKey } : headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    const json = await res.json();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json.body;
  };
  const holdQuote = () =>
    call("POST", "account/conversions/quote", {
      sell_currency: "GBP",
      buy_currency: "EUR",
      amount: "10.00",
      fixed: "sell",
    });
  const [{ accountId }] = (await db.$client.execute({
    sql: "SELECT account_id AS accountId FROM account_members WHERE user_id = ?",
    args: [customer.id],
  })).rows as unknown as { accountId: number }[];

  const measure = async (label: string, work: (i: number) => Promise<unknown>, prepare?: () => Promise<void>) => {
    if (only && !label.includes(only)) return;
    if (prepare) await prepare();
    for (let i = 0; i < 20; i++) await work(i); // warm-up
    if (prepare) await prepare();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await work(i);
    const wall = (performance.now() - t0) * 1000 / n;
    const cpu = process.cpuUsage(cpu0);
    console.log(
      `${label.padEnd(62)} ${((cpu.user + cpu.system) / n).toFixed(0).padStart(6)} CPU µs  ${
        wall.toFixed(0).padStart(6)
      } wall µs`,
    );
  };

  let quotes: string[] = [];
  // Quotes for the executions: one held over HTTP, copied in one transaction (so that a CPU
  // profile of an execution measurement is not mostly quote holding).
  const holdMany = async () => {
    const template = (await holdQuote()).id as string;
    quotes = Array.from({ length: n + 20 }, () => crypto.randomUUID());
    await db.$client.batch(
      quotes.map((id) => ({
        sql:
          `INSERT INTO quotes (id, account_id, user_id, sell_currency, buy_currency, sell_minor, buy_minor, fee_minor, mid_rate, rate, bps, expires_at, used_at, created_at)
            SELECT ?, account_id, user_id, sell_currency, buy_currency, sell_minor, buy_minor, fee_minor, mid_rate, rate, bps, expires_at, NULL, created_at FROM quotes WHERE id = ?`,
        args: [id, template],
      })),
      "write",
    );
  };
  console.log(`${n} calls each, CPU µs per call of this process:`);
  await measure(
    "GET health (no session, one read)",
    async () => (await app.fetch(new Request(base + "/api/health"))).text(),
  );
  await measure("GET account/funding (sign-in layer, guards, no read)", () => call("GET", "account/funding"));
  await measure("GET account/balances (sign-in layer, guards, one read)", () => call("GET", "account/balances"));
  await measure("POST account/conversions/quote (hold a quote)", () => holdQuote());
  await measure(
    "POST account/conversions (execute a held quote)",
    () => call("POST", "account/conversions", { quote_id: quotes.shift() }),
    holdMany,
  );
  await measure("POST account/conversions × 16 at once (group commit)", async (i) => {
    if (i % 16 !== 0) return;
    await Promise.all(
      Array.from({ length: 16 }, () => call("POST", "account/conversions", { quote_id: quotes.shift() })),
    );
  }, holdMany);
  // As the convert page sends it: with an Idempotency-Key (server/http/idempotency.ts).
  await measure(
    "POST account/conversions with an Idempotency-Key",
    () => call("POST", "account/conversions", { quote_id: quotes.shift() }, crypto.randomUUID()),
    holdMany,
  );
  await measure("POST account/conversions with keys × 16 at once (group commit)", async (i) => {
    if (i % 16 !== 0) return;
    await Promise.all(
      Array.from(
        { length: 16 },
        () => call("POST", "account/conversions", { quote_id: quotes.shift() }, crypto.randomUUID()),
      ),
    );
  }, holdMany);
  // The convert page's real path: a quote held, then executed with an Idempotency-Key (issue 9).
  await measure("quote + execute with a key × 16 at once (pairs)", async (i) => {
    if (i % 16 !== 0) return;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        const { id } = await holdQuote();
        await call("POST", "account/conversions", { quote_id: id }, crypto.randomUUID());
      }),
    );
  });
  await measure("POST account/conversions/quote × 16 at once", async (i) => {
    if (i % 16 !== 0) return;
    await Promise.all(Array.from({ length: 16 }, () => holdQuote()));
  });
  await measure(
    "  executeQuote() alone",
    () => executeQuote(db, { accountId, userId: customer.id }, quotes.shift()!, new Date()),
    holdMany,
  );
  await measure("  executeQuote() × 16 at once (group commit)", async (i) => {
    if (i % 16 !== 0) return;
    await Promise.all(
      Array.from(
        { length: 16 },
        () => executeQuote(db, { accountId, userId: customer.id }, quotes.shift()!, new Date()),
      ),
    );
  }, holdMany);
  await measure("  an empty write transaction (BEGIN IMMEDIATE, COMMIT)", () => db.transaction(async () => {}));
  await measure("  SELECT 1 through the client", () => db.$client.execute("SELECT 1"));
} finally {
  await server.shutdown();
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
}
