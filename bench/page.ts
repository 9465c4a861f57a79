/**
 * Page render: requests per second of a server-rendered page from the real portal, against a bare
 * Deno.serve answering the very same bytes. The ratio portal/bare is what rendering and the
 * middleware cost, on the same machine, with the same load generator, independent of how fast the
 * machine is. Sides are measured alternately (bare, portal, bare, portal, ...) and the median of
 * each side is kept, so that a noisy moment hurts only one sample.
 *
 * Three kinds of page, each with its budget (issue 9): the public pages kept rendered (the page
 * cache), an anonymous page rendered for every request, and the signed-in pages of a customer
 * (their session cookie sent with every request). `--paths` keeps only the pages named.
 */
import { join } from "node:path";
import { openDatabase } from "../db/client.ts";
import { createAdminOverHttp, fundedCustomerOverHttp, type HttpAdmin } from "../tests/helpers/http-customer.ts";
import { type LoadResult, measureLoad } from "./load.ts";
import { type RunningPortal, startServer, tempDir } from "./lib/processes.ts";
import { type BenchContext, type BenchModule, type BenchResult, fmt, median, table } from "./lib/report.ts";

/** A kind of page and its budget: each of its pages serves at least this share of the bare server's req/s. */
export interface PageGroup {
  name: string;
  paths: string[];
  minRatio: number;
  signedIn: boolean;
}

export const PAGE_GROUPS: readonly PageGroup[] = [
  { name: "cached public page", paths: ["/", "/calculator"], minRatio: 0.6, signedIn: false },
  { name: "anonymous page rendered per request", paths: ["/register"], minRatio: 0.35, signedIn: false },
  {
    name: "signed-in page",
    paths: ["/account", "/account/balances", "/account/convert"],
    minRatio: 0.25,
    signedIn: true,
  },
];

/** A funded customer signed in on the bench's portal: the Cookie header their browser sends. */
export function customerCookie(portal: RunningPortal): Promise<string> {
  // One customer per portal: the benchmarks of a run share the portal, whose setup runs once.
  let cookie = cookies.get(portal);
  if (!cookie) cookies.set(portal, cookie = newCustomerCookie(portal));
  return cookie;
}
const cookies = new WeakMap<RunningPortal, Promise<string>>();

/**
 * The portal's first administrator, signed in: made once per portal (its setup answers only once),
 * for every benchmark of the run that needs one.
 */
export function portalAdmin(portal: RunningPortal): Promise<HttpAdmin> {
  let admin = admins.get(portal);
  if (!admin) {
    admins.set(
      portal,
      admin = (async () => {
        const mailbox = await openDatabase({ url: `file:${portal.databasePath}` });
        try {
          return await createAdminOverHttp(portal.url, mailbox);
        } finally {
          mailbox.$client.close();
        }
      })(),
    );
  }
  return admin;
}
const admins = new WeakMap<RunningPortal, Promise<HttpAdmin>>();

async function newCustomerCookie(portal: RunningPortal): Promise<string> {
  const mailbox = await openDatabase({ url: `file:${portal.databasePath}` });
  try {
    const admin = await portalAdmin(portal);
    const customer = await fundedCustomerOverHttp(portal.url, mailbox, admin, { funds: { GBP: "1000.00" } });
    return customer.session.cookieHeader();
  } finally {
    mailbox.$client.close();
  }
}

/**
 * A sample during which other processes used more than this share of a core is disturbed (this
 * machine is shared): it is measured again after a pause, up to MAX_RETRIES times per sample and
 * RETRY_BUDGET times per run, so that a machine busy for good doesn't make the run endless.
 */
export const MAX_OTHER_CPU = 0.25;
export const MAX_RETRIES = 2;
export const RETRY_BUDGET = 6;

interface Side {
  samples: LoadResult[];
  rps: number;
  p50Ms: number;
  p99Ms: number;
  cpuUs: number | null;
}

function summarise(samples: LoadResult[]): Side {
  const cpu = samples.map((s) => s.serverCpuUsPerRequest).filter((v): v is number => v !== null);
  return {
    samples,
    rps: median(samples.map((s) => s.rps)),
    p50Ms: median(samples.map((s) => s.p50Ms)),
    p99Ms: median(samples.map((s) => s.p99Ms)),
    cpuUs: cpu.length ? median(cpu) : null,
  };
}

