import { Hono } from "hono";
import type { AppEnv } from "../server/env.ts";

// The brand mark: the primary orange square with a white P.
const ICON =
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#c2410c"/>` +
  `<path d="M11 24V8h6.5a5 5 0 0 1 0 10H14.5v6z M14.5 15h2.8a2 2 0 0 0 0-4h-2.8z" fill="#fff" fill-rule="evenodd"/></svg>`;

/** Small files every site answers: the icon browsers ask for, and the crawler rules. */
// One statement per route, never a chain: a chain's types pile up (decision 010).
export const siteFiles = new Hono<AppEnv>();

siteFiles.get(
  "/favicon.svg",
  (c) => c.body(ICON, 200, { "content-type": "image/svg+xml", "cache-control": "public, max-age=86400" }),
);

siteFiles.get("/favicon.ico", (c) => c.redirect("/favicon.svg", 301));

// Only the public pages are for search engines; signed-in screens and the console are not.
siteFiles.get(
  "/robots.txt",
  (c) => c.text("User-agent: *\nAllow: /$\nAllow: /calculator\nAllow: /register\nDisallow: /\n"),
);
