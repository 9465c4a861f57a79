/**
 * CPU per answer of the page bench's pages, in-process (no HTTP, no load generator), signed in where
 * the page bench signs in: to compare two trees on a machine whose cores others take (CPU time, not
 * wall time, median of 3 runs after a warm-up).
 *
 *   NODE_ENV=production deno run -A bench/tools/signed-in-cpu.ts [--ms 1500] [PATH...]
 *
 * A portal (main.ts) is started once to set up a funded customer over HTTP, as bench/page.ts does,
 * and stopped; then the app is built here on its database and asked for each page with the
 * customer's cookie (the signed-in pages) or none. Log lines go to /dev/null's equivalent: the
 * level is left as configured, so the per-request log line is counted, as in production.
 */
import process from "node:process";
import { createApp, createServices } from "../../app.ts";
import { openDatabase } from "../../db/client.ts";
import { loadConfig } from "../../server/config.ts";
import { loadAssets } from "../../server/render/assets.ts";
import { customerCookie, PAGE_GROUPS } from "../page.ts";
import { join } from "node:path";
import { startPortal, tempDir } from "../lib/processes.ts";

const msIndex = Deno.args.indexOf("--ms");
const budgetMs = msIndex >= 0 ? Number(Deno.args[msIndex + 1]) : 1500;
const asked = Deno.args.filter((a) => a.startsWith("/"));

const SECRET = "signed-in-cpu-secret-0123456789abcdef";
const dir = tempDir("portal-signed-in-cpu-");
const databasePath = join(dir.path, "portal.db");
// Given a database path, the portal leaves the file when it stops.
const portal = await startPortal({ databasePath, env: { APP_SECRET: SECRET } });
let cookie: string;
try {
  cookie = await customerCookie(portal);
} finally {
  await portal.stop();
}

/** CPU µs per call, median of 3 runs after a warm-up (process.cpuUsage: others' use of the cores counts less). */
async function time(fn: () => Promise<unknown>): Promise<number> {
  const run = async (ms: number) => {
    let n = 0;
    const start = performance.now();
    const cpu0 = process.cpuUsage();
    while (performance.now() - start < ms) {
      for (let i = 0; i < 20; i++) await fn();
      n += 20;
    }
    const cpu = process.cpuUsage(cpu0);
    return (cpu.user + cpu.system) / n;
  };
  await run(budgetMs);
  const runs = [await run(budgetMs / 2), await run(budgetMs / 2), await run(budgetMs / 2)].sort((a, b) => a - b);
  return runs[1];
}

const db = await openDatabase({ url: `file:${databasePath}` });
try {
  const config = loadConfig({
    NODE_ENV: "production",
    APP_ENV: "production",
    PORT: "8000",
    PUBLIC_URL: "http://127.0.0.1:8000",
    APP_SECRET: SECRET,
    LOG_LEVEL: Deno.env.get("LOG_LEVEL") ?? "info",
  });
  const app = createApp({ db, config, assets: loadAssets(config.distDir), services: await createServices(db, config) });
  for (const group of PAGE_GROUPS) {
    for (const path of group.paths) {
      if (asked.length && !asked.includes(path)) continue;
      const headers: Record<string, string> = group.signedIn ? { cookie } : {};
      const ask = async () => {
        const res = await app.fetch(new Request(`http://127.0.0.1:8000${path}`, { headers }));
        if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
        await res.arrayBuffer();
      };
      console.error(`${path.padEnd(18)} ${(await time(ask)).toFixed(0).padStart(6)} µs CPU per answer (${group.name})`);
    }
  }
} finally {
  db.$client.close();
  dir.remove();
}
Deno.exit(0);
