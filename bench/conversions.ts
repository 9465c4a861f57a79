/**
 * Conversions per second through the real portal over HTTP, next to a plain SQLite transaction of
 * the same rows measured in the same run (docs/PERFORMANCE.md, "Conversions").
 *
 *   deno task bench --only conversions [--rounds 3] [--warmup 2] [--duration 5]
 *
 * The measured operation is the execution of a held quote: POST /api/account/conversions
 * {quote_id}, answered 201. That is the request whose writes the plain transaction repeats (the
 * quote marked used, 5 balances, 1 ledger transfer, 5 entries, 1 conversion: bench/lib/
 * plain-conversions.ts). The quotes (POST /api/account/conversions/quote) are held before each
 * window, over HTTP too, and their rate is printed beside (not budgeted). Each round then runs a
 * second window in which every execution carries an Idempotency-Key, as the convert page sends
 * it (two more writes per request); its rate is printed beside too (not budgeted).
 *
 * 1. A portal of its own (main.ts, production, a fresh database; QUOTE_VALIDITY_SECONDS=3600 so
 *    that quotes held before a window are still valid in it), set up over HTTP like a person
 *    would: the first administrator (setup, login, the emailed code read from the database
 *    file), CUSTOMERS Personal customers onboarded with the sandbox identity provider, each funded
 *    by an administrator's receipt quoting their account_ref (tests/helpers/http-customer.ts).
 * 2. Rounds (--rounds, 3), each: the plain transaction loop (warm-up, then the measured window),
 *    then the portal: quotes held for the window, then CONNECTIONS keep-alive connections
 *    (raw HTTP/1.1, bench/lib/http1.ts) execute them back to back; the 201s completed inside the
 *    window are counted. Any other answer fails the benchmark. A round during which other
 *    processes used more than a quarter of a core is measured again (at most 3 times a run).
 * 2b. Two processes on one file (issue 12): a second portal (main.ts) on the same database, and
 *    --rounds pairs of windows, the connections dealt out over both processes, and the first
 *    alone; the ratio of each pair, its median budgeted (≥ 0.8).
 * 3. The medians; ratio = HTTP conversions/s ÷ plain transactions/s. Then the ledger check
 *    (server/ledger/check.ts) on the portal's database, beside the running portal, and on the
 *    plain one; every 201 must be a conversions row with its ledger transfer.
 */
import { openDatabase } from "../db/client.ts";
import { formatReport } from "../server/ledger/check.ts";
import { createAdminOverHttp, fundedCustomerOverHttp, type HttpCustomer } from "../tests/helpers/http-customer.ts";
import { checkConversions } from "./lib/conversions-check.ts";
import { holdQuotes, measureWindow, type WindowSample } from "./lib/keep-alive.ts";
import { PlainConversions, type PlainResult } from "./lib/plain-conversions.ts";
import { type RunningPortal, startPortal } from "./lib/processes.ts";
import { type BenchContext, type BenchModule, fmt, median, type SummaryRow, table } from "./lib/report.ts";

/** Budgets (docs/PERFORMANCE.md). */
const MIN_RATIO = 0.25;
const MIN_PER_SECOND = 1000;
/** Two processes on one file must not collapse under contention (issue 12): at least this of one. */
const MIN_TWO_PROCESS_RATIO = 0.8;

/** Customers, each with their own session; the connections are spread over them. */
const CUSTOMERS = 4;
/** Concurrent keep-alive connections executing quotes (the portal writes one transaction at a time). */
const CONNECTIONS = 16;
const FUNDS = "10000000.00"; // GBP per customer: 1,000,000 conversions of 10.00
const CONVERSION = { sell_currency: "GBP", buy_currency: "EUR", amount: "10.00", fixed: "sell" } as const;
/** Other processes using more than this (cores) in a window make it "disturbed". */
const DISTURBED = 0.25;
const MAX_REMEASURES = 3;

/** A window of executions, and the rate at which its quotes were held before it. */
type HttpSample = WindowSample & { quotesPerSecond: number };

interface Customer {
  cookie: string;
  quotes: string[];
}

