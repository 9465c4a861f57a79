import { ACCOUNT_PAUSED, BAD_CREDENTIALS, TOO_MANY_ATTEMPTS } from "../../lib/contracts/auth.ts";
import { afterAnswer } from "../background.ts";
import { InvalidInput, TooMany, Unauthenticated } from "../errors.ts";
import { FAILURES_PER_ACCOUNT, FAILURES_PER_SOURCE, type Limit, type RateLimiter } from "./rate-limit.ts";

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
  /**
   * What a wrong one is: 'Bad credentials' at sign-in; a 422 naming the field where the person is
   * signed in, which may say how many tries are `left` before the limit (decision 039).
   */
  wrong: (left: number) => Error = () => new Unauthenticated(BAD_CREDENTIALS),
): Promise<T> {
  const claimed = await limiter.attempt(key, limit);
  if (!claimed.allowed) throw new TooMany(TOO_MANY_ATTEMPTS);
  const passed = await check();
  if (passed === null) throw wrong(claimed.left);
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

/** Who an attempt at an account's secret is for, and where it comes from (decision 023). */
export interface AttemptFrom {
  /** The account's key, e.g. `login:<username>`; its per-address keys are `<account>|<address>`. */
  account: string;
  /** The client's address. */
  address: string;
  /** The browser has passed the second factor for this account before: a pause does not stop it. */
  knownDevice: boolean;
  /** Tells the owner that this attempt paused the account: run once, after the answer. */
  onPause?: () => Promise<void>;
}

/** The key under which one address's attempts at an account are counted. */
export const sourceKey = (account: string, address: string) => `${account}|${address}`;

/**
 * Checks a password or code under two limits, each claimed before the check (decision 021): the
 * account and address together (5 failures in 15 minutes block that address for that account,
 * PSD2's rule), and the account from everywhere (50 in an hour pause it for an hour, and its owner
 * is told). A pause lets a known device through, so an attacker cannot lock the owner out; only a
 * success from outside a pause forgets the account's count, as a success forgets the address's.
 */
export async function checkFromSource<T>(
  limiter: RateLimiter,
  from: AttemptFrom,
  check: () => Promise<T | null>,
  /**
   * What a wrong one is: 'Bad credentials' (SPEC.md section 8) unless the caller says otherwise; a
   * wrong code is a refusal on the same page with the tries this address has `left` (decision 039).
   */
  wrong: (left: number) => Error = () => new Unauthenticated(BAD_CREDENTIALS),
): Promise<T> {
  const pair = sourceKey(from.account, from.address);
  const claimed = await limiter.attempt(pair, FAILURES_PER_SOURCE);
  if (!claimed.allowed) throw new TooMany(TOO_MANY_ATTEMPTS);
  const account = await limiter.attempt(from.account, FAILURES_PER_ACCOUNT);
  if (!account.allowed && !from.knownDevice) throw new TooMany(ACCOUNT_PAUSED);
  const passed = await check();
  if (passed === null) {
    if (account.blocks && from.onPause) afterAnswer("sign-in paused notice", from.onPause);
    throw wrong(claimed.left);
  }
  await limiter.clear(pair);
  if (account.allowed) await limiter.clear(from.account);
  return passed;
}

/**
 * An emailed code typed after it expired or was replaced by a newer one (decision 039, amended): it
 * is the code the person was sent, and "not right" would have them type it again until the tries
 * ran out.
 */
export const CODE_NO_LONGER_VALID =
  "That code is no longer valid: use the newest code we emailed, or send yourself a new one.";

/**
 * A wrong code, refused on the page where it was typed (decision 039): a 422 naming the field, with
 * the tries left before the limit pauses this address for 15 minutes. Not a 401: the person is
 * still who their session says, and a typo must not sign them out.
 */
export function wrongCode(field: string, left: number, what = "That code is not right."): InvalidInput {
  return new InvalidInput(`${what} ${triesLeft(left)}`, field);
}

/** "4 tries left." … "1 try left." … after the last, when the next one may be made. */
export function triesLeft(left: number): string {
  if (left === 0) return "That was the last try for now: try again in 15 minutes.";
  return `${left} ${left === 1 ? "try" : "tries"} left.`;
}

/** Forgets an account's counts, from every address (after its owner proved themselves with the emailed link). */
export async function forgetAccount(limiter: RateLimiter, account: string): Promise<void> {
  await limiter.clear(account);
  await limiter.clearStartingWith(`${account}|`);
}
