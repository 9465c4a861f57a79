import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ReactNode } from "react";
import { renderToString } from "react-dom/server";
import { colorModeFromCookieHeader } from "../../lib/color-mode.ts";
import type { ColorMode } from "../../lib/constants.ts";
import type { Notification } from "../../lib/notification.ts";
import { serializeProps, UnserializableProp } from "../../lib/serialize.ts";
import type { AppEnv } from "../env.ts";
import type { Assets } from "./assets.ts";
import { takeFlash } from "./flash.ts";
import { IslandCollector, IslandContext } from "./islands.tsx";
import { type PageContext, PageContextValue } from "./page-context.ts";

export interface DocumentOptions {
  title: string;
  /** The page's meta description (DEFAULT_DESCRIPTION when not given). */
  description?: string;
  /** Keeps the page out of search engines (signed-in pages). */
  noindex?: boolean;
  /** The page inside its layout. Rendered with the page context, so layouts can read the user. */
  render: () => ReactNode;
  status?: ContentfulStatusCode;
  forcedColorMode?: "light" | "dark" | null;
  /** In-app notifications for the notification queue, after any the last redirect carried. */
  notifications?: Notification[];
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);

/** What a search engine shows for a public page that says nothing of its own. */
export const DEFAULT_DESCRIPTION =
  "International payments and currency exchange for people and businesses: hold, convert and send money.";

/** The colour mode the visitor chose, mirrored from local storage into a cookie by the toggle. */
export function colorModeOf(c: Context): ColorMode {
  return colorModeFromCookieHeader(c.req.header("cookie")) ?? "system";
}

/** A page rendered to HTML, before the per-response parts (nonce, headers) are added. */
export interface RenderedPage {
  title: string;
  /** The head's meta tags after the title: the description, or robots' noindex. */
  meta: string;
  colorMode: ColorMode;
  forced: "light" | "dark" | null;
  body: string;
  /** The islands' data block (serialised props), or "" when the page has no island. */
  islandData: string;
  /** The modules to preload: the entry and the chunks of the islands used. */
  modules: string[];
  /**
   * Rendered for nobody signed in (`<html data-visitor>`): the entry reloads it when this browser
   * has signed in since (islands/lib/signed-in-since.ts, decision 069).
   */
  visitor: boolean;
}

/**
 * Renders a page: React to HTML on the server. Islands the page rendered get their props in one
 * data block and their chunks preloaded; a page that rendered no island ships no script at all.
 */
export function renderPage(c: Context<AppEnv>, options: DocumentOptions): RenderedPage {
  const forced = options.forcedColorMode ?? null;
  const user = c.get("user");
  const onBehalf = c.get("onBehalf");
  const page: PageContext = {
    path: c.req.path + (new URL(c.req.url).search || ""),
    user: user ?? null,
    onBehalf: onBehalf ? { ...onBehalf, cc_contact: onBehalf.username } : null,
    colorMode: forced ?? colorModeOf(c),
    forcedColorMode: forced,
    notifications: [...takeFlash(c), ...(options.notifications ?? [])],
  };
  const collector = new IslandCollector();
  const body = renderToString(
    <IslandContext.Provider value={collector}>
      <PageContextValue.Provider value={page}>{options.render()}</PageContextValue.Provider>
    </IslandContext.Provider>,
  );
  const hasIslands = collector.instances.length > 0;
  const assets = c.get("assets");
  return {
    title: options.title,
    meta: options.noindex
      ? `<meta name="robots" content="noindex, nofollow">`
      : `<meta name="description" content="${escapeHtml(options.description ?? DEFAULT_DESCRIPTION)}">`,
    colorMode: page.colorMode,
    forced,
    body,
    islandData: hasIslands ? islandData(collector, assets) : "",
    modules: hasIslands ? assets.modulesFor(collector.names) : [],
    visitor: !user,
  };
}

/** The page's data block: each island with its props and the URL of its module, which the entry imports. */
function islandData(collector: IslandCollector, assets: Assets): string {
  const islands = collector.instances.map((island) => ({ ...island, src: assets.moduleOf(island.name) }));
  try {
    return serializeProps(islands);
  } catch (error) {
    // The serializer says "[2].props.onSave": name the island instead, as the page's author knows it.
    const at = error instanceof UnserializableProp ? /^\[(\d+)\]\.(.*)$/.exec(error.path) : null;
    if (!at) throw error;
    throw new UnserializableProp(at[2], (error as UnserializableProp).what, islands[Number(at[1])].name);
  }
}

/**
 * The whole document of a rendered page, with this response's nonce on every script; a public page
 * kept for every visitor has none (its policy allows our origin's scripts, decision 058).
 */
export function sendPage(c: Context<AppEnv>, page: RenderedPage, status?: ContentfulStatusCode): Response {
  const assets = c.get("assets");
  const nonce = c.get("publicPage") ? "" : ` nonce="${c.get("secureHeadersNonce") ?? ""}"`;
  let head = "";
  let tail = "";
  if (page.islandData) {
    // At low priority: the stylesheet is the one request the first paint waits for, and the
    // server-rendered page is readable before its islands hydrate (decision 059).
    for (const href of page.modules) head += `<link rel="modulepreload" href="${href}" fetchpriority="low"${nonce}>`;
    tail = `<script type="application/json" id="__islands">${page.islandData}</script>` +
      `<script type="module" src="${assets.entry}"${nonce}></script>`;
  }
  const html =
    `<!doctype html><html lang="en" data-theme="${page.colorMode}"${
      page.forced ? ` data-forced-color-mode="${page.forced}"` : ""
    }${
      page.visitor ? " data-visitor" : ""
    }><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${
      escapeHtml(page.title)
    } · Portal</title>${page.meta}<link rel="icon" href="/favicon.svg" type="image/svg+xml">` +
    `<link rel="stylesheet" href="${assets.stylesheet}">${head}</head><body>${page.body}${tail}</body></html>`;
  // Without a status of its own, the page keeps the one its handler set (c.status(403)).
  return status ? c.html(html, status) : c.html(html);
}

/** Renders and sends a page in one step. */
export function renderDocument(c: Context<AppEnv>, options: DocumentOptions): Response {
  return sendPage(c, renderPage(c, options), options.status);
}
