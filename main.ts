/**
 * Starts the portal: configuration from the environment, the database opened and migrated, the
 * island build located, then the Hono app served. See docs/ARCHITECTURE.md for a request's path.
 */
import { openMigratedDatabase } from "./db/client.ts";
import { createApp } from "./server/app.ts";
import { loadConfig } from "./server/config.ts";
import { purgeExpiredIdempotencyKeys } from "./server/http/idempotency.ts";
import { loadAssets } from "./server/render/assets.ts";
import { scheduleRateFeed } from "./server/money/rate-feed.ts";
import { seedMoney } from "./server/money/store.ts";
import { createServices } from "./server/services.ts";

const config = loadConfig();
const db = await openMigratedDatabase({ url: config.databaseUrl, authToken: config.databaseAuthToken });
const assets = loadAssets(config.distDir);
await seedMoney(db);
const services = await createServices(db, config);
const app = createApp({ db, config, assets, services });

// Idempotency keys are kept 24 hours and sessions at most 12: the expired ones are cleared hourly.
const purge = setInterval(() => {
  purgeExpiredIdempotencyKeys(db, new Date()).catch((error) => console.warn("[idempotency] purge failed", error));
  services.sessions.purge().catch((error) => console.warn("[sessions] purge failed", error));
}, 60 * 60 * 1000);
Deno.unrefTimer(purge);

// Emails of notifications committed before a restart go out now; new ones as they come.
services.emailOutbox.start();

if (config.ratesUrl) scheduleRateFeed(db, config.ratesUrl, () => services.pageCache.clear());

const server = Deno.serve({
  port: config.port,
  hostname: Deno.env.get("HOST") ?? "0.0.0.0",
  onListen: ({ port }) =>
    console.log(`Portal listening on http://localhost:${port} (${config.appEnv}, ${config.databaseUrl})`),
}, app.fetch);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    await server.shutdown();
    services.emailOutbox.stop();
    db.$client.close();
    Deno.exit(0);
  });
}
