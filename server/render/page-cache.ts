import type { Context } from "hono";
import { FLASH_COOKIE } from "../../lib/notification.ts";
import type { DataVersions, Topic } from "../data-versions.ts";
import type { AppEnv } from "../env.ts";
import { colorModeOf, type RenderedPage } from "./document.tsx";

/** What a lookup found: the page kept, or how to keep the page about to be rendered. */
export interface CacheLookup {
  page: RenderedPage | undefined;
  /** Keeps the page rendered for this request, at the versions read before it was rendered. */
  keep(page: RenderedPage): void;
}

const alreadyKept = () => {};

/**
 * Rendered public pages, for visitors who are not signed in. A page that shows nothing personal
 * (the home page, the calculator) renders to the same HTML for every visitor with the same colour
 * mode and query, so it is rendered once and kept while the data it shows is unchanged: each entry
 * carries the versions of its topics (server/data-versions.ts) when it was rendered, and a lookup
 * that finds other versions renders again (decision 015). Each answer still gets its own nonce and
 * headers (sendPage). A route opts in; a visitor with a session or a queued notification is never
 * served from here.
 */
export class PageCache {
  #pages = new Map<string, { page: RenderedPage; stamp: string }>();

  constructor(private readonly versions: DataVersions, private readonly maxEntries = 500) {}

  /**
   * This request's page if it is kept and the topics it shows are as they were when it was rendered;
   * null when the page must be rendered for this visitor alone.
   */
  async lookup(c: Context<AppEnv>, shows: readonly Topic[]): Promise<CacheLookup | null> {
    const key = this.#keyFor(c);
    if (key === null) return null;
    const versions = await this.versions.current();
    let stamp = "";
    for (const topic of shows) stamp += `${versions.get(topic)} `;
    const hit = this.#pages.get(key);
    if (hit?.stamp === stamp) return { page: hit.page, keep: alreadyKept };
    return { page: undefined, keep: (page) => this.#keep(key, stamp, page) };
  }

  #keyFor(c: Context<AppEnv>): string | null {
    if (c.get("user") || c.req.method !== "GET") return null;
    const cookie = c.req.header("cookie");
    if (cookie?.includes(`${FLASH_COOKIE}=`)) return null;
    const url = c.req.url;
    return `${colorModeOf(c)} ${url.slice(url.indexOf("/", url.indexOf("//") + 2))}`;
  }

  #keep(key: string, stamp: string, page: RenderedPage): void {
    // Query strings make keys unbounded: past the cap, the oldest entry goes.
    if (!this.#pages.has(key) && this.#pages.size >= this.maxEntries) {
      this.#pages.delete(this.#pages.keys().next().value!);
    }
    this.#pages.set(key, { page, stamp });
  }
}
