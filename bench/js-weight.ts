/**
 * JavaScript weight: every script a page makes the browser load, gzipped. A page loads the
 * <script src> and <link rel="modulepreload" href> of its HTML, the module of each island its data
 * block names (the hydration entry imports them), and, recursively, the static imports of those
 * modules (Vite emits them as relative paths: import{a as b}from"./x.js"). Dynamic imports written
 * in the modules (a part an island loads on demand) are listed but not counted.
 * The modules are fetched from the running portal, i.e. exactly what it serves from dist/assets.
 * Public pages (--paths) as a visitor loads them, then every signed-in page with islands as its
 * person loads it (each budgeted). bench/tools/island-weights.ts adds the on-behalf view.
 */
import { gzipSync } from "node:zlib";
import { deserializeProps } from "../lib/serialize.ts";
import { openDatabase } from "../db/client.ts";
import { createAdminOverHttp, fundedCustomerOverHttp, registerOverHttp } from "../tests/helpers/http-customer.ts";
import type { RunningPortal } from "./lib/processes.ts";
import { type BenchContext, type BenchModule, type BenchResult, fmt, kb, table } from "./lib/report.ts";

/**
 * Budget: all the JavaScript one page loads, gzip level 9, in bytes (KB = 1000 bytes). 95 KB since
 * TanStack Query came into the islands (decision 016: about 12 KB of it), until issue 9 budgets the
 * bytes as transferred.
 */
export const MAX_GZIP_BYTES = 95_000;

interface ScriptFile {
  url: string;
  /** Why the page loads it: "script", "modulepreload" or "import from X". */
  via: string;
  bytes: number;
  gzipBytes: number;
}

export interface PageWeight {
  path: string;
  files: ScriptFile[];
  totalBytes: number;
  totalGzipBytes: number;
  /** Dynamic imports found in the loaded modules that this page does not load. */
  lazy: string[];
}

