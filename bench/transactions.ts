/**
 * Transactions with 100,000 movements on one account (docs/PERFORMANCE.md, "Transactions"):
 *
 *   deno task bench --only transactions
 *
 * 1. A portal of its own (main.ts, production, a fresh database), a funded customer made over HTTP
 *    like people would; then bench/lib/seed-movements.ts writes MOVEMENTS movements of that account
 *    straight into the ledger tables (batched inserts, balanced entries, balances updated), with the
 *    receipts behind the receipts, so that the ledger check still holds.
 * 2. Each page, asked SAMPLES times one after another over one keep-alive connection: the answer's
 *    time seen by the client, an upper bound of the server's (the connection is local). p95 of each
 *    against the budget of 50 ms.
 * 3. The CSV of every movement, streamed twice: the portal's resident memory sampled every 10 ms
 *    while it streams, its growth over what it held before; the second's against the budget of
 *    50 MB (the first also fills SQLite's page cache, which is bounded); every row counted.
 */
import { openDatabase } from "../db/client.ts";
import { checkLedger, formatReport } from "../server/ledger/check.ts";
import { createAdminOverHttp, fundedCustomerOverHttp } from "../tests/helpers/http-customer.ts";
import { seedMovements } from "./lib/seed-movements.ts";
import { startPortal } from "./lib/processes.ts";
import { type BenchContext, type BenchModule, fmt, percentile, type SummaryRow, table } from "./lib/report.ts";

const MOVEMENTS = 100_000;
const SAMPLES = 100;
const MAX_P95_MS = 50;
const MAX_CSV_GROWTH_MB = 50;

/** Resident memory of a process, in bytes (Linux). */
function rssOf(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

export const transactionsBench: BenchModule = {
  name: "transactions",
  async run(ctx: BenchContext) {
    const portal = await startPortal({
      name: "portal for transactions (main.ts)",
      cpuProfileDir: ctx.options.cpuProfileDir,
    });
    const rows: SummaryRow[] = [];
    try {
      const db = await openDatabase({ url: `file:${portal.databasePath}` });
      let cookie: string;
      let seeded: Awaited<ReturnType<typeof seedMovements>>;
      try {
        const admin = await createAdminOverHttp(portal.url, db);
        const customer = await fundedCustomerOverHttp(portal.url, db, admin, {
          funds: { GBP: "100.00" },
          first: "Bench",
          last: "Accountant",
        });
        cookie = customer.session.cookieHeader();
        const started = performance.now();
        seeded = await seedMovements(db, { accountRef: customer.accountRef, adminId: admin.id, count: MOVEMENTS });
        console.log(
          `seeded ${fmt(MOVEMENTS)} movements in ${fmt((performance.now() - started) / 1000, 1)} s`,
        );
        const report = await checkLedger(db);
        if (!report.ok) throw new Error(`The seeded ledger is not sound:\n${formatReport(report)}`);
      } finally {
        db.$client.close();
      }

      const get = (path: string) =>
        fetch(`${portal.url}${path}`, { headers: { Cookie: cookie, Accept: "application/json" } });
      const middle = new Date(seeded.middleAt).toISOString().slice(0, 10);
      const pages: [string, string][] = [
        ["first page (50)", "/api/account/transactions"],
        ["currency=EUR", "/api/account/transactions?currency=EUR"],
        ["kind=conversion", "/api/account/transactions?kind=conversion"],
        ["status=completed", "/api/account/transactions?status=completed"],
        [`from/to one day (${middle})`, `/api/account/transactions?from=${middle}&to=${middle}`],
        ["q=payer name (1 in 100 receipts)", `/api/account/transactions?q=${encodeURIComponent(seeded.rarePayer)}`],
        ["q=currency+kind+text", `/api/account/transactions?currency=EUR&kind=receipt&q=Payer`],
        ["100 a page, page 2 by cursor", "/api/account/transactions?limit=100&cursor=CURSOR"],
      ];
      const first = await (await get("/api/account/transactions?limit=100")).json();
      const lines: string[][] = [];
      for (const [name, raw] of pages) {
        const path = raw.replace("CURSOR", first.body.next_cursor);
        const times: number[] = [];
        let count = 0;
        for (let i = 0; i < SAMPLES + 5; i++) {
          const t0 = performance.now();
          const res = await get(path);
          const body = await res.json();
          const ms = performance.now() - t0;
          if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
          count = body.body.items.length;
          if (i >= 5) times.push(ms);
        }
        times.sort((a, b) => a - b);
        const p95 = percentile(times, 95);
        lines.push([name, String(count), fmt(percentile(times, 50), 1), fmt(p95, 1)]);
        rows.push({
          metric: `transactions ${name}: p95`,
          value: `${fmt(p95, 1)} ms`,
          budget: { limit: `≤ ${MAX_P95_MS} ms`, pass: p95 <= MAX_P95_MS },
        });
      }
      console.log(table(["page", "items", "p50 ms", "p95 ms"], lines));
      // Two cores shared: how busy the machine was says how far the times stand above the server's.
      console.log(`load average: ${Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ")}`);

      // The CSV of everything, streamed, with the portal's memory watched meanwhile: twice. The first
      // also fills SQLite's page cache (cache_size 32 MB a connection, db/client.ts) and grows V8's
      // heap to its working size, both bounded whatever the rows; the second shows what streaming
      // itself holds.
      const stream = async () => {
        const before = rssOf(portal.pid);
        let peak = before;
        const watch = setInterval(() => {
          peak = Math.max(peak, rssOf(portal.pid));
        }, 10);
        const t0 = performance.now();
        const res = await get("/api/account/transactions.csv");
        let newlines = 0;
        let bytes = 0;
        for await (const chunk of res.body!) {
          bytes += chunk.length;
          for (const byte of chunk) if (byte === 10) newlines++;
        }
        clearInterval(watch);
        peak = Math.max(peak, rssOf(portal.pid));
        return { rows: newlines - 1, bytes, seconds: (performance.now() - t0) / 1000, before, peak };
      };
      for (const [round, run] of [["first", await stream()], ["second", await stream()]] as const) {
        const growthMb = (run.peak - run.before) / 1e6;
        console.log(
          `CSV (${round}): ${fmt(run.rows)} rows, ${fmt(run.bytes / 1e6, 1)} MB in ${fmt(run.seconds, 1)} s; ` +
            `portal memory ${fmt(run.before / 1e6)} MB before, ${fmt(run.peak / 1e6)} MB at most`,
        );
        rows.push({
          metric: `transactions CSV (${round}): rows streamed`,
          value: fmt(run.rows),
          budget: { limit: `= ${fmt(seeded.movements)}`, pass: run.rows === seeded.movements },
        });
        rows.push(
          round === "second"
            ? {
              metric: "transactions CSV (second): memory growth",
              value: `${fmt(growthMb, 1)} MB`,
              budget: { limit: `≤ ${MAX_CSV_GROWTH_MB} MB`, pass: growthMb <= MAX_CSV_GROWTH_MB },
            }
            : { metric: "transactions CSV (first, cold caches): memory growth", value: `${fmt(growthMb, 1)} MB` },
        );
        rows.push({ metric: `transactions CSV (${round}): time`, value: `${fmt(run.seconds, 1)} s` });
      }
    } finally {
      await portal.stop();
    }
    return { name: "transactions", rows };
  },
};
