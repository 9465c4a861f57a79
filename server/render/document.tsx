import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ReactNode } from "react";
import { renderToString } from "react-dom/server";
import { colorModeFromCookieHeader } from "../../lib/color-mode.ts";
import type { ColorMode } from "../../lib/constants.ts";
import { serializeProps } from "../../lib/serialize.ts";
import type { AppEnv } from "../env.ts";
import { takeFlash } from "./flash.ts";
import { IslandCollector, IslandContext } from "./islands.tsx";
import { type PageContext, PageContextValue } from "./page-context.ts";

export interface DocumentOptions {
  title: string;
  /** The page inside its layout. Rendered with the page context, so layouts can read the user. */
  render: () => ReactNode;
  status?: ContentfulStatusCode;
  forcedColorMode?: "light" | "dark" | null;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);

/** The colour mode the visitor chose, mirrored from local storage into a cookie by the toggle. */
export function colorModeOf(c: Context): ColorMode {
  return colorModeFromCookieHeader(c.req.header("cookie")) ?? "system";
}

/**
 * Renders a whole page: React to HTML on the server, then the document around it. Islands the page
 * rendered get their props in one data block and their chunks preloaded; a page that rendered no
 * island ships no script at all.
 */
export function renderDocument(c: Context<AppEnv>, options: DocumentOptions): Response {
  const forced = options.forcedColorMode ?? null;
  const page: PageContext = {
    path: c.req.path + (new URL(c.req.url).search || ""),
    user: c.var.user ?? null,
    onBehalf: c.var.onBehalf ? { ...c.var.onBehalf, cc_contact: c.var.onBehalf.username } : null,
    colorMode: forced ?? colorModeOf(c),
    forcedColorMode: forced,
    notifications: takeFlash(c),
  };
  const collector = new IslandCollector();
  const body = renderToString(
    <IslandContext.Provider value={collector}>
      <PageContextValue.Provider value={page}>{options.render()}</PageContextValue.Provider>
    </IslandContext.Provider>,
  );

  const { assets } = c.var;
  const nonce = c.var.secureHeadersNonce ?? "";
  let head = "";
  let tail = "";
  if (collector.instances.length > 0) {
    for (const href of assets.modulesFor(collector.names)) {
      head += `<link rel="modulepreload" href="${href}" nonce="${nonce}">`;
    }
    tail = `<script type="application/json" id="__islands">${serializeProps(collector.instances)}</script>` +
      `<script type="module" src="${assets.entry}" nonce="${nonce}"></script>`;
  }

  const html = `<!doctype html><html lang="en" data-theme="${page.colorMode}"${
    forced ? ` data-forced-color-mode="${forced}"` : ""
  }><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(options.title)} · Portal</title><link rel="icon" href="/favicon.svg" type="image/svg+xml">` +
    
    `<link rel="stylesheet" href="${assets.stylesheet}">${head}</head><body>${body}${tail}</body></html>`;
  // Without a status of its own, the page keeps the one its handler set (c.status(403)).
  return options.status ? c.html(html, options.status) : c.html(html);
}