function attributes(tag: string): Map<string, string> {
  const attrs = new Map<string, string>();
  for (const m of tag.matchAll(/([^\s=<>"'/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g)) {
    attrs.set(m[1].toLowerCase(), m[2] ?? m[3] ?? m[4] ?? "");
  }
  return attrs;
}

/** The script URLs an HTML page loads directly: <script src> and <link rel=modulepreload>. */
export function scriptsOfHtml(html: string): { href: string; via: string }[] {
  const found: { href: string; via: string }[] = [];
  for (const [tag] of html.matchAll(/<(script|link)\b[^>]*>/gi)) {
    const attrs = attributes(tag.slice(1, -1).replace(/^(script|link)/i, ""));
    if (/^<script/i.test(tag) && attrs.get("src")) found.push({ href: attrs.get("src")!, via: "script" });
    const rel = (attrs.get("rel") ?? "").toLowerCase().split(/\s+/);
    if (/^<link/i.test(tag) && rel.includes("modulepreload") && attrs.get("href")) {
      found.push({ href: attrs.get("href")!, via: "modulepreload" });
    }
  }
  return found;
}

/**
 * Static imports of an ES module: import x from "./a.js", import{a}from"./a.js", import"./a.js",
 * export{a}from"./a.js", export*from"./a.js". Relative specifiers only (what Vite emits).
 */
export function staticImports(code: string): string[] {
  const out: string[] = [];
  const re = /(?<![\w$.])(?:import|export)\s*(?:[\w$*{}\s,]*?\s*from\s*)?(["'`])(\.{1,2}\/[^"'`\n]+)\1/g;
  for (const m of code.matchAll(re)) out.push(m[2]);
  return out;
}

/** The island modules a page's data block names (`"src"` of each island; the layouts' have none). */
export function islandModulesOfHtml(html: string): string[] {
  const block = /<script type="application\/json" id="__islands">([^<]*)<\/script>/.exec(html)?.[1];
  if (!block) return [];
  return deserializeProps<{ src?: string }[]>(block).map((island) => island.src ?? "").filter(Boolean);
}

/** Dynamic imports with a literal relative specifier: import("./a.js"), import(`./a.js`). */
export function dynamicImports(code: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(/(?<![\w$.])import\s*\(\s*(["'`])(\.{1,2}\/[^"'`\n]+)\1\s*\)/g)) out.push(m[2]);
  return out;
}

export async function measurePage(origin: string, path: string, cookie?: string): Promise<PageWeight> {
  const pageUrl = new URL(path, origin);
  const res = await fetch(pageUrl, { headers: cookie ? { Cookie: cookie } : {}, redirect: "manual" });
  const html = await res.text();
  if (res.status !== 200) {
    throw new Error(
      `GET ${path} answered ${res.status}${res.headers.get("location") ? ` → ${res.headers.get("location")}` : ""}`,
    );
  }

  const files = new Map<string, ScriptFile>();
  const dynamic = new Set<string>();
  const queue = [
    ...scriptsOfHtml(html).map(({ href, via }) => ({ url: new URL(href, pageUrl).href, via })),
    ...islandModulesOfHtml(html).map((href) => ({ url: new URL(href, pageUrl).href, via: "island module" })),
  ];
  while (queue.length) {
    const { url, via } = queue.shift()!;
    if (files.has(url)) continue;
    if (new URL(url).origin !== pageUrl.origin) throw new Error(`${path} loads a script from another origin: ${url}`);
    const r = await fetch(url);
    const body = new Uint8Array(await r.arrayBuffer());
    if (r.status !== 200) throw new Error(`${path} loads ${url}, which answered ${r.status}`);
    files.set(url, { url, via, bytes: body.byteLength, gzipBytes: gzipSync(body, { level: 9 }).byteLength });
    const code = new TextDecoder().decode(body);
    const name = new URL(url).pathname.split("/").at(-1);
    for (const spec of staticImports(code)) queue.push({ url: new URL(spec, url).href, via: `import from ${name}` });
    for (const spec of dynamicImports(code)) dynamic.add(new URL(spec, url).href);
  }
  const list = [...files.values()];
  return {
    path,
    files: list,
    totalBytes: list.reduce((n, f) => n + f.bytes, 0),
    totalGzipBytes: list.reduce((n, f) => n + f.gzipBytes, 0),
    lazy: [...dynamic].filter((u) => !files.has(u)).map((u) => new URL(u).pathname),
  };
}

/**
 * The signed-in pages with islands, as their people see them: set up over HTTP on the bench's
 * portal (tests/helpers/http-customer.ts) and fetched with each one's session cookie.
 */
async function signedInPages(portal: RunningPortal): Promise<Array<{ path: string; cookie: string }>> {
  const mailbox = await openDatabase({ url: `file:${portal.databasePath}` });
  try {
    const admin = await createAdminOverHttp(portal.url, mailbox);
    const customer = await fundedCustomerOverHttp(portal.url, mailbox, admin, { funds: { GBP: "1000.00" } });
    const person = await registerOverHttp(portal.url, mailbox, { type: "Personal" });
    const business = await registerOverHttp(portal.url, mailbox, { type: "Business" });
    const pages = [
      { path: "/register-personal", cookie: person.session.cookieHeader() },
      { path: "/register-business", cookie: business.session.cookieHeader() },
    ];
    for (
      const path of [
        "/account",
        "/account/balances",
        "/account/convert",
        "/account/security",
        "/account/users",
        "/account/linked-accounts",
        "/account/payment",
      ]
    ) {
      pages.push({ path, cookie: customer.session.cookieHeader() });
    }
    for (
      const path of ["/console/users", `/console/users/${customer.id}`, "/console/receipts", "/console/pricingplan"]
    ) {
      pages.push({ path, cookie: admin.session.cookieHeader() });
    }
    return pages;
  } finally {
    mailbox.$client.close();
  }
}

export const jsWeightBench: BenchModule = {
  name: "JavaScript weight",
  async run(ctx: BenchContext): Promise<BenchResult> {
    const portal = await ctx.portal();
    const pages: PageWeight[] = [];
    for (const path of ctx.options.paths) pages.push(await measurePage(portal.url, path));
    const signedIn: PageWeight[] = [];
    for (const { path, cookie } of await signedInPages(portal)) {
      signedIn.push(await measurePage(portal.url, path, cookie));
    }

    for (const page of pages) {
      console.log(`\n  ${page.path}: ${page.files.length} scripts`);
      console.log(
        table(
          ["file", "loaded as", "bytes", "gzip"],
          [
            ...page.files.map((f) => [new URL(f.url).pathname, f.via, fmt(f.bytes), kb(f.gzipBytes)]),
            ["total", "", fmt(page.totalBytes), kb(page.totalGzipBytes)],
          ],
        ).replace(/^/gm, "    "),
      );
      if (page.lazy.length) {
        console.log(`    not loaded on this page (dynamic imports, loaded on demand): ${page.lazy.join(", ")}`);
      }
    }
    console.log(
      "\n  Signed-in pages (a customer, an administrator, two people registering), fetched with their session:",
    );
    console.log(
      table(
        ["page", "scripts", "gzip", "not loaded (on demand)"],
        signedIn.map((page) => [page.path, String(page.files.length), kb(page.totalGzipBytes), page.lazy.join(", ")]),
      ).replace(/^/gm, "    "),
    );
    const heaviest = signedIn.reduce((a, b) => (b.totalGzipBytes > a.totalGzipBytes ? b : a));

    return {
      name: "JavaScript weight",
      rows: [
        ...pages.map((page) => ({
          metric: `${page.path} JavaScript, gzip (${page.files.length} files)`,
          value: `${kb(page.totalGzipBytes)} = ${fmt(page.totalGzipBytes)} B (raw ${kb(page.totalBytes)})`,
          budget: { limit: `≤ ${kb(MAX_GZIP_BYTES)}`, pass: page.totalGzipBytes <= MAX_GZIP_BYTES },
        })),
        {
          metric: `${signedIn.length} signed-in pages, the heaviest (${heaviest.path})`,
          value: `${kb(heaviest.totalGzipBytes)} = ${fmt(heaviest.totalGzipBytes)} B`,
          budget: {
            limit: `≤ ${kb(MAX_GZIP_BYTES)} each`,
            pass: signedIn.every((page) => page.totalGzipBytes <= MAX_GZIP_BYTES),
          },
        },
      ],
    };
  },
};
