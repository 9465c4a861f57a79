import { beforeAll, describe, expect, test } from "vitest";
import type { Database } from "../../db/client.ts";
import { FAILURES_PER_ACCOUNT, FAILURES_PER_SOURCE, type Limit, RateLimiter } from "../../server/auth/rate-limit.ts";
import { MINUTE, TestClock } from "../helpers/client.ts";
import { testDatabase } from "../helpers/db.ts";

/**
 * The limiter on its own (decision 021): an attempt is claimed before it is made, in one statement
 * that counts it and answers whether it is within the limit.
 */

const FIVE: Limit = { max: 5, windowMs: 15 * MINUTE, blockMs: 15 * MINUTE };

let db: Database;
beforeAll(async () => {
  db = await testDatabase();
});

function limiter() {
  const clock = new TestClock();
  return { clock, limiter: new RateLimiter(db, clock.now) };
}

let keys = 0;
const newKey = () => `test:${++keys}`;

async function claims(limiter: RateLimiter, key: string, n: number): Promise<boolean[]> {
  const answers: boolean[] = [];
  for (let i = 0; i < n; i++) answers.push(await limiter.claim(key, FIVE));
  return answers;
}

describe("claiming attempts", () => {
  test("each claim says how many more the window allows: 4, 3, 2, 1, then 0 once blocked; a new window starts again", async () => {
    const { clock, limiter: l } = limiter();
    const key = newKey();
    const left: number[] = [];
    for (let i = 0; i < 6; i++) left.push((await l.attempt(key, FIVE)).left);
    expect(left).toEqual([4, 3, 2, 1, 0, 0]);
    clock.advance(15 * MINUTE);
    expect((await l.attempt(key, FIVE)).left).toBe(4);
  });

  test("of 50 claims made at once, exactly 5 are allowed", async () => {
    const { limiter: l } = limiter();
    const key = newKey();
    const answers = await Promise.all(Array.from({ length: 50 }, () => l.claim(key, FIVE)));
    expect(answers.filter(Boolean)).toHaveLength(5);
  });

  test("the 5th claim blocks the key for 15 minutes from then, whatever is claimed meanwhile", async () => {
    const { clock, limiter: l } = limiter();
    const key = newKey();
    expect(await claims(l, key, 4)).toEqual([true, true, true, true]);
    clock.advance(5 * MINUTE);
    expect(await l.claim(key, FIVE)).toBe(true);
    for (let i = 0; i < 14; i++) {
      clock.advance(MINUTE);
      expect(await l.claim(key, FIVE)).toBe(false);
    }
    clock.advance(MINUTE - 1);
    expect(await l.claim(key, FIVE)).toBe(false);
    clock.advance(1);
    // The block is served: the count starts again.
    expect(await claims(l, key, 6)).toEqual([true, true, true, true, true, false]);
  });

  test("claims older than the window no longer count", async () => {
    const { clock, limiter: l } = limiter();
    const key = newKey();
    expect(await claims(l, key, 4)).toEqual([true, true, true, true]);
    clock.advance(15 * MINUTE);
    expect(await claims(l, key, 5)).toEqual([true, true, true, true, true]);
    expect(await l.claim(key, FIVE)).toBe(false);
  });

  test("clearing a key (a success) forgets its claims, and lifts a block", async () => {
    const { limiter: l } = limiter();
    const key = newKey();
    expect(await claims(l, key, 5)).toEqual([true, true, true, true, true]);
    await l.clear(key);
    expect(await claims(l, key, 5)).toEqual([true, true, true, true, true]);
  });

  test("keys are counted apart", async () => {
    const { limiter: l } = limiter();
    const [a, b] = [newKey(), newKey()];
    await claims(l, a, 5);
    expect(await l.claim(a, FIVE)).toBe(false);
    expect(await l.claim(b, FIVE)).toBe(true);
  });
});

describe("the limits per address and per account (decision 023)", () => {
  test("one address, trying every 10 seconds for an hour, gets at most 20 attempts: a pause (50) takes three addresses", async () => {
    const { clock, limiter: l } = limiter();
    const key = newKey();
    let allowed = 0;
    for (let s = 0; s < 3600; s += 10) {
      if (await l.claim(key, FAILURES_PER_SOURCE)) allowed++;
      clock.advance(10_000);
    }
    expect(allowed).toBe(20);
    expect(2 * allowed).toBeLessThan(FAILURES_PER_ACCOUNT.max);
    expect(3 * allowed).toBeGreaterThanOrEqual(FAILURES_PER_ACCOUNT.max);
  });

  test("attempt() says which claim started the block, once", async () => {
    const { limiter: l } = limiter();
    const key = newKey();
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await l.attempt(key, FIVE));
    expect(answers.map((a) => a.blocks)).toEqual([false, false, false, false, true, false, false]);
    expect(answers.map((a) => a.allowed)).toEqual([true, true, true, true, true, false, false]);
  });

  test("clearStartingWith forgets an account's keys of every address, and nobody else's", async () => {
    const { limiter: l } = limiter();
    const account = newKey();
    for (const key of [`${account}|1.2.3.4`, `${account}|5.6.7.8`, `${account}x|1.2.3.4`]) await claims(l, key, 5);
    await l.clearStartingWith(`${account}|`);
    expect(await l.claim(`${account}|1.2.3.4`, FIVE)).toBe(true);
    expect(await l.claim(`${account}|5.6.7.8`, FIVE)).toBe(true);
    expect(await l.claim(`${account}x|1.2.3.4`, FIVE)).toBe(false);
  });
});
