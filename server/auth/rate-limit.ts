import { eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { rateLimits } from "../../db/schema.ts";

/**
 * A rate limit kept in the database, so every instance shares it: at most `max` attempts in
 * `windowMs`; the attempt that reaches `max` blocks the key for `blockMs`, whatever comes next.
 */
export interface Limit {
  max: number;
  windowMs: number;
  blockMs: number;
}

const MINUTE = 60_000;
/** After 5 failed logins for one account in 15 minutes, 15 minutes of 429 (the right password too). */
export const LOGIN_FAILURES: Limit = { max: 5, windowMs: 15 * MINUTE, blockMs: 15 * MINUTE };
/** The same for second-factor codes. */
export const SECOND_FACTOR_FAILURES: Limit = LOGIN_FAILURES;
/** Tokens typed on /verify and /forgot: wrong ones count against the account. */
export const TOKEN_FAILURES: Limit = LOGIN_FAILURES;
/** Registrations from one address. */
export const REGISTRATIONS_PER_ADDRESS: Limit = { max: 10, windowMs: 60 * MINUTE, blockMs: 60 * MINUTE };
/** Password-reset requests from one address, and for one account. */
export const FORGOT_PER_ADDRESS: Limit = { max: 10, windowMs: 60 * MINUTE, blockMs: 60 * MINUTE };
export const FORGOT_PER_ACCOUNT: Limit = { max: 3, windowMs: 60 * MINUTE, blockMs: 60 * MINUTE };
/** Emails of new codes and validation links for one user. */
export const RESENDS_PER_USER: Limit = { max: 5, windowMs: 15 * MINUTE, blockMs: 15 * MINUTE };

/**
 * The limiter claims an attempt before it is made (decision 021): one statement counts it and
 * answers whether it is within the limit, so attempts sent at once cannot all pass a check made
 * before any of them is counted. A claimed attempt stays counted whatever happens to it: for
 * limits on failures, the caller forgets the key after a success (`clear`).
 */
export class RateLimiter {
  constructor(private readonly db: Database, private readonly now = () => Date.now()) {}

  /**
   * Counts one attempt under `key` and answers whether it may go ahead: false once `max` attempts
   * were claimed in the window, or while the key is blocked. The `max`-th claim blocks the key for
   * `blockMs`. A window that has passed, or a block that has been served, starts the count again.
   */
  async claim(key: string, limit: Limit): Promise<boolean> {
    const now = this.now();
    const blockedNow = sql`(${rateLimits.blockedUntil} IS NOT NULL AND ${rateLimits.blockedUntil} > ${now})`;
    const startsAgain = sql`(CASE WHEN ${rateLimits.blockedUntil} IS NULL
      THEN ${rateLimits.windowStart} <= ${now - limit.windowMs}
      ELSE ${rateLimits.blockedUntil} <= ${now} END)`;
    const blockIfFirstIsLast = limit.max <= 1 ? new Date(now + limit.blockMs) : null;
    const [row] = await this.db
      .insert(rateLimits)
      .values({ key, windowStart: new Date(now), count: 1, blockedUntil: blockIfFirstIsLast })
      .onConflictDoUpdate({
        target: rateLimits.key,
        // SQLite evaluates every expression against the row as it was before this statement.
        set: {
          // Past max+1 nothing more is learnt: the count stops there.
          count: sql`CASE WHEN ${startsAgain} THEN 1 ELSE MIN(${rateLimits.count} + 1, ${limit.max + 1}) END`,
          windowStart: sql`CASE WHEN ${startsAgain} THEN ${now} ELSE ${rateLimits.windowStart} END`,
          blockedUntil: sql`CASE
            WHEN ${startsAgain} THEN ${blockIfFirstIsLast?.getTime() ?? null}
            WHEN ${blockedNow} THEN ${rateLimits.blockedUntil}
            WHEN ${rateLimits.count} + 1 >= ${limit.max} THEN ${now + limit.blockMs}
            ELSE NULL END`,
        },
      })
      .returning({ count: rateLimits.count });
    return row.count <= limit.max;
  }

  /** Forgets every attempt of a key (after a success). */
  async clear(key: string): Promise<void> {
    await this.db.delete(rateLimits).where(eq(rateLimits.key, key));
  }
}
