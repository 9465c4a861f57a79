import { MAX_CONCURRENT_PRELOADS } from "../../lib/constants.ts";

/**
 * Route preloads: when the pointer rests on (or focus reaches) a same-site link, the page behind it
 * is fetched ahead so the click feels instant. At most MAX_CONCURRENT_PRELOADS run at once; the
 * rest wait in order, and each address is preloaded once.
 */
export class PreloadQueue {
  #running = 0;
  #waiting: string[] = [];
  #seen = new Set<string>();

  constructor(
    private readonly load: (href: string) => Promise<unknown>,
    readonly limit = MAX_CONCURRENT_PRELOADS,
  ) {}

  get running() {
    return this.#running;
  }

  add(href: string): void {
    if (this.#seen.has(href)) return;
    this.#seen.add(href);
    this.#waiting.push(href);
    this.#pump();
  }

  #pump() {
    while (this.#running < this.limit && this.#waiting.length) {
      const href = this.#waiting.shift()!;
      this.#running++;
      this.load(href)
        .catch(() => {})
        .finally(() => {
          this.#running--;
          this.#pump();
        });
    }
  }
}

/** Preloads same-origin page links on hover and focus, through a PreloadQueue. */
export function preloadLinksOnIntent(doc: Document = document): PreloadQueue {
  const queue = new PreloadQueue((href) =>
    fetch(href, { credentials: "same-origin", headers: { Purpose: "prefetch", "Sec-Purpose": "prefetch" } })
  );
  const onIntent = (event: Event) => {
    const link = (event.target as Element | null)?.closest?.("a[href]") as HTMLAnchorElement | null;
    if (!link || link.target || link.hasAttribute("download") || link.dataset.noPreload !== undefined) return;
    const url = new URL(link.href, location.href);
    if (url.origin !== location.origin || url.pathname.startsWith("/api/")) return;
    if (url.pathname === location.pathname && url.search === location.search) return;
    queue.add(url.pathname + url.search);
  };
  doc.addEventListener("pointerover", onIntent, { passive: true });
  doc.addEventListener("focusin", onIntent);
  return queue;
}
