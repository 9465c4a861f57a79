import type { Context, MiddlewareHandler } from "hono";
import { parse as parseCookie } from "hono/utils/cookie";
import { FLASH_COOKIE } from "../../lib/notification.ts";
import { SESSION_COOKIE } from "../auth/sessions.ts";
import type { DataVersions, Topic, Versions } from "../data-versions.ts";
import type { AppEnv } from "../env.ts";
import { compressWhole, negotiateEncoding } from "../http/compression.ts";
import { PUBLIC_PAGE_SCRIPT_SRC, withPublicPageScripts } from "../http/security.ts";
import type { RenderedPage } from "./document.tsx";
import { routeOf } from "../http/request-log.ts";
import { colorModeFromCookieHeader } from "../../lib/color-mode.ts";

/** What a lookup found: the page kept, or how to keep the page about to be rendered. */
export interface CacheLookup {
  page: RenderedPage | undefined;
  /** Keeps the page rendered for this request, at the versions read before it was rendered. */
  keep(page: RenderedPage): void;
  /**
   * Keeps the whole answer sent with the page (`route`: the route that answered), as the front
   * door serves it again (server/http/front-door.ts).
   */
  keepAnswer(res: Response, route: string): Promise<void>;
}

/**
 * A kept page's whole answer, as it is and compressed once, each form a Response with every header
 * (the security headers included) that a visitor's answer is cloned from: a clone copies the
 * headers as they are, where setting them on a new Response checks each again (about 1.5 µs
 * against 7 µs for the ten headers of a page, in Deno 2.9; decision 059).
 */
interface KeptAnswer {
  /** The route that answered (routeOf): the label of the answer's log line and metrics. */
  route: string;
  identity: Response;
  gzip: Response;
  br: Response;
}

/** One form of a kept answer: its bytes, with the answer's headers and its encoding. */
function keptForm(body: Uint8Array<ArrayBuffer>, headers: [string, string][], encoding?: "gzip" | "br"): Response {
  const res = new Response(body, { headers });
  if (encoding) res.headers.set("content-encoding", encoding);
  return res;
}

interface KeptPage {
  page: RenderedPage;
  shows: readonly Topic[];
  stamp: string;
  answer?: KeptAnswer;
}

/** The versions of the topics a page shows, as one string to compare. */
function stampOf(versions: Versions, shows: readonly Topic[]): string {
  let stamp = "";
  for (const topic of shows) stamp += `${versions.get(topic)} `;
  return stamp;
}

/** The page a visitor asks for, as a key: their colour mode, the path and the query. */
function keyOf(url: string, cookieHeader: string | null | undefined): string {
  return `${colorModeFromCookieHeader(cookieHeader) ?? "system"} ${url.slice(url.indexOf("/", url.indexOf("//") + 2))}`;
}

/**
 * Whether the visitor's cookies hold one that may make the answer theirs: a session, or a
 * notification to show. Parsed as their readers (getCookie) parse them: they take "flash =…" for the
 * flash cookie, and a page rendered with its notice must never be kept for the next visitor.
 */
function hasOwnCookie(header: string | null | undefined): boolean {
  return !!header && (parseCookie(header, SESSION_COOKIE)[SESSION_COOKIE] !== undefined ||
    parseCookie(header, FLASH_COOKIE)[FLASH_COOKIE] !== undefined);
}

const alreadyKept = () => {};

/**
 * Rendered public pages, for visitors who are not signed in. A page that shows nothing personal
 * (the home page, the calculator) renders to the same HTML for every visitor with the same colour
 * mode and query, so it is rendered once and kept while the data it shows is unchanged: each entry
 * carries the versions of its topics (server/data-versions.ts) when it was rendered, and a lookup
 * that finds other versions renders again (decision 015). A route opts in; a visitor with a session
 * or a queued notification is never served from here.
 *
 * Such a page carries no nonce: nothing on it is anybody's input, so its scripts are allowed as our
 * own origin's (PUBLIC_PAGE_SCRIPT_SRC) and its whole answer is the same bytes for every visitor.
 * The first answer is kept with its headers and compressed once; the front door
 * (server/http/front-door.ts) sends it to the next visitors before any layer runs (decisions 058,
 * 059).
 */
export class PageCache {
  #pages = new Map<string, KeptPage>();

  constructor(private readonly versions: DataVersions, private readonly maxEntries = 500) {}

