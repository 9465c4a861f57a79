/**
 * JavaScript weight as the browser receives it: every script a page makes the browser load
 * (bench/lib/page-scripts.ts), fetched from the running portal with a browser's Accept-Encoding
 * and counted as transferred (brotli, as the portal sends it), not gzipped on the side; and the
 * whole page as transferred (its HTML, stylesheet and scripts). Public pages (--paths) as a visitor
 * loads them, then every other page of the portal with islands as its person loads it: a customer,
 * an administrator, the same administrator on behalf of the customer, and two people registering.
 */
import { PAGES } from "../routes/pages.tsx";
import { openDatabase } from "../db/client.ts";
import {
  fundedCustomerOverHttp,
  HttpSession,
  registerOverHttp,
  signInOverHttp,
} from "../tests/helpers/http-customer.ts";
import {
  decoded,
  MAX_TRANSFERRED_JS_BYTES,
  type PageScripts,
  scriptsOfPage,
  stylesheetsOfHtml,
} from "./lib/page-scripts.ts";
import type { RunningPortal } from "./lib/processes.ts";
import { portalAdmin } from "./page.ts";
import { type BenchContext, type BenchModule, type BenchResult, fmt, kb, table } from "./lib/report.ts";
import { fetchTransferred } from "./lib/transferred.ts";

export { MAX_TRANSFERRED_JS_BYTES };

export interface PageWeight extends PageScripts {
  path: string;
  /** Who loaded it. */
  who: string;
  /** The HTML, the stylesheets and the scripts, as transferred. */
  pageTransferredBytes: number;
}

export async function measurePage(origin: string, path: string, who: string, cookie?: string): Promise<PageWeight> {
  const pageUrl = new URL(path, origin);
  const headers: Record<string, string> = cookie ? { cookie } : {};
  const page = await fetchTransferred(pageUrl.href, headers);
  if (page.status !== 200) {
    throw new Error(
      `GET ${path} as ${who} answered ${page.status}${page.headers.location ? ` → ${page.headers.location}` : ""}`,
    );
  }
  const html = new TextDecoder().decode(decoded(page));
  const scripts = await scriptsOfPage(pageUrl, html, (url) => fetchTransferred(url));
  let styles = 0;
  for (const href of stylesheetsOfHtml(html)) {
    styles += (await fetchTransferred(new URL(href, pageUrl).href)).body.byteLength;
  }
  return {
    path,
    who,
    ...scripts,
    pageTransferredBytes: page.body.byteLength + styles + scripts.totalTransferredBytes,
  };
}

/**
 * Every page of the portal as the people who see it load it: set up over HTTP on the bench's portal
 * (tests/helpers/http-customer.ts) and fetched with each one's session. A page that sends one of
 * them elsewhere (a redirect) is not theirs and is left out; pages without islands load no script.
 */
async function signedInPages(portal: RunningPortal): Promise<Array<{ path: string; who: string; cookie: string }>> {
  const mailbox = await openDatabase({ url: `file:${portal.databasePath}` });
  try {
    const admin = await portalAdmin(portal);
    const customer = await fundedCustomerOverHttp(portal.url, mailbox, admin, { funds: { GBP: "1000.00" } });
    const person = await registerOverHttp(portal.url, mailbox, { type: "Personal" });
    const business = await registerOverHttp(portal.url, mailbox, { type: "Business" });
    // The same administrator in a second browser, acting on behalf of the customer.
    const onBehalf = { session: new HttpSession(portal.url) };
    await signInOverHttp(onBehalf.session, mailbox, admin.email, admin.password);
    const started = await onBehalf.session.post("account/onbehalf", { on_behalf_of: customer.id });
    if (started.status !== 200) throw new Error(`On behalf of the customer: ${started.status} ${started.text}`);
    const people = [
      { who: "customer", cookie: customer.session.cookieHeader() },
      { who: "administrator", cookie: admin.session.cookieHeader() },
      { who: "on behalf", cookie: onBehalf.session.cookieHeader() },
      { who: "Personal registrant", cookie: person.session.cookieHeader() },
      { who: "Business registrant", cookie: business.session.cookieHeader() },
    ];
    const paths = PAGES.map((page) => page.path.replace(/:id\b.*$/, String(customer.id)))
      .filter((path) => !["/", "/calculator"].includes(path));
    const pages = [];
    for (const { who, cookie } of people) {
      for (const path of paths) {
        const res = await fetch(new URL(path, portal.url), { headers: { cookie }, redirect: "manual" });
        const html = await res.text();
        if (res.status === 200 && html.includes('id="__islands"')) pages.push({ path, who, cookie });
      }
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
    for (const path of ctx.options.paths) pages.push(await measurePage(portal.url, path, "visitor"));
    const signedIn: PageWeight[] = [];
    for (const { path, who, cookie } of await signedInPages(portal)) {
      signedIn.push(await measurePage(portal.url, path, who, cookie));
    }

    for (const page of pages) {
      console.log(`\n  ${page.path}: ${page.files.length} scripts`);
      console.log(
        table(
          ["file", "loaded as", "bytes", "transferred"],
          [
            ...page.files.map((
              f,
            ) => [new URL(f.url).pathname, f.via, fmt(f.bytes), `${kb(f.transferredBytes)} ${f.encoding ?? ""}`]),
            ["total", "", fmt(page.totalBytes), kb(page.totalTransferredBytes)],
          ],
        ).replace(/^/gm, "    "),
      );
      if (page.lazy.length) {
        console.log(`    not loaded on this page (dynamic imports, loaded on demand): ${page.lazy.join(", ")}`);
      }
    }
    console.log("\n  Every other page with islands, as each person who sees it loads it (as transferred):");
    console.log(
      table(
        ["page", "as", "scripts", "JavaScript", "whole page", "not loaded (on demand)"],
        signedIn.map((page) => [
          page.path,
          page.who,
          String(page.files.length),
          kb(page.totalTransferredBytes),
          kb(page.pageTransferredBytes),
          page.lazy.join(", "),
        ]),
      ).replace(/^/gm, "    "),
    );
    const heaviest = signedIn.reduce((a, b) => (b.totalTransferredBytes > a.totalTransferredBytes ? b : a));

    return {
      name: "JavaScript weight",
      rows: [
        ...pages.map((page) => ({
          metric: `${page.path} JavaScript as transferred (${page.files.length} files; whole page ${
            kb(page.pageTransferredBytes)
          })`,
          value: `${kb(page.totalTransferredBytes)} = ${fmt(page.totalTransferredBytes)} B (raw ${
            kb(page.totalBytes)
          })`,
          budget: {
            limit: `≤ ${kb(MAX_TRANSFERRED_JS_BYTES)}`,
            pass: page.totalTransferredBytes <= MAX_TRANSFERRED_JS_BYTES,
          },
        })),
        {
          metric: `${signedIn.length} other pages, the heaviest (${heaviest.path} as ${heaviest.who})`,
          value: `${kb(heaviest.totalTransferredBytes)} = ${fmt(heaviest.totalTransferredBytes)} B`,
          budget: {
            limit: `≤ ${kb(MAX_TRANSFERRED_JS_BYTES)} each`,
            pass: signedIn.every((page) => page.totalTransferredBytes <= MAX_TRANSFERRED_JS_BYTES),
          },
        },
      ],
    };
  },
};
