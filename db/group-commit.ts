import { setImmediate } from "node:timers";
import type { Database } from "./client.ts";
import { SavepointLost, sqlRunner, type Tx, withSavepoint } from "./sql.ts";

/**
 * Group commit: transactions that arrive together share one database transaction and one COMMIT.
 *
 * Why: with synchronous=FULL every COMMIT syncs the WAL to disk (≈ 0.2–0.4 ms here), and the
 * libSQL binding does that on the portal's only JavaScript thread, so nothing else runs meanwhile.
 * Under load, conversions queue behind each other's syncs. Here each queued piece of work runs in
 * a savepoint of its own inside one transaction, one after the other, and one COMMIT makes them
 * all durable: one sync for the group instead of one each.
 *
 * What a caller sees is what `db.transaction(work)` gives:
 * - `work` runs alone on the transaction (the works of a group run one after the other);
 * - if `work` throws, its savepoint is rolled back (nothing of it remains) and the promise rejects
 *   at once; the other works of the group are not affected;
 * - if `work` succeeds, the promise resolves only **after the group's COMMIT has succeeded**, so an
 *   answer of success always means the rows are on disk (a crash after it loses nothing);
 * - if the COMMIT fails, nothing of the group was written and every work that had succeeded in it
 *   rejects with that error.
 * Never call `groupedTransaction` from inside a work: it would wait for the group it is part of.
 * A group closes when no more work is queued after the event loop had a chance to bring in the
 * requests already received (one `setImmediate`), or at MAX_GROUP works.
 */
const MAX_GROUP = 64;

type Work<T> = (tx: Tx) => Promise<T>;

interface Queued {
  work: Work<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

class GroupCommitter {
  readonly #db: Database;
  #queue: Queued[] = [];
  #draining = false;
  /** How many groups and works were committed (for benchmarks and tests). */
  readonly stats = { groups: 0, works: 0, largest: 0 };

  constructor(db: Database) {
    this.#db = db;
  }

  run<T>(work: Work<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#draining) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      while (this.#queue.length > 0) await this.#group();
    } finally {
      this.#draining = false;
    }
  }

  /** One transaction: the queued works, each in a savepoint, then one COMMIT. */
  async #group(): Promise<void> {
    const succeeded: Array<{ item: Queued; value: unknown }> = [];
    let taken = 0;
    try {
      await this.#db.transaction(async (tx) => {
        const transaction = sqlRunner(tx) as unknown as { closed?: boolean };
        // Counted in works taken, not works that succeeded: a run of refusals must not keep the
        // group (and the answers of its successes) open.
        while (taken < MAX_GROUP) {
          let item = this.#queue.shift();
          if (!item) {
            // Let requests that already arrived reach the queue before closing the group.
            await new Promise((resolve) => setImmediate(resolve));
            item = this.#queue.shift();
            if (!item) break;
          }
          // SQLite ends a transaction by itself after some errors (disk full, I/O): a savepoint
          // opened then would start a transaction of its own and commit alone. Stop the group;
          // the work waits for the next one.
          if (transaction.closed) {
            this.#queue.unshift(item);
            throw new GroupAborted();
          }
          taken++;
          try {
            succeeded.push({ item, value: await withSavepoint(tx, "grouped_work", item.work) });
          } catch (error) {
            item.reject(error);
            // Its writes may still be in the transaction: roll the whole group back.
            if (error instanceof SavepointLost) throw error;
          }
        }
      });
    } catch (error) {
      // Nothing of this group was written: the works that had succeeded in it fail too.
      for (const { item } of succeeded) item.reject(error);
      // The transaction could not even begin (another process holds the lock past the busy
      // timeout): every waiting work gets that answer, as each would have alone, rather than
      // waiting for ever.
      if (taken === 0 && !(error instanceof GroupAborted)) {
        for (const item of this.#queue.splice(0)) item.reject(error);
      }
      return;
    }
    this.stats.groups++;
    this.stats.works += succeeded.length;
    this.stats.largest = Math.max(this.stats.largest, succeeded.length);
    for (const { item, value } of succeeded) item.resolve(value);
  }
}

class GroupAborted extends Error {
  constructor() {
    super("The group's transaction was ended by the database before its COMMIT; nothing of it was written.");
  }
}

const committers = new WeakMap<Database, GroupCommitter>();

function committerOf(db: Database): GroupCommitter {
  let committer = committers.get(db);
  if (!committer) {
    committer = new GroupCommitter(db);
    committers.set(db, committer);
  }
  return committer;
}

/** Runs `work` in a transaction that may be shared with other works queued at the same time (above). */
export function groupedTransaction<T>(db: Database, work: Work<T>): Promise<T> {
  return committerOf(db).run(work);
}

/** Groups and works committed so far on this database. */
export function groupCommitStats(db: Database): { groups: number; works: number; largest: number } {
  return { ...committerOf(db).stats };
}
