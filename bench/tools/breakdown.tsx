/**
 * Where the time of one page request goes, measured in-process (no HTTP, no load generator):
 * the same work done with parts added one at a time, each timed over many calls after a warm-up.
 *
 *   NODE_ENV=production deno run -A bench/tools/breakdown.tsx [PATH] [--ms 1500]
 *
 * Not part of `deno task bench`: it is the tool to find what to fix when the render ratio drops.
 * The differences between rows are the cost of each part; the HTTP layer (Deno.serve, sockets)
 * comes on top of every row and is the same for the portal and the bare server.
 */
import { Hono } from "hono";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";
import { join } from "node:path";
import { renderToString } from "react-dom/server";
import { openMigratedDatabase } from "../../db/client.ts";
import { serializeProps } from "../../lib/serialize.ts";
import { PAGES, registerPages } from "../../routes/pages.tsx";
import { createApp, createServices } from "../../app.ts";
import { loadConfig } from "../../server/config.ts";
import type { AppEnv } from "../../server/env.ts";
import { followRedirects, RedirectTable } from "../../server/http/redirects.ts";
import { securityHeaders } from "../../server/http/security.ts";
import { DataVersions } from "../../server/data-versions.ts";
import { loadAssets } from "../../server/render/assets.ts";
import { PageCache } from "../../server/render/page-cache.ts";
import { DefaultLayout } from "../../routes/layouts/Default.tsx";
import { Home } from "../../routes/pages/Home.tsx";
import { IslandCollector, IslandContext } from "../../server/render/islands.tsx";
import { type PageContext, PageContextValue } from "../../server/render/page-context.ts";

if (Deno.env.get("NODE_ENV") !== "production") {
  console.warn("NODE_ENV is not production: React runs its development build and every figure is slower.");
}
const path = Deno.args.find((a) => a.startsWith("/")) ?? "/";
const msIndex = Deno.args.indexOf("--ms");
const budgetMs = msIndex >= 0 ? Number(Deno.args[msIndex + 1]) : 1500;

/**
 * CPU microseconds per call of fn (process.cpuUsage: immune to other processes taking the cores,
 * which wall-clock time is not on this shared machine), median of 3 runs after a warm-up.
 */
async function time(fn: () => unknown | Promise<unknown>): Promise<number> {
  const run = async (ms: number) => {
    let n = 0;
    const start = performance.now();
    const cpu0 = process.cpuUsage();
    while (performance.now() - start < ms) {
      for (let i = 0; i < 100; i++) await fn();
      n += 100;
    }
    const cpu = process.cpuUsage(cpu0);
    return (cpu.user + cpu.system) / n;
  };
  await run(budgetMs);
  const runs = [await run(budgetMs / 3), await run(budgetMs / 3), await run(budgetMs / 3)].sort((a, b) => a - b);
  return runs[1];
}

