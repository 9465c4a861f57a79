import { LibsqlError } from "@libsql/client";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { isLocked, whenUnlocked } from "../../db/other-writers.ts";

/**
 * db/other-writers.ts (decision 013): what meets another process's write lock is tried again
 * asynchronously, after pauses whose ceiling doubles from 2 up to 50 ms, each drawn at random below it,
 * within a budget; other errors are not retried.
 */

const busy = () => new LibsqlError("database is locked", "SQLITE_BUSY", "SQLITE_BUSY", 5);
const staleSnapshot = () => new LibsqlError("database is locked", "SQLITE_BUSY", "SQLITE_BUSY_SNAPSHOT", 517);
/** As @libsql/client reports it over HTTP (Hrana): no extended or raw code. */
const busyOverHttp = () => new LibsqlError("SQLite error: database is locked", "SQLITE_BUSY");

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** An attempt that meets the lock `times` times, then answers "written"; records when it ran. */
function lockedFor(times: number, error: () => LibsqlError = busy) {
  const at: number[] = [];
  const attempt = () => {
    at.push(performance.now());
    if (at.length <= times) throw error();
    return "written";
  };
  return { attempt, at };
}

test("a write that meets the lock runs again after pauses that double from 2 up to 50 ms (the ceiling, when the draw is highest)", async () => {
  vi.spyOn(Math, "random").mockReturnValue(1);
  const { attempt, at } = lockedFor(9);
  const outcome = whenUnlocked(attempt, 10_000);
  await vi.runAllTimersAsync();
  expect(await outcome).toBe("written");
  const pauses = at.slice(1).map((t, i) => Math.round(t - at[i]));
  expect(pauses).toEqual([2, 4, 8, 16, 32, 50, 50, 50, 50]);
});

test("each pause is drawn at random below its ceiling (full jitter): processes that met the lock together do not return together", async () => {
  const draws = [0.5, 0.25, 0, 0.75];
  vi.spyOn(Math, "random").mockImplementation(() => draws.shift() ?? 0);
  const { attempt, at } = lockedFor(4);
  const outcome = whenUnlocked(attempt, 10_000);
  await vi.runAllTimersAsync();
  expect(await outcome).toBe("written");
  const pauses = at.slice(1).map((t, i) => t - at[i]);
  expect(pauses).toEqual([Math.round(0.5 * 2), Math.round(0.25 * 4), 0, Math.round(0.75 * 16)]);
});

test("a lock held past the budget fails the write with SQLITE_BUSY, saying how long it waited, and not before", async () => {
  vi.spyOn(Math, "random").mockReturnValue(1);
  const { attempt, at } = lockedFor(Infinity);
  const outcome = whenUnlocked(attempt, 1_000).catch((error: unknown) => error);
  await vi.runAllTimersAsync();
  const error = await outcome;
  expect(error).toBeInstanceOf(LibsqlError);
  expect((error as LibsqlError).code).toBe("SQLITE_BUSY");
  expect((error as LibsqlError).message).toContain("another process held its write lock for more than 1000 ms");
  expect(at.at(-1)! - at[0]).toBeGreaterThanOrEqual(1_000);
  // The last pause is cut to the budget: no try is wasted after it.
  expect(at.at(-1)! - at[0]).toBeLessThan(1_000 + 50);
});

test("over HTTP (Hrana: no raw code) SQLITE_BUSY is waited for too", async () => {
  vi.spyOn(Math, "random").mockReturnValue(0.5);
  const { attempt } = lockedFor(3, busyOverHttp);
  const outcome = whenUnlocked(attempt, 10_000);
  await vi.runAllTimersAsync();
  expect(await outcome).toBe("written");
});

test("a stale snapshot (SQLITE_BUSY_SNAPSHOT) and any other error fail at once: waiting cannot help", async () => {
  for (
    const error of [staleSnapshot(), new LibsqlError("UNIQUE constraint failed", "SQLITE_CONSTRAINT"), new Error("x")]
  ) {
    let tries = 0;
    const outcome = whenUnlocked(() => {
      tries++;
      throw error;
    }).catch((e: unknown) => e);
    await vi.runAllTimersAsync();
    expect(await outcome).toBe(error);
    expect(tries).toBe(1);
  }
  expect(isLocked(busy())).toBe(true);
  expect(isLocked(busyOverHttp())).toBe(true);
  expect(isLocked(staleSnapshot())).toBe(false);
});

test("a write that finds no lock runs once, with no pause", async () => {
  const { attempt, at } = lockedFor(0);
  expect(await whenUnlocked(attempt)).toBe("written");
  expect(at).toHaveLength(1);
});
