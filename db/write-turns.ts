import { E_TIMEOUT, Mutex, type MutexInterface, withTimeout } from "async-mutex";
import { setImmediate } from "node:timers";

/**
 * Whose turn it is to write a local database file: among this process's writes first (an async
 * mutex, decision 012), then among every process that has the file open (decision 013).
 *
 * Between processes, SQLite's own lock cannot be waited for without blocking the thread, and
 * trying again after pauses is unfair under load: a process whose writes follow each other
 * closely takes the lock back before a process that pauses between its tries ever sees it free,
 * whose requests then wait for seconds. So the turn also takes an exclusive lock on a small file
 * beside the database (`<file>-writer`, flock), which the kernel hands to the next process that
 * asked for it as soon as it is released, while the waiting process's thread goes on serving
 * (Deno waits for the lock on a thread of its own). SQLite's lock is then free when BEGIN
 * IMMEDIATE asks for it, unless a program that does not take this lock is writing: that case is
 * waited for as before (db/other-writers.ts).
 *
 * Taking the file lock costs a round trip to that other thread, so a process keeps it from one of
 * its turns to the next when the next comes at once (a write that was waiting, the group commit's
 * next group), for at most SLICE_MS; then it lets the other processes have it. Under load the
 * processes thus take turns in slices of SLICE_MS (each several group commits); a quiet process
 * takes and releases the lock once per write.
 */
export const SLICE_MS = 50;

export interface WriteTurnsOptions {
  /** The database file; its lock file is `<path>-writer`. */
  path: string;
  /** How long a write may wait for this process's earlier writes. */
  turnLimitMs: number;
  /** How long a write may wait for another process's writes. */
  lockWaitMs: number;
}

export class WriteTurns {
  readonly #turns: MutexInterface;
  readonly #turnLimitMs: number;
  readonly #lockWaitMs: number;
  readonly #lockFile: Deno.FsFile;
  /** Whether one of this process's writes has its turn now. */
  #inTurn = false;
  /** Since when this process holds the file lock, or null. */
  #heldSince: number | null = null;
  #closed = false;

  constructor(options: WriteTurnsOptions) {
    this.#turnLimitMs = options.turnLimitMs;
    this.#lockWaitMs = options.lockWaitMs;
    this.#turns = withTimeout(new Mutex(), options.turnLimitMs);
    this.#lockFile = Deno.openSync(`${options.path}-writer`, { read: true, write: true, create: true });
  }

  /** Waits for the turn to write; resolves with the function that ends it. */
  async take(): Promise<() => void> {
    let release: MutexInterface.Releaser;
    try {
      release = await this.#turns.acquire();
    } catch (error) {
      if (error !== E_TIMEOUT) throw error;
      throw new Error(
        `A database write waited ${this.#turnLimitMs} ms for its turn. The usual cause: a write made through ` +
          "the database (db.…) inside a transaction's callback, instead of through the transaction (tx.…), " +
          "which waits for its own transaction for ever.",
      );
    }
    // A process that has written for a whole slice lets the others in before it goes on.
    if (this.#heldSince !== null && performance.now() - this.#heldSince >= SLICE_MS) this.#unlock();
    if (this.#heldSince === null) {
      const locked = this.#lockFile.lock(true);
      let outcome: "locked" | "timed out";
      try {
        outcome = await within(locked, this.#lockWaitMs);
      } catch (error) {
        release();
        throw error;
      }
      if (outcome === "timed out") {
        // A request for the lock cannot be withdrawn: once granted, it is given back. Until then
        // this process's turn stays taken, so that no second request for the lock starts meanwhile.
        locked.then(() => this.#unlockFile(), () => {}).finally(release);
        throw new Error(
          `A database write waited ${this.#lockWaitMs} ms for another process's writes to the same file to end.`,
        );
      }
      this.#heldSince = performance.now();
    }
    this.#inTurn = true;
    return () => this.#end(release);
  }

  #end(release: MutexInterface.Releaser): void {
    this.#inTurn = false;
    release();
    // The next write of this process, if it comes at once (a waiting one, the group commit's next
    // group), keeps the lock; a process with nothing more to write gives it back.
    setImmediate(() => {
      if (!this.#inTurn) this.#unlock();
    });
  }

  #unlock(): void {
    if (this.#heldSince === null) return;
    this.#heldSince = null;
    this.#unlockFile();
  }

  #unlockFile(): void {
    if (!this.#closed) this.#lockFile.unlockSync();
  }

  close(): void {
    this.#closed = true;
    this.#heldSince = null;
    // Closing the file releases its lock.
    this.#lockFile.close();
  }
}

/** Whether `promise` settled within `ms`; its rejection is passed on. */
async function within(promise: Promise<unknown>, ms: number): Promise<"locked" | "timed out"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timed out">((resolve) => (timer = setTimeout(() => resolve("timed out"), ms)));
  try {
    return await Promise.race([promise.then(() => "locked" as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
