/**
 * deno task bench: the performance budgets of docs/PERFORMANCE.md, measured in one run.
 *
 *   deno task bench [--only page,lighthouse,js,conversions,payments,quotes,transactions,statements,migrations,customers,partners,bulkemails] [--rounds 3] [--duration 5] [--warmup 2] [--connections 32]
 *                   [--paths /,/calculator] [--cpu-prof DIR]
 *
 * --cpu-prof DIR: the portal writes a V8 CPU profile of the whole run into DIR, to summarise with
 * `deno run -A bench/tools/cpuprofile-summary.ts DIR/*.cpuprofile` (see docs/PERFORMANCE.md).
 *
 * Each benchmark is a module (bench/page.ts, bench/js-weight.ts, bench/conversions.ts) that takes the shared context
 * (options, and one portal process started on first use) and returns summary rows; a row with a
 * budget is a PASS/FAIL check. A new benchmark is one more entry in MODULES. The exit code is 1
 * when a budget fails or a benchmark cannot run, so CI shows it.
 */
import { conversionsBench } from "./conversions.ts";
import { customersBench } from "./customers.ts";
import { partnersBench } from "./partners.ts";
import { jsWeightBench } from "./js-weight.ts";
import { lighthouseBench } from "./lighthouse.ts";
import { pageBench } from "./page.ts";
import { paymentsBench } from "./payments.ts";
import { quotesBench } from "./quotes.ts";
import { statementsBench } from "./statements.ts";
import { migrationsBench } from "./migrations.ts";
import { bulkEmailsBench } from "./bulkemails.ts";
import { transactionsBench } from "./transactions.ts";
import { killAllChildren, type RunningPortal, startPortal } from "./lib/processes.ts";
import type { BenchContext, BenchModule, BenchOptions, SummaryRow } from "./lib/report.ts";
import { table } from "./lib/report.ts";
import { resolve } from "node:path";

/** Every benchmark, by the key --only selects it with; they run in this order. */
const MODULES: Record<string, BenchModule> = {
  js: jsWeightBench,
  page: pageBench,
  lighthouse: lighthouseBench,
  conversions: conversionsBench,
  payments: paymentsBench,
  quotes: quotesBench,
  statements: statementsBench,
  transactions: transactionsBench,
  migrations: migrationsBench,
  customers: customersBench,
  partners: partnersBench,
  bulkemails: bulkEmailsBench,
};

function parseArgs(args: string[]): { options: BenchOptions; only: string[] } {
  const options: BenchOptions = {
    connections: 32,
    warmupSeconds: 2,
    durationSeconds: 5,
    rounds: 3,
    paths: ["/", "/calculator"],
  };
  let only = Object.keys(MODULES);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const next = () => {
      const v = args[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    const num = () => {
      const v = Number(next());
      if (!Number.isFinite(v) || v <= 0) throw new Error(`${arg} needs a positive number`);
      return v;
    };
    if (arg === "--connections") options.connections = Math.floor(num());
    else if (arg === "--warmup") options.warmupSeconds = num();
    else if (arg === "--duration") options.durationSeconds = num();
    else if (arg === "--rounds") options.rounds = Math.floor(num());
    else if (arg === "--paths") {
      options.paths = next().split(",").filter(Boolean);
      options.pathsGiven = true;
    } else if (arg === "--only") only = next().split(",").filter(Boolean);
    else if (arg === "--cpu-prof") options.cpuProfileDir = resolve(next());
    else throw new Error(`Unknown option ${arg}. See the header of bench/run.ts.`);
  }
  for (const key of only) {
    if (!MODULES[key]) throw new Error(`--only: no benchmark "${key}" (${Object.keys(MODULES).join(", ")})`);
  }
  return { options, only };
}

const { options, only } = parseArgs(Deno.args);

if (Deno.env.get("NODE_ENV") !== "production") {
  console.warn("Warning: NODE_ENV is not production here; the servers are still started with NODE_ENV=production.");
}

let exiting = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, () => {
    if (exiting) return;
    exiting = true;
    console.error(`\n${signal}: stopping the servers.`);
    killAllChildren();
    Deno.exit(signal === "SIGINT" ? 130 : 143);
  });
}

let portalStart: Promise<RunningPortal> | null = null;
const ctx: BenchContext = {
  options,
  portal: () => (portalStart ??= startPortal({ cpuProfileDir: options.cpuProfileDir })),
};

const cores = navigator.hardwareConcurrency;
console.log(
  `Portal benchmarks: ${new Date().toISOString()}, Deno ${Deno.version.deno}, ${cores} cores, ${Deno.build.target}`,
);

const rows: { bench: string; row: SummaryRow }[] = [];
let errors = 0;
try {
  for (const key of only) {
    const module = MODULES[key];
    console.log(`\n== ${module.name}`);
    const started = performance.now();
    try {
      const result = await module.run(ctx);
      for (const row of result.rows) rows.push({ bench: result.name, row });
    } catch (error) {
      errors++;
      console.error(`  ${module.name} could not run: ${error instanceof Error ? error.stack ?? error.message : error}`);
      rows.push({
        bench: module.name,
        row: { metric: "could not run", value: "ERROR", budget: { limit: "runs", pass: false } },
      });
    }
    console.log(`  (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
} finally {
  // Assigned inside ctx.portal(), which TypeScript's narrowing doesn't see.
  const portal = portalStart as Promise<RunningPortal> | null;
  if (portal) {
    try {
      await (await portal).stop();
      if (options.cpuProfileDir) {
        console.log(`\nThe portal's CPU profile is in ${options.cpuProfileDir}; summarise it with`);
        console.log(`  deno run -A bench/tools/cpuprofile-summary.ts ${options.cpuProfileDir}/<file>.cpuprofile`);
      }
    } catch { /* it failed to start; its error was reported */ }
  }
  killAllChildren();
}

const failed = rows.filter((r) => r.row.budget && !r.row.budget.pass).length;
console.log("\n== Summary\n");
console.log(table(
  ["benchmark", "metric", "value", "budget", "result"],
  rows.map((
    { bench, row },
  ) => [bench, row.metric, row.value, row.budget?.limit ?? "", row.budget ? (row.budget.pass ? "PASS" : "FAIL") : ""]),
));
console.log(
  failed
    ? `\n${failed} budget${failed > 1 ? "s" : ""} FAILED${
      errors ? ` (${errors} benchmark${errors > 1 ? "s" : ""} could not run)` : ""
    }.`
    : "\nEvery budget passed.",
);
Deno.exit(failed ? 1 : 0);