const describe = (r: LoadResult) =>
  `${fmt(r.rps).padStart(7)} req/s  p50 ${r.p50Ms.toFixed(2).padStart(6)} ms  p99 ${
    r.p99Ms.toFixed(2).padStart(6)
  } ms` +
  (r.serverCpu !== null ? `  server CPU ${(r.serverCpu * 100).toFixed(0).padStart(3)}%` : "") +
  (r.serverCpuUsPerRequest !== null ? ` (${r.serverCpuUsPerRequest.toFixed(0)} µs/req)` : "") +
  (r.loaderCpu !== null ? `  load gen CPU ${(r.loaderCpu * 100).toFixed(0).padStart(3)}%` : "") +
  (r.otherCpu !== null ? `  others ${(r.otherCpu * 100).toFixed(0).padStart(3)}%` : "");

const disturbed = (r: LoadResult) => r.otherCpu !== null && r.otherCpu > MAX_OTHER_CPU;

export const pageBench: BenchModule = {
  name: "Page render",
  async run(ctx: BenchContext): Promise<BenchResult> {
    const { options } = ctx;
    const portal = await ctx.portal();
    const dir = tempDir("portal-bench-pages-");
    let bare: Awaited<ReturnType<typeof startServer>> | null = null;
    const groups = PAGE_GROUPS
      .map((group) => ({
        ...group,
        paths: options.pathsGiven ? group.paths.filter((p) => options.paths.includes(p)) : group.paths,
      }))
      .filter((group) => group.paths.length > 0);
    if (!groups.length) throw new Error(`--paths names none of ${PAGE_GROUPS.flatMap((g) => g.paths).join(", ")}`);
    const paths = groups.flatMap((group) => group.paths);
    const cookie = groups.some((group) => group.signedIn) ? await customerCookie(portal) : "";
    const headersOf = (path: string): [string, string][] =>
      groups.find((group) => group.paths.includes(path))!.signedIn ? [["Cookie", cookie]] : [];
    try {
      // 1. One answer of each page from the portal: the bytes and content-type the bare server serves.
      const spec: Record<string, { file: string; contentType: string; headers: [string, string][] }> = {};
      for (const [i, path] of paths.entries()) {
        const res = await fetch(portal.url + path, { headers: headersOf(path), redirect: "manual" });
        const body = new Uint8Array(await res.arrayBuffer());
        if (res.status !== 200) throw new Error(`GET ${path} on the portal answered ${res.status}`);
        const file = join(dir.path, `page-${i}.html`);
        Deno.writeFileSync(file, body);
        spec[path] = {
          file,
          contentType: res.headers.get("content-type") ?? "application/octet-stream",
          headers: [...res.headers].filter(([name]) => name !== "date" && name !== "content-length"),
        };
        console.log(`  ${path}: ${fmt(body.byteLength)} bytes, ${spec[path].contentType}`);
      }
      const specFile = join(dir.path, "pages.json");
      Deno.writeTextFileSync(specFile, JSON.stringify(spec));

      // 2. The bare server, serving those bytes.
      bare = await startServer({
        name: "bare server",
        script: new URL("./bare-server.ts", import.meta.url).pathname,
        env: { BARE_PAGES: specFile, NODE_ENV: "production" },
        readyPath: "/__ready",
      });

      // 3. Alternate bare and portal, `rounds` times per page.
      const load = {
        connections: options.connections,
        warmupSeconds: options.warmupSeconds,
        durationSeconds: options.durationSeconds,
      };
      // Both servers primed on every page first (JIT, caches), so that round 1 is not the slow one.
      for (const path of paths) {
        for (const server of [bare, portal]) {
          await measureLoad(server.url + path, { ...load, durationSeconds: 1, headers: headersOf(path) });
        }
      }

      const results: { path: string; bare: Side; portal: Side; ratio: number; cpuRatio: number | null }[] = [];
      let disturbedKept = 0;
      let retriesLeft = RETRY_BUDGET;
      for (const path of paths) {
        const samples = { bare: [] as LoadResult[], portal: [] as LoadResult[] };
        for (let round = 1; round <= options.rounds; round++) {
          for (const side of ["bare", "portal"] as const) {
            const server = side === "bare" ? bare : portal;
            const label = `  ${path} round ${round}/${options.rounds} ${side.padEnd(6)}`;
            // The bare server is sent the cookie too: the same request, only the answering differs.
            const measure = () =>
              measureLoad(server.url + path, { ...load, serverPid: server.pid, headers: headersOf(path) });
            let r = await measure();
            for (let retry = 1; disturbed(r) && retry <= MAX_RETRIES && retriesLeft > 0; retry++, retriesLeft--) {
              console.log(`${label} ${describe(r)}  <- other processes were busy; again in ${3 * retry} s`);
              await new Promise((done) => setTimeout(done, 3000 * retry));
              r = await measure();
            }
            if (disturbed(r)) disturbedKept++;
            samples[side].push(r);
            console.log(`${label} ${describe(r)}${disturbed(r) ? "  <- still disturbed, kept" : ""}`);
          }
        }
        const b = summarise(samples.bare);
        const p = summarise(samples.portal);
        results.push({
          path,
          bare: b,
          portal: p,
          ratio: p.rps / b.rps,
          cpuRatio: b.cpuUs !== null && p.cpuUs !== null ? b.cpuUs / p.cpuUs : null,
        });
      }

      console.log();
      console.log(table(
        ["page", "side", "req/s (median)", "p50 ms", "p99 ms", "server µs/req", "portal/bare"],
        results.flatMap((r) => [
          [
            r.path,
            "bare",
            fmt(r.bare.rps),
            r.bare.p50Ms.toFixed(2),
            r.bare.p99Ms.toFixed(2),
            r.bare.cpuUs?.toFixed(0) ?? "?",
            "",
          ],
          [
            r.path,
            "portal",
            fmt(r.portal.rps),
            r.portal.p50Ms.toFixed(2),
            r.portal.p99Ms.toFixed(2),
            r.portal.cpuUs?.toFixed(0) ?? "?",
            r.ratio.toFixed(2),
          ],
        ]),
      ));
      console.log(
        `  (${options.connections} connections, ${options.warmupSeconds} s warm-up + ${options.durationSeconds} s measured, ` +
          `median of ${options.rounds} alternating rounds per side; server µs/req is the server's CPU time per answer)`,
      );
      const verdicts = groups.map((group) => {
        const mine = results.filter((r) => group.paths.includes(r.path));
        return {
          group,
          lowest: Math.min(...mine.map((r) => r.ratio)),
          pass: mine.every((r) => r.ratio >= group.minRatio),
        };
      });
      console.log();
      for (const { group, lowest, pass } of verdicts) {
        console.log(
          `  ${group.name} (${group.paths.join(", ")}): lowest ratio ${
            lowest.toFixed(2)
          }, budget ≥ ${group.minRatio}: ${pass ? "PASS" : "FAIL"}`,
        );
      }
      if (verdicts.some((v) => !v.pass)) {
        console.log(
          "  Below budget. To see where the time goes: deno task bench --only page --paths / --rounds 1 --cpu-prof DIR, " +
            "or NODE_ENV=production deno run -A bench/tools/breakdown.tsx (docs/PERFORMANCE.md).",
        );
      }
      if (disturbedKept) {
        console.log(
          `  Warning: ${disturbedKept} sample(s) ran while other processes used more than ${
            MAX_OTHER_CPU * 100
          }% of a core; ` +
            "req/s figures are unreliable, the µs/req (CPU time) figures much less affected.",
        );
      }

      return {
        name: "Page render",
        rows: [
          ...(disturbedKept ? [{ metric: "samples disturbed by other processes", value: String(disturbedKept) }] : []),
          ...results.flatMap((r) => {
            const group = groups.find((g) => g.paths.includes(r.path))!;
            return [
              {
                metric: `${r.path} portal req/s (p50 / p99)`,
                value: `${fmt(r.portal.rps)} (${r.portal.p50Ms.toFixed(1)} / ${r.portal.p99Ms.toFixed(1)} ms)`,
              },
              {
                metric: `${r.path} bare req/s (p50 / p99)`,
                value: `${fmt(r.bare.rps)} (${r.bare.p50Ms.toFixed(1)} / ${r.bare.p99Ms.toFixed(1)} ms)`,
              },
              {
                metric: `${r.path} ratio portal/bare req/s (${group.name})`,
                value: r.ratio.toFixed(2) + (r.cpuRatio !== null ? ` (CPU-time ratio ${r.cpuRatio.toFixed(2)})` : ""),
                budget: { limit: `≥ ${group.minRatio}`, pass: r.ratio >= group.minRatio },
              },
            ];
          }),
        ],
      };
    } finally {
      await bare?.stop();
      dir.remove();
    }
  },
};
