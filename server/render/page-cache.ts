import type { Context } from "hono";
import { FLASH_COOKIE } from "../../lib/notification.ts";
import type { AppEnv } from "../env.ts";
import { colorModeOf, type RenderedPage } from "./document.tsx";

/**
 * Rendered public pages, for visitors who are not signed in. A page that shows nothing personal
 * (the home page, say) renders to the same HTML for every visitor with the same colour mode, so it
 * is rendered once and kept for `ttlMs`; each answer still gets its own nonce and headers
 * (sendPage). A route opts in; a visitor with a session or a queued notification is never served
 * from here.
 */
export class PageCache {
  #pages = new Map<string, { page: RenderedPage; until: number }>();

  constructor(
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 500,
    private readonly now = () => Date.now(),
  ) {}

  /** The key for this request, or null when it must be rendered for this visitor alone. */
  keyFor(c: Context<AppEnv>): string | null {
    if (c.get("user") || c.req.method !== "GET") return null;
    const cookie = c.req.header("cookie");
    if (cookie?.includes(`${FLASH_COOKIE}=`)) return null;
    const url = c.req.url;
    return `${colorModeOf(c)} ${url.slice(url.indexOf("/", url.indexOf("//") + 2))}`;
  }

  get(key: string): RenderedPage | undefined {
    const hit = this.#pages.get(key);
    if (!hit) return undefined;
    if (hit.until <= this.now()) {
      this.#pages.delete(key);
      return undefined;
    }
    return hit.page;
  }

  set(key: string, page: RenderedPage): void {
    // Query strings make keys unbounded: past the cap, the oldest entry goes.
    if (this.#pages.size >= this.maxEntries) this.#pages.delete(this.#pages.keys().next().value!);
    this.#pages.set(key, { page, until: this.now() + this.ttlMs });
  }

  clear(): void {
    this.#pages.clear();
  }
}
