import type { MiddlewareHandler } from "hono";
import type { Database } from "../db/client.ts";
import { dataVersions } from "../db/schema.ts";
import type { AppEnv } from "./env.ts";

/**
 * Data that something keeps a copy of, by topic: the database keeps a version of each (table
 * data_versions), bumped by triggers in the transaction that changes the topic's tables
 * (migration 0006: rates are rate_tables, pricing-plans are pricing_plans; migration 0022: sessions
 * are the signed-in users' sessions and summaries, server/auth/session-cache.ts).
 */
export const TOPICS = ["rates", "pricing-plans", "sessions"] as const;
export type Topic = typeof TOPICS[number];

/** Each topic's version, as last read. */
export type Versions = ReadonlyMap<string, number>;

/** How long versions read from the database are trusted: another process's change shows within it. */
export const VERSIONS_MAX_AGE_MS = 1000;

/**
 * The versions of the topics, as the database has them (decision 015). Reading them is one small
 * query, made at most once a second, and again at once after this process may have written
 * (`changedHere`): its own changes show at once, another process's (a script, a second server on
 * the same database) within a second. Nobody has to say what changed: the triggers know.
 */
export class DataVersions {
  #versions: Versions = new Map();
  #readAt = Number.NEGATIVE_INFINITY;
  /** Counts this process's possible changes; a read is current for the count it started at. */
  #changes = 0;
  #readAtChange = -1;
  #reading: { change: number; done: Promise<Versions> } | null = null;

  constructor(
    private readonly db: Database,
    /** The clock, in ms (the services' clock: a test moves it). */
    private readonly now: () => number = Date.now,
    private readonly maxAgeMs = VERSIONS_MAX_AGE_MS,
  ) {}

  /** The current versions: those last read, unless they are a second old or this process wrote since. */
  current(): Promise<Versions> {
    const known = this.peek();
    if (known) return Promise.resolve(known);
    const now = this.now();
    // Concurrent requests share one read, unless it started before this process's latest change.
    if (this.#reading?.change !== this.#changes) {
      const reading = { change: this.#changes, done: this.#read(this.#changes, now) };
      this.#reading = reading;
      reading.done.finally(() => {
        if (this.#reading === reading) this.#reading = null;
      }).catch(() => {});
    }
    return this.#reading!.done;
  }

  /**
   * The current versions when they are known without a read (as `current` would return them at
   * once); undefined when `current` would read them first.
   */
  peek(): Versions | undefined {
    const now = this.now();
    // A clock that went back makes the last read's age unknown: read again.
    const fresh = this.#readAtChange === this.#changes && now >= this.#readAt && now - this.#readAt < this.maxAgeMs;
    return fresh ? this.#versions : undefined;
  }

  /** This process may have changed data (it answered a write): read the versions again before trusting them. */
  changedHere(): void {
    this.#changes++;
  }

  async #read(change: number, startedAt: number): Promise<Versions> {
    const rows = await this.db.select().from(dataVersions);
    const versions = new Map(rows.map((row) => [row.topic, row.version]));
    // A later read may have finished first; only a read at least as recent replaces what is known.
    if (change >= this.#readAtChange) {
      this.#versions = versions;
      this.#readAt = startedAt;
      this.#readAtChange = change;
    }
    return versions;
  }
}

/**
 * After every request that may have written, the versions are read again before they are next
 * trusted: whatever the request changed shows on the next request at once. That is any method but
 * GET and HEAD, and every call under /api/, GET included: some GETs write (the identity provider's
 * return, GET sumsub/confirm, opens the account), and a kept session must not outlive them.
 */
export function recheckAfterWrites(versions: DataVersions): MiddlewareHandler<AppEnv> {
  return async function recheckVersions(c, next) {
    await next();
    const reads = c.req.method === "GET" || c.req.method === "HEAD";
    if (!reads || c.req.path.startsWith("/api/")) versions.changedHere();
  };
}