const jsonHeaders = (cookie: string) => ({
  "Content-Type": "application/json",
  Cookie: cookie,
  Accept: "application/json",
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Holds `count` quotes per customer over HTTP (CONNECTIONS at once); answers quotes per second. */
const holdConversionQuotes = (url: string, customers: Customer[], count: number) =>
  holdQuotes(url, customers, count, CONNECTIONS, (customer) => ({
    path: "/api/account/conversions/quote",
    headers: jsonHeaders(customer.cookie),
    body: JSON.stringify(CONVERSION),
  }));

/** Executes the held quotes for warm-up + window; counts the 201s inside the window. */
function executeWindow(
  targets: RunningPortal[],
  customers: Customer[],
  warmupSeconds: number,
  durationSeconds: number,
  answered: { total: number },
  withKeys: boolean,
): Promise<WindowSample> {
  // With several processes on the file, the connections are dealt out over them in turn.
  return measureWindow({
    targets,
    connections: CONNECTIONS,
    warmupSeconds,
    durationSeconds,
    step: async (conn, i) => {
      const customer = customers[i % customers.length];
      const quoteId = customer.quotes.pop();
      if (quoteId === undefined) return false;
      const headers = withKeys
        ? { ...jsonHeaders(customer.cookie), "Idempotency-Key": crypto.randomUUID() }
        : jsonHeaders(customer.cookie);
      const res = await conn.request(
        "POST",
        "/api/account/conversions",
        headers,
        JSON.stringify({ quote_id: quoteId }),
      );
      if (res.status !== 201) {
        throw new Error(`POST /api/account/conversions answered ${res.status}: ${res.body.slice(0, 300)}`);
      }
      answered.total++;
      return true;
    },
  });
}

const pct = (v: number | null) => (v === null ? "?" : `${fmt(v * 100)} %`);

export const conversionsBench: BenchModule = {
  name: "conversions",
  async run(ctx: BenchContext) {
    const { warmupSeconds, durationSeconds, rounds } = ctx.options;
    const portalEnv = {
      QUOTE_VALIDITY_SECONDS: "3600",
      // The customers are funded with one large receipt each, which would otherwise wait for a
      // second administrator (decision 026).
      RECEIPT_APPROVAL_GBP: "1000000000",
      // One key for the two processes of the two-process windows, as a deployment has.
      APP_SECRET: crypto.randomUUID(),
    };
    const portal = await startPortal({
      name: "portal for conversions (main.ts)",
      cpuProfileDir: ctx.options.cpuProfileDir,
      env: portalEnv,
    });
    const plain = new PlainConversions();
    try {
      // 1. Set-up over HTTP.
      const setupStarted = performance.now();
      const mailbox = await openDatabase({ url: `file:${portal.databasePath}` });
      let people: HttpCustomer[];
      try {
        const admin = await createAdminOverHttp(portal.url, mailbox);
        people = [];
        for (let i = 0; i < CUSTOMERS; i++) {
          people.push(
            await fundedCustomerOverHttp(portal.url, mailbox, admin, {
              funds: { GBP: FUNDS },
              first: "Bench",
              last: `Customer${i + 1}`,
            }),
          );
        }
      } finally {
        mailbox.$client.close();
      }
      const customers: Customer[] = people.map((p) => ({ cookie: p.session.cookieHeader(), quotes: [] }));
      console.log(
        `  Portal ${portal.url} (pid ${portal.pid}); 1 administrator and ${CUSTOMERS} funded customers set up over HTTP in ${
          fmt((performance.now() - setupStarted) / 1000, 1)
        } s. ${CONNECTIONS} connections; ${CONVERSION.amount} ${CONVERSION.sell_currency} → ${CONVERSION.buy_currency} per conversion.`,
      );
      await plain.open();

      // 2. Rounds.
      const answered = { total: 0 };
      /** Quotes held for a window (on the first portal), then executed through `targets`. */
      const heldWindow = async (
        targets: RunningPortal[],
        perCustomer: number,
        withKeys: boolean,
      ): Promise<HttpSample> => {
        for (const c of customers) c.quotes.length = 0; // leftovers of an earlier window: not reused
        const quotesPerSecond = await holdConversionQuotes(portal.url, customers, perCustomer);
        return {
          ...(await executeWindow(targets, customers, warmupSeconds, durationSeconds, answered, withKeys)),
          quotesPerSecond,
        };
      };
      const kept: { plain: PlainResult; http: HttpSample; keyed: HttpSample }[] = [];
      const lines: string[][] = [];
      let remeasures = 0;
      let disturbedKept = 0;
      let estimate = 0;
      for (let round = 1; kept.length < rounds; round++) {
        const p = await plain.measure({ warmupSeconds, durationSeconds });
        // Enough quotes for the warm-up and the window. The portal can beat the plain loop of its
        // own writes (it commits conversions in groups), so in round 1 that rate with a wide
        // margin; then the best HTTP rate so far with one as wide. Should they run out, the window
        // ends there (and the table says so).
        const perSecond = estimate > 0 ? Math.max(estimate * 1.5, p.perSecond * 0.6) : p.perSecond * 1.6;
        const perCustomer = Math.ceil((perSecond * (warmupSeconds + durationSeconds)) / CUSTOMERS) + 50;
        const window = (withKeys: boolean) => heldWindow([portal], perCustomer, withKeys);
        const h = await window(false);
        estimate = Math.max(estimate, h.perSecond);
        // Disturbance is judged on the budgeted windows only: the keyed one makes more disk syncs,
        // whose kernel work counts as "others".
        const others = Math.max(p.otherCpu ?? 0, h.otherCpu ?? 0);
        const disturbed = others > DISTURBED;
        const discard = disturbed && remeasures < MAX_REMEASURES;
        // The same, each execution with an Idempotency-Key as the convert page sends it: two more
        // writes per request (server/http/idempotency.ts). Printed, not budgeted; not run in a
        // round that is measured again.
        const k = discard ? null : await window(true);
        lines.push([
          String(round),
          fmt(p.perSecond),
          fmt(p.cpuUsPerTx),
          fmt(h.perSecond) + (h.exhausted ? " (quotes ran out)" : ""),
          k ? fmt(k.perSecond) + (k.exhausted ? " (quotes ran out)" : "") : "–",
          `${fmt(h.p50Ms, 1)} / ${fmt(h.p99Ms, 1)}`,
          h.serverCpuUs === null ? "?" : fmt(h.serverCpuUs),
          pct(h.serverCpu),
          pct(h.loaderCpu),
          `${pct(p.otherCpu)} / ${pct(h.otherCpu)}`,
          fmt(h.quotesPerSecond),
          fmt(h.perSecond / p.perSecond, 2),
          discard ? "disturbed: again" : disturbed ? "disturbed, kept" : "kept",
        ]);
        if (discard) {
          remeasures++;
          await sleep(2000);
          continue;
        }
        if (disturbed) disturbedKept++;
        kept.push({ plain: p, http: h, keyed: k! });
      }
      console.log(table(
        [
          "round",
          "plain tx/s",
          "plain µs CPU/tx",
          "HTTP conv/s",
          "with key/s",
          "p50 / p99 ms",
          "server µs/conv",
          "server CPU",
          "loader CPU",
          "others plain / HTTP",
          "quotes/s",
          "ratio",
          "",
        ],
        lines,
      ));

      // 2b. Two processes on the one file (issue 12, decision 013): a second portal on the same
      // database, and the same windows with the connections dealt out over both, beside windows
      // of the first alone, in turn (which goes first alternates), so that both see the same
      // machine. The customers' sessions, the quotes and the ledger are the database's, so either
      // process serves any of them.
      const second = await startPortal({
        name: "second portal on the same file (main.ts)",
        databasePath: portal.databasePath,
        env: portalEnv,
      });
      const twoLines: string[][] = [];
      const pairs: { one: HttpSample; two: HttpSample }[] = [];
      try {
        const perCustomer = Math.ceil((estimate * 1.5 * (warmupSeconds + durationSeconds)) / CUSTOMERS) + 50;
        for (let round = 1; round <= rounds; round++) {
          const one = round % 2 ? await heldWindow([portal], perCustomer, false) : null;
          const two = await heldWindow([portal, second], perCustomer, false);
          const alone = one ?? await heldWindow([portal], perCustomer, false);
          pairs.push({ one: alone, two });
          twoLines.push([
            String(round),
            fmt(alone.perSecond) + (alone.exhausted ? " (quotes ran out)" : ""),
            fmt(two.perSecond) + (two.exhausted ? " (quotes ran out)" : ""),
            `${fmt(alone.p50Ms, 1)} / ${fmt(alone.p99Ms, 1)}`,
            `${fmt(two.p50Ms, 1)} / ${fmt(two.p99Ms, 1)}`,
            `${pct(alone.otherCpu)} / ${pct(two.otherCpu)}`,
            fmt(two.perSecond / alone.perSecond, 2),
          ]);
        }
      } finally {
        await second.stop();
      }
      console.log(`  Two processes on one file, ${CONNECTIONS} connections in all either way:`);
      console.log(table(
        [
          "round",
          "one process conv/s",
          "two processes conv/s",
          "one: p50 / p99 ms",
          "two: p50 / p99 ms",
          "others one / two",
          "ratio",
        ],
        twoLines,
      ));

      // 3. The checks.
      const checked = await checkConversions(portal.databasePath, answered.total);
      console.log(
        `  Ledger check of the portal's database after the run:\n${
          formatReport(checked.report).replace(/^/gm, "    ")
        }`,
      );
      const ledgerOk = checked.ok;
      const ledgerValue = ledgerOk
        ? `OK: ${fmt(checked.stored)} conversions = 201s, ${fmt(checked.report.transfers)} transfers`
        : checked.problems.join("; ");
      console.log(
        `  ${fmt(answered.total)} conversions answered 201 in all (warm-ups included); ${
          fmt(checked.stored)
        } in the database.`,
      );
      const plainCheck = await plain.check();
      const plainOk = plainCheck.ledger.ok && plainCheck.conversions === plain.written;
      console.log(
        `  Ledger check of the plain database: ${plainOk ? "OK" : formatReport(plainCheck.ledger)} (${
          fmt(plainCheck.conversions)
        } conversions).`,
      );

      const httpRate = median(kept.map((k) => k.http.perSecond));
      const plainRate = median(kept.map((k) => k.plain.perSecond));
      const ratio = httpRate / plainRate;
      const serverUs = median(kept.map((k) => k.http.serverCpuUs ?? NaN));
      const plainUs = median(kept.map((k) => k.plain.cpuUsPerTx));
      const quoteRate = median(kept.map((k) => k.http.quotesPerSecond));
      const keyedRate = median(kept.map((k) => k.keyed.perSecond));
      const keyedUs = median(kept.map((k) => k.keyed.serverCpuUs ?? NaN));
      const of = `median of ${kept.length}`;
      const rows: SummaryRow[] = [
        {
          metric: `HTTP conversions/s (execute, ${of})`,
          value: `${fmt(httpRate)}/s`,
          budget: { limit: `≥ ${fmt(MIN_PER_SECOND)}/s`, pass: httpRate >= MIN_PER_SECOND },
        },
        { metric: `plain SQLite tx/s, same rows (${of})`, value: `${fmt(plainRate)}/s` },
        {
          metric: "ratio HTTP ÷ plain",
          value: fmt(ratio, 2),
          budget: { limit: `≥ ${MIN_RATIO}`, pass: ratio >= MIN_RATIO },
        },
        { metric: "CPU per conversion: server vs plain", value: `${fmt(serverUs)} vs ${fmt(plainUs)} µs` },
        {
          metric: "with an Idempotency-Key, as the convert page sends (not budgeted)",
          value: `${fmt(keyedRate)}/s, ${fmt(keyedUs)} µs server CPU each`,
        },
        {
          metric: "quotes held/s (not budgeted)",
          value: `${fmt(quoteRate)}/s; quote + execute ≈ ${fmt(1 / (1 / quoteRate + 1 / httpRate))}/s`,
        },
        {
          metric: "ledger check after the run",
          value: ledgerOk && plainOk ? ledgerValue : `${ledgerValue}${plainOk ? "" : "; plain database FAILED"}`,
          budget: { limit: "passes", pass: ledgerOk && plainOk },
        },
      ];
      const oneRate = median(pairs.map((p) => p.one.perSecond));
      const twoRate = median(pairs.map((p) => p.two.perSecond));
      const twoRatio = median(pairs.map((p) => p.two.perSecond / p.one.perSecond));
      rows.push({
        metric: `two processes on one file ÷ one process, conv/s (median of ${pairs.length} pairs)`,
        value: `${fmt(twoRatio, 2)} (${fmt(twoRate)}/s vs ${fmt(oneRate)}/s; p99 ${
          fmt(median(pairs.map((p) => p.two.p99Ms)), 1)
        } vs ${fmt(median(pairs.map((p) => p.one.p99Ms)), 1)} ms)`,
        budget: { limit: `≥ ${MIN_TWO_PROCESS_RATIO}`, pass: twoRatio >= MIN_TWO_PROCESS_RATIO },
      });
      if (disturbedKept) rows.push({ metric: "disturbed rounds kept", value: `${disturbedKept} of ${kept.length}` });
      return { name: "conversions", rows };
    } finally {
      plain.close();
      await portal.stop();
    }
  },
};
