import { LibsqlError } from "@libsql/client/web";

/**
 * Waiting for another process's write lock (decision 013).
 *
 * SQLite has one writer per file. When another process (a second instance of the portal, an
 * operator's script) holds the write lock, SQLite answers SQLITE_BUSY. Its own remedy, the busy
 * timeout, waits by blocking the thread, which here is the only thread of the whole portal: every
 * request would stall. So the write connection has no busy timeout, and what met the lock is tried
 * again asynchronously: after a pause drawn at random, in whole milliseconds, below a ceiling that
 * doubles at each try (2, 4, 8 … up to 50 ms; "full jitter", so that processes that met the lock
 * together do not all come back together); and for LOCK_WAIT_MS at most, after which the write
 * fails with SQLITE_BUSY and a message that says how long it waited.
 *
 * Only statements that did nothing when they met the lock are tried again: BEGIN IMMEDIATE, or one
 * statement in autocommit mode. SQLITE_BUSY_SNAPSHOT (a read transaction that became stale) is not
 * waited for: waiting cannot make that snapshot fresh.
 */
export const LOCK_WAIT_MS = 10_000;
const FIRST_PAUSE_MS = 2;
const LONGEST_PAUSE_MS = 50;
const SQLITE_BUSY = 5;
const SQLITE_BUSY_SNAPSHOT = 517;

let waits = 0;

/** How many times this process paused for another process's lock (tests show the processes met). */
export function lockWaits(): number {
  return waits;
}

/** Whether SQLite refused because another connection holds the lock, so that a later try can succeed. */
export function isLocked(error: unknown): boolean {
  if (!(error instanceof LibsqlError) || error.code !== "SQLITE_BUSY") return false;
  // Over the network (Hrana) there is no raw code: the base code is all there is.
  return error.rawCode === undefined ||
    ((error.rawCode & 0xff) === SQLITE_BUSY && error.rawCode !== SQLITE_BUSY_SNAPSHOT);
}

/** Runs `attempt`; while it meets another process's lock, runs it again after a pause (above). */
export async function whenUnlocked<T>(attempt: () => T | Promise<T>, budgetMs: number = LOCK_WAIT_MS): Promise<T> {
  const deadline = performance.now() + budgetMs;
  for (let tries = 0;; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isLocked(error)) throw error;
      const left = deadline - performance.now();
      if (left <= 0) {
        const busy = error as LibsqlError;
        throw new LibsqlError(
          `database is locked: another process held its write lock for more than ${budgetMs} ms`,
          busy.code,
          busy.extendedCode,
          busy.rawCode,
          busy,
        );
      }
      waits++;
      const ceiling = Math.min(LONGEST_PAUSE_MS, FIRST_PAUSE_MS * 2 ** tries);
      await new Promise((resolve) => setTimeout(resolve, Math.min(left, Math.round(Math.random() * ceiling))));
    }
  }
}
