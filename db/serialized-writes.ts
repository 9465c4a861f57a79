import type { Client, InStatement, Transaction, TransactionMode } from "@libsql/client";

/**
 * SQLite has one writer at a time. The local libSQL client keeps a pool of connections, and its
 * binding waits for a lock by blocking the thread: a second write transaction in the same process
 * would either fail at once (SQLITE_BUSY) or block the very thread the first one needs to finish.
 * So this process's writes take turns here, without blocking: each write transaction, batch or
 * statement waits (asynchronously) for the one before it. Reads are not queued; in WAL mode they
 * run beside a writer. A write made through the client inside an open transaction's callback
 * would wait for that transaction forever, so a wait longer than WAIT_LIMIT_MS fails loudly.
 */
const WAIT_LIMIT_MS = 15_000;

class Turns {
  #tail: Promise<void> = Promise.resolve();

  /** Waits for the turn; resolves with the function that ends it. */
  take(): Promise<() => void> {
    let end!: () => void;
    const done = new Promise<void>((resolve) => (end = resolve));
    const previous = this.#tail;
    this.#tail = previous.then(() => done);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `A database write waited ${WAIT_LIMIT_MS} ms for its turn: is a write made outside its transaction?`,
            ),
          ),
        WAIT_LIMIT_MS,
      );
    });
    return Promise.race([previous.then(() => end), timeout]).finally(() => clearTimeout(timer)).catch((error) => {
      // Give the turn back when it finally comes, so the queue is not stuck behind us.
      previous.then(end);
      throw error;
    });
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    const end = await this.take();
    try {
      return await work();
    } finally {
      end();
    }
  }
}

/** Statements that only read; anything else counts as a write. */
function isRead(stmt: InStatement): boolean {
  const sql = typeof stmt === "string" ? stmt : stmt.sql;
  return /^\s*select\b/i.test(sql) || /^\s*pragma\s+\w+\s*;?\s*$/i.test(sql);
}

export function serializeWrites(client: Client): Client {
  const turns = new Turns();
  return new Proxy(client, {
    get(target, property) {
      switch (property) {
        case "execute":
          return (stmt: InStatement, args?: unknown) => {
            const run =
              () => (args === undefined ? target.execute(stmt) : target.execute(stmt as string, args as never));
            return isRead(stmt) ? run() : turns.run(run);
          };
        case "executeOne": {
          // The local client's single-row execute (db/local-client.ts): writes take turns here too.
          const executeOne = Reflect.get(target, property, target) as
            | ((stmt: InStatement) => Promise<unknown>)
            | undefined;
          if (typeof executeOne !== "function") return undefined;
          return (
            stmt: InStatement,
          ) => (isRead(stmt) ? executeOne.call(target, stmt) : turns.run(() => executeOne.call(target, stmt)));
        }
        case "batch":
          return (stmts: InStatement[], mode?: TransactionMode) =>
            mode === "read" ? target.batch(stmts, mode) : turns.run(() => target.batch(stmts, mode));
        case "executeMultiple":
          return (sql: string) => turns.run(() => target.executeMultiple(sql));
        case "migrate":
          return (stmts: InStatement[]) => turns.run(() => target.migrate(stmts));
        case "transaction":
          return async (mode?: TransactionMode) => {
            if (mode === "read") return target.transaction(mode);
            const end = await turns.take();
            try {
              return holdTurn(await target.transaction(mode), end);
            } catch (error) {
              end();
              throw error;
            }
          };
        default: {
          const value = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        }
      }
    },
  });
}

/** The transaction keeps the turn until it commits, rolls back or closes. */
function holdTurn(tx: Transaction, end: () => void): Transaction {
  let ended = false;
  const release = () => {
    if (!ended) {
      ended = true;
      end();
    }
  };
  // Getters run on the transaction itself, not the proxy: it keeps its state in private fields.
  return new Proxy(tx, {
    get(target, property) {
      if (property === "commit" || property === "rollback") {
        return async () => {
          try {
            return await (target[property] as () => Promise<void>).call(target);
          } finally {
            release();
          }
        };
      }
      if (property === "close") {
        return () => {
          try {
            target.close();
          } finally {
            release();
          }
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
