import { eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { rateLimits } from "../../db/schema.ts";

/**
 * A rate limit kept in the database, so every instance shares it: at most `max` attempts (for
 * sign-in: failures) in `windowMs`; past that the key is blocked for `blockMs`, whatever comes.
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

export class RateLimiter {
  constructor(private readonly db: Database, private readonly now = () => Date.now()) {}

  /** Whether the key is blocked now (without counting an attempt). */
  async isBlocked(key: string): Promise<boolean> {
    const [row] = await this.db.select().from(rateLimits).where(eq(rateLimits.key, key));
    return !!row?.blockedUntil && row.blockedUntil.getTime() > this.now();
  }

  /**
   * Counts one attempt in one statement (so concurrent attempts cannot both slip under the limit).
   * The attempt that reaches `max` blocks the key: callers ask `isBlocked` before acting, so the
   * attempt after the max-th is the first refused.
   */
  async hit(key: string, limit: Limit): Promise<{ blocked: boolean }> {
    const now = this.now();
    const windowStartsAfter = now - limit.windowMs;
    const [row] = await this.db
      .insert(rateLimits)
      .values({ key, windowStart: new Date(now), count: 1, blockedUntil: null })
      .onConflictDoUpdate({
        target: rateLimits.key,
        set: {
          // A window that has passed starts again at this attempt.
          count:
            sql`CASE WHEN ${rateLimits.windowStart} <= ${windowStartsAfter} THEN 1 ELSE ${rateLimits.count} + 1 END`,
          windowStart:
            sql`CASE WHEN ${rateLimits.windowStart} <= ${windowStartsAfter} THEN ${now} ELSE ${rateLimits.windowStart} END`,
        },
      })
      .returning();
    if (row.count >= limit.max || (row.blockedUntil && row.blockedUntil.getTime() > now)) {
      if (!row.blockedUntil || row.blockedUntil.getTime() <= now) {
        await this.db.update(rateLimits).set({ blockedUntil: new Date(now + limit.blockMs) }).where(
          eq(rateLimits.key, key),
        );
      }
      return { blocked: true };
    }
    return { blocked: false };
  }

  /** Forgets the failures of a key (after a success). */
  async clear(key: string): Promise<void> {
    await this.db.delete(rateLimits).where(eq(rateLimits.key, key));
  }
}
