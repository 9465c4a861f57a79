/**
 * The remote database path's cost per request (issue 12, docs/PERFORMANCE.md): the real portal
 * (main.ts) against a database over libSQL's Hrana protocol (the test server of decision 014, in
 * this process, in front of a file), beside the same portal on the local file. One customer makes
 * quote + conversion pairs one after the other on one connection for --seconds (default 5);
 * printed: each request's latency (p50 / p99) and, over Hrana, the pipelines (HTTP round trips to
 * the database) per request, from which the latency against Turso follows: a round trip to Turso
 * is tens of milliseconds where here it is well under one.
 *
 *   NODE_ENV=production deno run -A bench/tools/hrana-latency.ts [--seconds 5]
 */
import { join } from "node:path";
import { migrateDatabase, openDatabase } from "../../db/client.ts";
import { startHranaServer } from "../../tests/helpers/hrana/server.ts";
import { createAdminOverHttp, expectAnswer, fundedCustomerOverHttp } from "../../tests/helpers/http-customer.ts";
import { killAllChildren, type RunningPortal, startPortal, tempDir } from "../lib/processes.ts";
import { fmt, percentile } from "../lib/report.ts";

const secondsArg = Deno.args.indexOf("--seconds");
const SECONDS = secondsArg >= 0 ? Number(Deno.args[secondsArg + 1]) : 5;
const CONVERSION = { sell_currency: "GBP", buy_currency: "EUR", amount: "10.00", fixed: "sell" };
const ENV = { QUOTE_VALIDITY_SECONDS: "3600", RECEIPT_APPROVAL_GBP: "1000000000" };

interface Measured {
  pairs: number;
  quote: Float64Array;
  convert: Float64Array;
}

/** Quote + conversion pairs, one after the other, for SECONDS; their latencies in ms. */
async function measure(
  portal: RunningPortal,
  db: Awaited<ReturnType<typeof openDatabase>>,
  onStart: () => void = () => {},
): Promise<Measured> {
  const admin = await createAdminOverHttp(portal.url, db);
  const customer = await fundedCustomerOverHttp(portal.url, db, admin, { funds: { GBP: "100000.00" } });
  const quote: number[] = [];
  const convert: number[] = [];
  const pair = async (keep: boolean) => {
    const t0 = performance.now();
    const held = expectAnswer<{ body: { id: string } }>(
      "quote",
      await customer.session.post("account/conversions/quote", CONVERSION),
    );
    const t1 = performance.now();
    expectAnswer("convert", await customer.session.post("account/conversions", { quote_id: held.json.body.id }), 201);
    if (keep) {
      quote.push(t1 - t0);
      convert.push(performance.now() - t1);
    }
  };
  for (let i = 0; i < 20; i++) await pair(false); // warm-up
  onStart();
  const end = performance.now() + SECONDS * 1000;
  while (performance.now() < end) await pair(true);
  return { pairs: quote.length, quote: Float64Array.from(quote).sort(), convert: Float64Array.from(convert).sort() };
}

const line = (name: string, m: Measured, extra = "") =>
  `  ${name.padEnd(12)} ${fmt(m.pairs).padStart(6)} pairs   quote p50 / p99 ${fmt(percentile(m.quote, 50), 2)} / ${
    fmt(percentile(m.quote, 99), 2)
  } ms   conversion p50 / p99 ${fmt(percentile(m.convert, 50), 2)} / ${fmt(percentile(m.convert, 99), 2)} ms${extra}`;

try {
  // The local file.
  const local = await startPortal({ name: "portal on a local file", env: ENV });
  let onFile: Measured;
  try {
    const db = await openDatabase({ url: `file:${local.databasePath}` });
    try {
      onFile = await measure(local, db);
    } finally {
      db.$client.close();
    }
  } finally {
    await local.stop();
  }

  // Over Hrana.
  const dir = tempDir("portal-hrana-");
  const authToken = crypto.randomUUID();
  const hrana = startHranaServer({ path: join(dir.path, "portal.db"), authToken });
  const db = await openDatabase({ url: hrana.url, authToken });
  await migrateDatabase(db);
  const remote = await startPortal({
    name: "portal over Hrana",
    // Migrated above, as `deno task db:migrate` would be before a release.
    env: { ...ENV, DATABASE_URL: hrana.url, DATABASE_AUTH_TOKEN: authToken, MIGRATE_ON_START: "0" },
  });
  let overHrana: Measured;
  let pipelines = 0;
  try {
    let before = 0;
    overHrana = await measure(remote, db, () => (before = hrana.stats.pipelines));
    // The portal's background work (the job runner's and the outbox's polls) counts too, a little.
    pipelines = (hrana.stats.pipelines - before) / overHrana.pairs;
  } finally {
    await remote.stop();
    db.$client.close();
    await hrana.close();
    dir.remove();
  }
  console.log(`Quote + conversion pairs, one at a time, ${SECONDS} s each (${new Date().toISOString()}):`);
  console.log(line("local file", onFile));
  console.log(line("over Hrana", overHrana, `   ${fmt(pipelines, 1)} database round trips per pair`));
} finally {
  killAllChildren();
}