  /**
   * This request's page if it is kept and the topics it shows are as they were when it was rendered;
   * null when the page must be rendered for this visitor alone.
   */
  async lookup(c: Context<AppEnv>, shows: readonly Topic[]): Promise<CacheLookup | null> {
    if (c.get("user") || c.req.method !== "GET") return null;
    // A queued notification, or a session cookie (one found ended queues "Signed out" for this very
    // page): the page is this visitor's, as the front door judges it (`answer`).
    if (hasOwnCookie(c.req.header("cookie"))) return null;
    const key = keyOf(c.req.url, c.req.header("cookie"));
    const stamp = stampOf(await this.versions.current(), shows);
    const keepAnswer = (res: Response, route: string) => this.#keepAnswer(key, stamp, res, route);
    const hit = this.#pages.get(key);
    if (hit?.stamp === stamp) return { page: hit.page, keep: alreadyKept, keepAnswer };
    return { page: undefined, keep: (page) => this.#keep(key, { page, shows, stamp }), keepAnswer };
  }

  /**
   * The kept answer for this request, when the visitor is anonymous by their cookies alone and
   * the page's topics are known, without a read, to be as they were; null to answer through every
   * layer (which reads what is not known, and keeps the page again).
   */
  answer(request: Request): { response: Response; route: string } | null {
    if (request.method !== "GET") return null;
    const cookie = request.headers.get("cookie");
    if (hasOwnCookie(cookie)) return null;
    const kept = this.#pages.get(keyOf(request.url, cookie));
    if (!kept?.answer) return null;
    const versions = this.versions.peek();
    if (!versions || stampOf(versions, kept.shows) !== kept.stamp) return null;
    const encoding = negotiateEncoding(request.headers.get("accept-encoding") ?? undefined, ["br", "gzip"]);
    const res = kept.answer[encoding ?? "identity"].clone();
    return { response: res, route: kept.answer.route };
  }

  #keep(key: string, kept: KeptPage): void {
    // Query strings make keys unbounded: past the cap, the oldest entry goes.
    if (!this.#pages.has(key) && this.#pages.size >= this.maxEntries) {
      this.#pages.delete(this.#pages.keys().next().value!);
    }
    this.#pages.set(key, kept);
  }

  async #keepAnswer(key: string, stamp: string, res: Response, route: string): Promise<void> {
    const kept = this.#pages.get(key);
    // Only a plain 200 of the page as kept: a cookie set or another status is this visitor's.
    if (kept?.stamp !== stamp || kept.answer || res.status !== 200 || res.headers.has("set-cookie")) return;
    if (!res.headers.get("content-security-policy")?.includes(PUBLIC_PAGE_SCRIPT_SRC)) return;
    const identity = new Uint8Array(await res.clone().arrayBuffer());
    const headers = [...res.headers].filter(([name]) => name !== "content-length" && name !== "date");
    // Its forms are chosen by Accept-Encoding, whatever this first answer said.
    const vary = headers.find(([name]) => name === "vary");
    if (!vary) headers.push(["vary", "Accept-Encoding"]);
    else if (!/accept-encoding/i.test(vary[1])) vary[1] += ", Accept-Encoding";
    // Brotli's quality 5: under a millisecond for /calculator (2,252 bytes of 8,224); quality 11
    // saves some 270 bytes more for 22 ms, which a visitor inventing query strings (each a page kept
    // anew) could make the server spend at will.
    const once = { brotliQuality: 5, gzipLevel: 9 };
    kept.answer = {
      route,
      identity: keptForm(identity, headers),
      gzip: keptForm(compressWhole(identity, "gzip", once), headers, "gzip"),
      br: keptForm(compressWhole(identity, "br", once), headers, "br"),
    };
  }
}

/**
 * On the way out of a public page kept for every visitor: its script policy without a nonce, and
 * its whole answer kept for the next visitors, whom `answerKeptPagesFirst`
 * (server/http/front-door.ts) answers before any layer of the app. Registered inside compression
 * (what it keeps is the page as rendered; it compresses that itself) and before the security
 * headers (so that the answer it keeps has them).
 */
export function keepPublicPageAnswers(): MiddlewareHandler<AppEnv> {
  return async function keepPublicPageAnswer(c, next) {
    await next();
    const kept = c.get("publicPage");
    if (!kept) return;
    const csp = c.res.headers.get("content-security-policy");
    if (csp) c.res.headers.set("content-security-policy", withPublicPageScripts(csp));
    await kept.keepAnswer(c.res, routeOf(c));
  };
}
