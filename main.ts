/**
 * Starts the portal: configuration from the environment, the database opened and migrated, the
 * island build located, then the app (app.ts) served, and the background jobs run. See
 * docs/ARCHITECTURE.md for a request's path.
 */
import { createApp, createBackgroundWork, createServices } from "./app.ts";
import { isMigrated, openDatabase } from "./db/client.ts";
import { settled } from "./server/background.ts";
import process from "node:process";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { deploymentCheck, loadConfig } from "./server/config.ts";
import { loadAssets } from "./server/render/assets.ts";
import { seedMoney } from "./server/money/store.ts";
import { migratePortal } from "./server/migrate.ts";
import { log } from "./server/log.ts";
import { holdPresence } from "./db/presence.ts";
import { Draining } from "./server/http/draining.ts";

// A real deployment that kept a test default (the sandbox identity provider, the test bank
// details, mail kept in the database) does not start; on a developer's machine each is announced.
const deployment = deploymentCheck(process.env);
for (const warning of deployment.warnings) log.warn(warning);
if (deployment.errors.length > 0) {
  log.error(`The portal will not start:\n${deployment.errors.map((error) => `- ${error}`).join("\n")}`, {
    errors: deployment.errors,
  });
  Deno.exit(1);
}

const config = loadConfig();
// A local file is marked as in use for as long as this process runs: `deno task restore` refuses
// to replace it under a running portal (db/presence.ts, decision 041).
const localFile = config.databaseUrl.startsWith("file:") ? config.databaseUrl.slice("file:".length).split("?")[0] : "";
if (localFile && localFile !== ":memory:") {
  mkdirSync(dirname(localFile), { recursive: true });
  await holdPresence(localFile);
}
// One machine migrates at start (safe when several processes start together: decision 043); a
// release that migrates with `deno task db:migrate` first turns it off (MIGRATE_ON_START=0).
// Migrating runs every step after the migrations too (server/migrate.ts), as db:migrate does.
const db = await openDatabase({ url: config.databaseUrl, authToken: config.databaseAuthToken });
if (config.migrateOnStart) await migratePortal(db);
else if (!(await isMigrated(db))) {
  log.error("The database lacks committed migrations: run `deno task db:migrate` first (MIGRATE_ON_START=0).");
  Deno.exit(1);
}
const assets = loadAssets(config.distDir);
await seedMoney(db);
const services = await createServices(db, config);
const draining = new Draining();
const app = createApp({ db, config, assets, services, draining });

// Background jobs (server/jobs/): the hourly purge of what expired, the ECB feed when RATES_URL is
// set, and whatever the calls queue. The pages that show rates follow the feed's writes by
// themselves (decision 015).
const work = createBackgroundWork(db, config, services);
await work.runner.start();
await work.scheduler.start();

// Emails of notifications committed before a restart go out now; new ones as they come.
services.emailOutbox.start();

const server = Deno.serve({
  port: config.port,
  hostname: Deno.env.get("HOST") ?? "0.0.0.0",
  onListen: ({ port }) =>
    log.info(`Portal listening on http://localhost:${port}`, {
      port,
      app_env: config.appEnv,
      // The address without any credentials it may hold.
      database: config.databaseUrl.replace(/\/\/[^@/]*@/, "//"),
    }),
}, app.fetch);

/** How long a stop may take before the process gives up waiting and exits anyway. */
const STOP_LIMIT_MS = 30_000;
let stopping = false;

/**
 * A graceful stop (a deployment's SIGTERM, Ctrl-C): new requests refused with a 503 to retry
 * (server/http/draining.ts) while every request under way finishes and answers (a transaction
 * commits before its answer), then the server shut down;
 * no new jobs claimed, the running ones told to stop and their leases given back for the next
 * process (decision 032); the emails requests were waiting for sent; then the database closed.
 * A second signal while stopping changes nothing; a stop that takes longer than STOP_LIMIT_MS
 * exits with status 1 (a lease not given back then expires by itself).
 */
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info("stopping", { signal });
  const started = performance.now();
  const limit = setTimeout(() => {
    log.error("the stop took too long: exiting with work unfinished", { limit_ms: STOP_LIMIT_MS });
    Deno.exit(1);
  }, STOP_LIMIT_MS);
  await Promise.all([
    work.scheduler.stop(),
    draining.drain(STOP_LIMIT_MS - 5_000).then(() => server.shutdown()),
    work.runner.stop(),
  ]);
  services.emailOutbox.stop();
  // The emails that answered requests were waiting for go out before the database closes.
  await settled();
  db.$client.close();
  clearTimeout(limit);
  log.info("stopped", { duration_ms: Math.round(performance.now() - started) });
  Deno.exit(0);
}

for (const signal of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(signal, () => void stop(signal));
