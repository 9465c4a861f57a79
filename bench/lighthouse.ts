/**
 * Lighthouse on the pages a new customer meets first, as a phone loads them (issue 9): the mobile
 * preset (Lighthouse's default: a Moto G class phone, simulated slow 4G and a 4× slower CPU), Debian's
 * Chromium, lighthouse 12.2.3 on Node (pinned in bench/lighthouse/package-lock.json, installed there
 * with `npm ci` on first use; Lighthouse does not run on Deno). The signed-in pages get a funded
 * customer's session cookie through --extra-headers.
 *
 * Budgets: performance ≥ 98 and first contentful paint ≤ 1.5 s on every page; accessibility 100;
 * SEO ≥ 95 on the public pages (the signed-in ones say noindex and are not scored for it).
 *
 * The scores depend on the machine: Lighthouse times the page's real main-thread work and multiplies
 * it, so on a machine whose cores are taken by other work total blocking time and so performance
 * fall. Record the load average beside every figure.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { customerCookie } from "./page.ts";
import { spawnTracked } from "./lib/processes.ts";
import { type BenchContext, type BenchModule, type BenchResult, table } from "./lib/report.ts";

export const MIN_PERFORMANCE = 98;
export const MAX_FCP_MS = 1500;
export const MIN_SEO = 95;
export const MIN_ACCESSIBILITY = 100;

const DIR = new URL("./lighthouse/", import.meta.url).pathname;
const CLI = join(DIR, "node_modules/lighthouse/cli/index.js");
const CHROMIUM = Deno.env.get("CHROMIUM_PATH") ?? "/usr/bin/chromium";

export const LIGHTHOUSE_PAGES = [
  { path: "/", signedIn: false },
  { path: "/calculator", signedIn: false },
  { path: "/account", signedIn: true },
  { path: "/account/convert", signedIn: true },
] as const;

export interface LighthouseScores {
  path: string;
  performance: number;
  accessibility: number;
  seo: number;
  fcpMs: number;
  lcpMs: number;
  tbtMs: number;
  /** Audits that did not pass, for the report. */
  failing: string[];
}

