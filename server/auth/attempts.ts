import { BAD_CREDENTIALS, TOO_MANY_ATTEMPTS } from "../../lib/contracts/auth.ts";
import { TooMany, Unauthenticated } from "../errors.ts";
import type { Limit, RateLimiter } from "./rate-limit.ts";

/**
 * Checks a password, code or token under a limit on failures (decision 021): the attempt is claimed
 * first, and refused with a 429 past the limit, so the check runs at most `max` times however many
 * attempts arrive at once. A wrong secret (`check` answers null) is 'Bad credentials' and stays
 * counted; a right one forgets the key's failures.
 */
export async function checkWithinLimit<T>(
  limiter: RateLimiter,
  key: string,
  limit: Limit,
  check: () => Promise<T | null>,
): Promise<T> {
  if (!(await limiter.claim(key, limit))) throw new TooMany(TOO_MANY_ATTEMPTS);
  const passed = await check();
  if (passed === null) throw new Unauthenticated(BAD_CREDENTIALS);
  await limiter.clear(key);
  return passed;
}

/** Counts an attempt that is spent whatever its outcome (a registration, an email): a 429 past the limit. */
export async function spendWithinLimit(
  limiter: RateLimiter,
  key: string,
  limit: Limit,
  refusal = TOO_MANY_ATTEMPTS,
): Promise<void> {
  if (!(await limiter.claim(key, limit))) throw new TooMany(refusal);
}
