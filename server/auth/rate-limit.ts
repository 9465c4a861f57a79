import { and, eq, gte, lt, sql } from "drizzle-orm";
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
/**
 * Failures of one source address for one account (decision 023): after 5 in 15 minutes, that
 * address is refused for that account for 15 minutes, the right password or code too (PSD2's
 * rule). Another address, the owner's, is not affected.
 */
export const FAILURES_PER_SOURCE: Limit = { max: 5, windowMs: 15 * MINUTE, blockMs: 15 * MINUTE };
/**
 * Failures for one account from every address: at 50 in an hour the account is paused for an hour
 * (its owner is emailed). One address can fail at most 20 times an hour (5, then 15 minutes
 * blocked, four times over), so a pause takes at least three addresses.
 */
export const FAILURES_PER_ACCOUNT: Limit = { max: 50, windowMs: 60 * MINUTE, blockMs: 60 * MINUTE };
/** Tokens typed on /verify: wrong ones count against the signed-in user, or the address. */
export const TOKEN_FAILURES: Limit = FAILURES_PER_SOURCE;
/**
 * Wrong tries at one validation code, from anywhere (decision 072): the third retires the code, and
 * the customer asks for a new one (which starts the count again). Over the code's 24 hours.
 */
export const CODE_FAILURES: Limit = { max: 3, windowMs: 24 * 60 * MINUTE, blockMs: 24 * 60 * MINUTE };
/**
 * Wrong validation codes for one user in a day, from anywhere and across new codes (decision 072):
 * at 10, codes are refused for a day (the emailed link still works). A guesser with many addresses
 * and the `registration` cookie has at most 10 tries a day at a one-in-a-million code.
 */
export const CODE_FAILURES_PER_DAY: Limit = { max: 10, windowMs: 24 * 60 * MINUTE, blockMs: 24 * 60 * MINUTE };
/** Registrations from one address. */
export const REGISTRATIONS_PER_ADDRESS: Limit = { max: 10, windowMs: 60 * MINUTE, blockMs: 60 * MINUTE };
/** "Someone tried to open an account with your address" emails to one account, as password resets. */
export const ATTEMPT_NOTICES_PER_ACCOUNT: Limit = { max: 3, windowMs: 60 * MINUTE, blockMs: 60 * MINUTE };
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
    return (await this.attempt(key, limit)).allowed;
  }

  /**
   * `claim`, also telling whether this very attempt started the block (it was the `max`-th): the
   * moment to tell someone, once; and how many more attempts the window allows after this one
   * (`left`, 0 once blocked), for "That code is not right: 4 tries left" (decision 039).
   */
  async attempt(key: string, limit: Limit): Promise<{ allowed: boolean; blocks: boolean; left: number }> {
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
    return {
      allowed: row.count <= limit.max,
      blocks: row.count === limit.max,
      left: Math.max(0, limit.max - row.count),
    };
  }

  /** Forgets every attempt of a key (after a success). */
  async clear(key: string): Promise<void> {
    await this.db.delete(rateLimits).where(eq(rateLimits.key, key));
  }

  /** Forgets every key that starts with `prefix` (an account's keys of every address, after a reset). */
  async clearStartingWith(prefix: string): Promise<void> {
    // A range on the primary key; U+10FFFF sorts after every character a key can hold.
    await this.db.delete(rateLimits).where(and(gte(rateLimits.key, prefix), lt(rateLimits.key, `${prefix}\u{10FFFF}`)));
  }
}
