/**
 * The portal on Deno Deploy (docs/DEPLOYMENT.md, "Deno Deploy with Turso"; decision 043): the same
 * app as main.ts, as several instances near their users against one libSQL database.
 *
 * - The database is DATABASE_URL with DATABASE_AUTH_TOKEN (Turso), never a local file; the client
 *   is @libsql/client's web build, so no native binding is loaded (db/client.ts).
 * - Nothing is written to the local disk at run time: APP_SECRET is required (else the key would
 *   go to data/app-secret), mail goes to SMTP_URL or the database, sessions, limits, keys, quotes
 *   and jobs are all in the database.
 * - The built assets (dist/, from `deno task build`) are part of the deployment and served from it.
 * - Migrations (and the first rates and plan) are written by `deno task db:migrate` before the
 *   deployment goes live, never here:
 *   instances start in any number at any time. An instance on a database that lacks a committed
 *   migration refuses to start, so a release deployed before its migration never serves.
 * - No signal handling: the platform stops an instance when it has no requests in flight. A job
 *   whose instance is stopped is given to another when its lease runs out (server/jobs/).
 */
import { createApp, createBackgroundWork, createServices } from "./app.ts";
import { isMigrated, openDatabase } from "./db/client.ts";
import { deploymentCheck, loadConfig } from "./server/config.ts";
import { edgeProblems } from "./server/edge.ts";
import { loadAssets } from "./server/render/assets.ts";

const env = Deno.env.toObject();
const deployment = deploymentCheck(env);
for (const warning of deployment.warnings) console.warn(`\n*** ${warning} ***\n`);
const problems = [...deployment.errors, ...edgeProblems(env)];
if (problems.length > 0) {
  throw new Error(`The portal will not start on the edge:\n${problems.map((p) => `- ${p}`).join("\n")}`);
}

const config = loadConfig(env);
const db = await openDatabase({ url: config.databaseUrl, authToken: config.databaseAuthToken });
if (!(await isMigrated(db))) {
  throw new Error("The database lacks committed migrations: run `deno task db:migrate` against it before deploying.");
}
const assets = loadAssets(config.distDir);
const services = await createServices(db, config);
const app = createApp({ db, config, assets, services });

const work = createBackgroundWork(db, config, services);
await work.runner.start();
await work.scheduler.start();
services.emailOutbox.start();

// Deno Deploy gives the address; PORT and HOST matter only when this entry is tried elsewhere.
Deno.serve({
  port: config.port,
  hostname: env.HOST ?? "0.0.0.0",
  onListen: ({ port }) => console.log(`Portal (deploy.ts) listening on port ${port} (${config.appEnv})`),
}, app.fetch);
