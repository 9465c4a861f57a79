/**
 * Starts the portal: configuration from the environment, the database opened and migrated, the
 * island build located, then the app (app.ts) served, and the background jobs run. See
 * docs/ARCHITECTURE.md for a request's path.
 */
import { createApp, createBackgroundWork, createServices } from "./app.ts";
import { isMigrated, openDatabase, openMigratedDatabase } from "./db/client.ts";
import { settled } from "./server/background.ts";
import process from "node:process";
import { deploymentCheck, loadConfig } from "./server/config.ts";
import { loadAssets } from "./server/render/assets.ts";
import { seedMoney } from "./server/money/store.ts";

// A real deployment that kept a test default (the sandbox identity provider, the test bank
// details, mail kept in the database) does not start; on a developer's machine each is announced.
const deployment = deploymentCheck(process.env);
for (const warning of deployment.warnings) console.warn(`\n*** ${warning} ***\n`);
if (deployment.errors.length > 0) {
  console.error(`The portal will not start:\n${deployment.errors.map((error) => `- ${error}`).join("\n")}`);
  Deno.exit(1);
}

const config = loadConfig();
// One machine migrates at start (safe when several processes start together: decision 043); a
// release that migrates with `deno task db:migrate` first turns it off (MIGRATE_ON_START=0).
const db = config.migrateOnStart
  ? await openMigratedDatabase({ url: config.databaseUrl, authToken: config.databaseAuthToken })
  : await openDatabase({ url: config.databaseUrl, authToken: config.databaseAuthToken });
if (!config.migrateOnStart && !(await isMigrated(db))) {
  console.error("The database lacks committed migrations: run `deno task db:migrate` first (MIGRATE_ON_START=0).");
  Deno.exit(1);
}
const assets = loadAssets(config.distDir);
await seedMoney(db);
const services = await createServices(db, config);
const app = createApp({ db, config, assets, services });

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
    console.log(`Portal listening on http://localhost:${port} (${config.appEnv}, ${config.databaseUrl})`),
}, app.fetch);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    // No new jobs are claimed; running ones are told to stop and given back for the next process.
    await Promise.all([work.scheduler.stop(), server.shutdown(), work.runner.stop()]);
    services.emailOutbox.stop();
    // The emails that answered requests were waiting for go out before the database closes.
    await settled();
    db.$client.close();
    Deno.exit(0);
  });
}