async function run(command: string, args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const child = spawnTracked(
    new Deno.Command(command, { args, ...options, stdin: "null", stdout: "piped", stderr: "piped" }),
  );
  const out = await child.output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

/** Installs the pinned Lighthouse beside this file unless it is there. */
async function ensureLighthouse(): Promise<void> {
  if (existsSync(CLI)) return;
  console.log("  Installing lighthouse (npm ci in bench/lighthouse) ...");
  const installed = await run("npm", ["ci", "--no-audit", "--no-fund", "--ignore-scripts"], { cwd: DIR });
  if (installed.code !== 0) throw new Error(`npm ci in bench/lighthouse failed: ${installed.stderr.slice(-2000)}`);
}

/** One Lighthouse run of one page (mobile preset), its scores in 0-100 and its metrics in ms. */
export async function lighthouse(url: string, headers: Record<string, string> = {}): Promise<LighthouseScores> {
  const args = [
    CLI,
    url,
    "--output=json",
    "--output-path=stdout",
    "--quiet",
    "--only-categories=performance,accessibility,seo",
    `--chrome-flags=--headless=new --no-sandbox --disable-gpu`,
  ];
  if (Object.keys(headers).length) args.push(`--extra-headers=${JSON.stringify(headers)}`);
  let out = await run("node", args, { env: { CHROME_PATH: CHROMIUM } });
  // Lighthouse sometimes misses the navigation's start in Chromium's trace and says to run it
  // again (NO_NAVSTART): a fault of the recording, not of the page. At most twice more, then it counts.
  for (let retry = 0; retry < 2 && out.code !== 0 && out.stderr.includes("NO_NAVSTART"); retry++) {
    console.log(`  ${new URL(url).pathname}: Lighthouse missed the navigation's start (NO_NAVSTART); again`);
    out = await run("node", args, { env: { CHROME_PATH: CHROMIUM } });
  }
  if (out.code !== 0) throw new Error(`Lighthouse failed on ${url} (exit ${out.code}): ${out.stderr.slice(-2000)}`);
  // deno-lint-ignore no-explicit-any
  const report = JSON.parse(out.stdout) as any;
  if (report.runtimeError) throw new Error(`Lighthouse on ${url}: ${report.runtimeError.message}`);
  const score = (category: string) => Math.round((report.categories[category]?.score ?? 0) * 100);
  const failing = Object.entries(report.audits)
    // deno-lint-ignore no-explicit-any
    .filter(([, audit]: [string, any]) =>
      typeof audit.score === "number" && audit.score < 0.9 &&
      ["binary", "numeric", "metricSavings"].includes(audit.scoreDisplayMode)
    )
    // deno-lint-ignore no-explicit-any
    .map(([id, audit]: [string, any]) => `${id}${audit.displayValue ? ` (${audit.displayValue})` : ""}`);
  return {
    path: new URL(url).pathname,
    performance: score("performance"),
    accessibility: score("accessibility"),
    seo: score("seo"),
    fcpMs: report.audits["first-contentful-paint"].numericValue,
    lcpMs: report.audits["largest-contentful-paint"].numericValue,
    tbtMs: report.audits["total-blocking-time"].numericValue,
    failing,
  };
}

export const lighthouseBench: BenchModule = {
  name: "Lighthouse (mobile)",
  async run(ctx: BenchContext): Promise<BenchResult> {
    if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM} (set CHROMIUM_PATH)`);
    await ensureLighthouse();
    const portal = await ctx.portal();
    const cookie = await customerCookie(portal);
    const results: LighthouseScores[] = [];
    for (const page of LIGHTHOUSE_PAGES) {
      const scores = await lighthouse(portal.url + page.path, page.signedIn ? { Cookie: cookie } : {});
      results.push(scores);
      console.log(
        `  ${page.path}: performance ${scores.performance}, FCP ${(scores.fcpMs / 1000).toFixed(2)} s, ` +
          `LCP ${(scores.lcpMs / 1000).toFixed(2)} s, TBT ${
            scores.tbtMs.toFixed(0)
          } ms, accessibility ${scores.accessibility}, ` +
          `SEO ${scores.seo}${scores.failing.length ? `; not passing: ${scores.failing.join(", ")}` : ""}`,
      );
    }
    console.log();
    console.log(table(
      ["page", "performance", "FCP s", "LCP s", "TBT ms", "accessibility", "SEO"],
      results.map((r) => [
        r.path,
        String(r.performance),
        (r.fcpMs / 1000).toFixed(2),
        (r.lcpMs / 1000).toFixed(2),
        r.tbtMs.toFixed(0),
        String(r.accessibility),
        String(r.seo),
      ]),
    ));
    return {
      name: "Lighthouse (mobile)",
      rows: results.flatMap((r) => {
        const signedIn = LIGHTHOUSE_PAGES.find((p) => p.path === r.path)!.signedIn;
        return [
          {
            metric: `${r.path} performance`,
            value: String(r.performance),
            budget: { limit: `≥ ${MIN_PERFORMANCE}`, pass: r.performance >= MIN_PERFORMANCE },
          },
          {
            metric: `${r.path} first contentful paint`,
            value: `${(r.fcpMs / 1000).toFixed(2)} s`,
            budget: { limit: `≤ ${MAX_FCP_MS / 1000} s`, pass: r.fcpMs <= MAX_FCP_MS },
          },
          {
            metric: `${r.path} accessibility`,
            value: String(r.accessibility),
            budget: { limit: `${MIN_ACCESSIBILITY}`, pass: r.accessibility >= MIN_ACCESSIBILITY },
          },
          signedIn ? { metric: `${r.path} SEO (noindex: not budgeted)`, value: String(r.seo) } : {
            metric: `${r.path} SEO`,
            value: String(r.seo),
            budget: { limit: `≥ ${MIN_SEO}`, pass: r.seo >= MIN_SEO },
          },
        ];
      }),
    };
  },
};
