/**
 * The JavaScript a page makes the browser load, and what it weighs as the browser receives it.
 * A page loads the <script src> and <link rel="modulepreload" href> of its HTML, the module of each
 * island its data block names (the hydration entry imports them), and, recursively, the static
 * imports of those modules (Vite emits them as relative paths: import{a as b}from"./x.js").
 * Dynamic imports written in the modules (a part an island loads on demand) are listed but not
 * counted. Used by the bench (bench/js-weight.ts, over HTTP) and by the CI test of the budget
 * (tests/integration/js-budget.test.ts, in-process).
 */
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { deserializeProps } from "../../lib/serialize.ts";

/**
 * Budget (decision 034): all the JavaScript one page loads, as transferred (brotli, since every
 * browser that runs the islands accepts it), in bytes (KB = 1000 bytes), on every page, console
 * included, on behalf too.
 */
export const MAX_TRANSFERRED_JS_BYTES = 35_000;

export interface ScriptFile {
  url: string;
  /** Why the page loads it: "script", "modulepreload", "island module" or "import from X". */
  via: string;
  /** Its size once decoded. */
  bytes: number;
  /** Its size as transferred. */
  transferredBytes: number;
  encoding: string | null;
}

export interface PageScripts {
  files: ScriptFile[];
  totalBytes: number;
  totalTransferredBytes: number;
  /** Dynamic imports found in the loaded modules that this page does not load. */
  lazy: string[];
}

/** One file as the server sent it. */
export interface Sent {
  status: number;
  body: Uint8Array;
  encoding: string | null;
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

/** The stylesheets an HTML page links. */
export function stylesheetsOfHtml(html: string): string[] {
  const found: string[] = [];
  for (const [tag] of html.matchAll(/<link\b[^>]*>/gi)) {
    const attrs = attributes(tag.slice(1, -1).replace(/^link/i, ""));
    if ((attrs.get("rel") ?? "").toLowerCase().split(/\s+/).includes("stylesheet") && attrs.get("href")) {
      found.push(attrs.get("href")!);
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

/** A body as the browser reads it, once decoded. */
export function decoded(sent: Sent): Uint8Array {
  if (sent.encoding === "br") return new Uint8Array(brotliDecompressSync(sent.body));
  if (sent.encoding === "gzip") return new Uint8Array(gunzipSync(sent.body));
  if (sent.encoding) throw new Error(`An encoding the page scripts cannot read: ${sent.encoding}`);
  return sent.body;
}

/**
 * Every script the page at `pageUrl` loads, each fetched with `load` (as a browser would: with its
 * Accept-Encoding), weighed as transferred and once decoded.
 */
export async function scriptsOfPage(
  pageUrl: URL,
  html: string,
  load: (url: string) => Promise<Sent>,
): Promise<PageScripts> {
  const files = new Map<string, ScriptFile>();
  const dynamic = new Set<string>();
  const queue = [
    ...scriptsOfHtml(html).map(({ href, via }) => ({ url: new URL(href, pageUrl).href, via })),
    ...islandModulesOfHtml(html).map((href) => ({ url: new URL(href, pageUrl).href, via: "island module" })),
  ];
  while (queue.length) {
    const { url, via } = queue.shift()!;
    if (files.has(url)) continue;
    if (new URL(url).origin !== pageUrl.origin) {
      throw new Error(`${pageUrl.pathname} loads a script from another origin: ${url}`);
    }
    const sent = await load(url);
    if (sent.status !== 200) throw new Error(`${pageUrl.pathname} loads ${url}, which answered ${sent.status}`);
    const body = decoded(sent);
    files.set(url, {
      url,
      via,
      bytes: body.byteLength,
      transferredBytes: sent.body.byteLength,
      encoding: sent.encoding,
    });
    const code = new TextDecoder().decode(body);
    const name = new URL(url).pathname.split("/").at(-1);
    for (const spec of staticImports(code)) queue.push({ url: new URL(spec, url).href, via: `import from ${name}` });
    for (const spec of dynamicImports(code)) dynamic.add(new URL(spec, url).href);
  }
  const list = [...files.values()];
  return {
    files: list,
    totalBytes: list.reduce((n, f) => n + f.bytes, 0),
    totalTransferredBytes: list.reduce((n, f) => n + f.transferredBytes, 0),
    lazy: [...dynamic].filter((u) => !files.has(u)).map((u) => new URL(u).pathname),
  };
}
