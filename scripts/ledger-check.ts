/**
 * deno task ledger:check [DATABASE_URL]: verifies the ledger's invariants (server/ledger/check.ts)
 * on a database (the argument, else DATABASE_URL, else file:data/portal.db), prints what it found,
 * and exits 1 on any violation (2 when the database cannot be opened). It only reads: it neither
 * migrates nor creates the database.
 */
import { existsSync } from "node:fs";
import { openDatabase } from "../db/client.ts";
import { checkLedger, formatReport } from "../server/ledger/check.ts";
import { loadConfig } from "../server/config.ts";

const config = loadConfig();
const url = Deno.args[0] ?? config.databaseUrl;
const authToken = Deno.args[0] ? Deno.env.get("DATABASE_AUTH_TOKEN") : config.databaseAuthToken;

if (url.startsWith("file:")) {
  const path = url.slice("file:".length).split("?")[0];
  if (!path || path === ":memory:" || !existsSync(path)) {
    console.error(`Ledger check: no database file at ${url}.`);
    Deno.exit(2);
  }
}

const started = performance.now();
let exitCode = 0;
try {
  const db = await openDatabase({ url, authToken });
  try {
    const report = await checkLedger(db);
    console.log(`Ledger check of ${url.replace(/\/\/[^@/]*@/, "//")}`);
    console.log(formatReport(report));
    console.log(`(${Math.round(performance.now() - started)} ms)`);
    if (!report.ok) exitCode = 1;
  } finally {
    db.$client.close();
  }
} catch (error) {
  console.error(`Ledger check: could not read ${url}: ${error instanceof Error ? error.message : error}`);
  exitCode = 2;
}
Deno.exit(exitCode);
