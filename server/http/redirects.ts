import type { MiddlewareHandler } from "hono";
import type { Database } from "../../db/client.ts";
import { redirects } from "../../db/schema.ts";
import type { AppEnv } from "../env.ts";

interface Target {
  target: string;
  status: 301 | 302;
}

/**
 * The redirects table, read into memory and refreshed every `ttlMs`, so a page request costs no
 * query; an operator's change is live on every instance within that time.
 */
export class RedirectTable {
  #byPath = new Map<string, Target>();
  #loadedAt = -Infinity;
  #loading: Promise<void> | null = null;

  constructor(private readonly db: Database, private readonly ttlMs = 5_000, private readonly now = () => Date.now()) {}

  async lookup(path: string): Promise<Target | undefined> {
    if (this.now() - this.#loadedAt > this.ttlMs) await this.refresh();
    return this.#byPath.get(path);
  }

  /**
   * Whether the path is redirected, from the table as loaded, without waiting: `null` when the
   * table is older than its `ttlMs` (then `lookup` reads it again).
   */
  peek(path: string): { target: Target | undefined } | null {
    if (this.now() - this.#loadedAt > this.ttlMs) return null;
    return { target: this.#byPath.get(path) };
  }

  /** Reloads at once (after an operator edits the table on this instance). */
  refresh(): Promise<void> {
    this.#loading ??= (async () => {
      try {
        const rows = await this.db.select().from(redirects);
        this.#byPath = new Map(
          rows.map((r) => [r.path, { target: r.target, status: r.status === 301 ? 301 : 302 }]),
        );
        this.#loadedAt = this.now();
      } finally {
        this.#loading = null;
      }
    })();
    return this.#loading;
  }
}

/**
 * Global middleware: asks the redirects table for a target for the current path and follows it.
 * A relative target stays on the site; an absolute address (https://...) leaves it. Only page
 * requests are redirected, never calls or assets.
 */
export function followRedirects(table: RedirectTable): MiddlewareHandler<AppEnv> {
  return async function redirect(c, next) {
    if ((c.req.method === "GET" || c.req.method === "HEAD") && !c.req.path.startsWith("/api/")) {
      const found = await table.lookup(c.req.path);
      if (found && found.target !== c.req.path) return c.redirect(found.target, found.status);
    }
    await next();
  };
}