const dir = mkdtempSync(join(tmpdir(), "portal-breakdown-"));
const db = await openMigratedDatabase({ url: `file:${join(dir, "portal.db")}` });
try {
  const config = loadConfig({
    NODE_ENV: "production",
    APP_ENV: "production",
    PORT: "8000",
    PUBLIC_URL: "http://127.0.0.1:8000",
    APP_SECRET: crypto.randomUUID(),
  });
  const assets = loadAssets(config.distDir);
  const services = await createServices(db, config);
  const url = `http://127.0.0.1:8000${path}`;

  const full = createApp({ db, config, assets, services });
  const html = await (await full.fetch(new Request(url))).text();

  const request = (app: Hono<AppEnv>) => async () => {
    const res = await app.fetch(new Request(url));
    await res.text();
  };
  const setContext = (app: Hono<AppEnv>) =>
    app.use(async (c, next) => {
      c.set("db", db);
      c.set("config", config);
      c.set("assets", assets);
      c.set("services", services);
      c.set("user", null);
      c.set("session", null);
      c.set("onBehalf", null);
      await next();
    });

  // Hono with one route answering the page's bytes as a string: the floor of any Hono answer.
  const fixed = new Hono<AppEnv>().get(path, (c) => c.html(html));
  const fixedSecure = new Hono<AppEnv>().use(securityHeaders({ https: false })).get(path, (c) => c.html(html));
  const fixedRedirects = new Hono<AppEnv>().use(followRedirects(new RedirectTable(db))).get(path, (c) => c.html(html));
  const pagesOnly = setContext(new Hono<AppEnv>());
  registerPages(pagesOnly, PAGES, new PageCache(new DataVersions(db)));

  // The render alone: the home page tree in its layout, as renderDocument renders it.
  const page: PageContext = {
    path,
    user: null,
    onBehalf: null,
    colorMode: "system",
    forcedColorMode: null,
    notifications: [],
  };
  const renderHome = () => {
    const collector = new IslandCollector();
    renderToString(
      <IslandContext.Provider value={collector}>
        <PageContextValue.Provider value={page}>
          <DefaultLayout>
            <Home />
          </DefaultLayout>
        </PageContextValue.Provider>
      </IslandContext.Provider>,
    );
    return collector;
  };
  const instances = renderHome().instances;

  // A lighter stand-in for securityHeaders: the static headers computed once, the legacy ones
  // (X-XSS-Protection, X-Download-Options, X-DNS-Prefetch-Control, X-Permitted-Cross-Domain-Policies,
  // Origin-Agent-Cluster) left out, only the CSP built per answer around its nonce.
  const cspHead = "default-src 'self'; script-src 'nonce-";
  const cspTail =
    "' 'strict-dynamic'; style-src 'self'; img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; " +
    "frame-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'";
  const STATIC: [string, string][] = [
    ["X-Content-Type-Options", "nosniff"],
    ["X-Frame-Options", "DENY"],
    ["Referrer-Policy", "strict-origin-when-cross-origin"],
    ["Cross-Origin-Opener-Policy", "same-origin"],
    ["Cross-Origin-Resource-Policy", "same-origin"],
    ["Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()"],
  ];
  const nonceBytes = new Uint8Array(16);
  const lightHeaders = new Hono<AppEnv>()
    .use(async (c, next) => {
      crypto.getRandomValues(nonceBytes);
      const nonce = btoa(String.fromCharCode(...nonceBytes));
      c.set("secureHeadersNonce", nonce);
      await next();
      const headers = c.res.headers;
      for (const [name, value] of STATIC) headers.set(name, value);
      headers.set("Content-Security-Policy", cspHead + nonce + cspTail);
    })
    .get(path, (c) => c.html(html));

  // c.var builds a new object from every variable at each access; c.get reads one.
  const manyVars = (read: "var" | "get") =>
    setContext(new Hono<AppEnv>()).get(path, (c) => {
      let n = 0;
      for (let i = 0; i < 6; i++) n += read === "var" ? (c.var.user ? 1 : 0) : (c.get("user") ? 1 : 0);
      return c.html(n ? "" : html);
    });

  const add = async (label: string, fn: () => unknown) => {
    const us = await time(fn);
    console.log(`  ${us.toFixed(1).padStart(7)} µs  ${label}`);
  };
  console.log(
    `Per-request cost of ${path}, in-process (CPU µs per call, median of 3 × ${
      Math.round(budgetMs / 3)
    } ms after a ${budgetMs} ms warm-up):`,
  );
  console.log("Whole requests through app.fetch:");
  await add("Hono, one route answering the page's bytes (c.html of a fixed string)", request(fixed));
  await add("  + securityHeaders as configured (hono/secure-headers: 12 headers + CSP nonce)", request(fixedSecure));
  await add("  + a lighter prototype instead (6 static headers precomputed + CSP nonce)", request(lightHeaders));
  await add("  + followRedirects instead (in-memory table, 5 s TTL)", request(fixedRedirects));
  await add("Pages only: context + registerPages (guards, renderDocument), no other middleware", request(pagesOnly));
  await add("Full portal: createApp (every middleware, routes, pages)", request(full));
  console.log("Parts:");
  if (path === "/") await add("renderToString of <DefaultLayout><Home/></DefaultLayout> alone", renderHome);
  await add(
    `serializeProps (devalue) of the home page's ${instances.length} island instances`,
    () => serializeProps(instances),
  );
  await add("JSON.stringify of the same instances, for comparison", () => JSON.stringify(instances));
  await add(
    "assets.modulesFor(island names) (manifest walk)",
    () => assets.modulesFor(["ColorModeToggle", "NotificationQueue"]),
  );
  await add("6 reads of c.var.user in a handler (whole request)", request(manyVars("var")));
  await add('6 reads of c.get("user") in a handler (whole request)', request(manyVars("get")));
  await add(
    "crypto.getRandomValues + base64 (a CSP nonce)",
    () => btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16)))),
  );
  await add(
    "new Response(html) + 1 header",
    () => new Response(html, { headers: { "content-type": "text/html; charset=UTF-8" } }),
  );
  await add("new Response(html) + 1 header, then 13 more with Headers.set", () => {
    const res = new Response(html, { headers: { "content-type": "text/html; charset=UTF-8" } });
    for (let i = 0; i < 13; i++) res.headers.set(`x-header-${i}`, "same-origin; value; value");
  });
  await add("new Response(html) with the same 14 headers given to the constructor", () => {
    const headers: [string, string][] = [["content-type", "text/html; charset=UTF-8"]];
    for (let i = 0; i < 13; i++) headers.push([`x-header-${i}`, "same-origin; value; value"]);
    new Response(html, { headers });
  });
} finally {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
}
