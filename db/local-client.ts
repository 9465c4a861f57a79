// The Client interface is asynchronous and the binding synchronous: the methods stay `async` so
// that an error is a rejected promise, as callers of a client expect, not a throw.
// deno-lint-ignore-file require-await
import {
  type Client,
  type InArgs,
  type InStatement,
  LibsqlError,
  type Replicated,
  type ResultSet,
  type Transaction,
  type TransactionMode,
} from "@libsql/client";
import { Connection, type ConnectionSettings } from "./local-connection.ts";
import { LOCK_WAIT_MS, whenUnlocked } from "./other-writers.ts";
import { splitStatements } from "./sql-text.ts";
import { WriteTurns, type WriteTurnsOptions } from "./write-turns.ts";

/**
 * The client of a local database file: @libsql/client's `Client` interface (what Drizzle's libsql
 * driver talks to) over the `libsql` binding, with connections that keep their prepared statements
 * (db/local-connection.ts) and **one write connection behind a mutex** (decision 012):
 *
 * - Writes go to the write connection, one at a time, each in its turn: a write transaction holds
 *   the turn from BEGIN to COMMIT or ROLLBACK; a write statement, batch or migration holds it while
 *   it runs. Waiting for the turn is asynchronous: the binding would wait for SQLite's lock by
 *   blocking the thread, the very thread the writer in its turn needs to finish.
 * - Reads go to read connections, on which SQLite refuses any write (PRAGMA query_only). WAL lets
 *   them run beside the writer, each on a snapshot of its own.
 * - What is a write: a transaction in "write" or "deferred" mode (Drizzle's `db.transaction` asks
 *   for "write"), a batch that is not "read", `executeMultiple`, `migrate`; and a statement that
 *   SQLite refuses on a read connection, where it did nothing (SQLite decides, from the compiled
 *   statement; its text is then remembered, so the next time it goes to the writer at once).
 * - Other processes on the same file (decision 013): the turn includes a lock on a file beside the
 *   database that every process takes before it writes, waited for without blocking the thread
 *   (db/write-turns.ts). A writer that does not take it (the sqlite3 shell) can still hold SQLite's
 *   lock: then BEGIN IMMEDIATE, or the write statement, is tried again asynchronously, with backoff
 *   and jitter, for up to LOCK_WAIT_MS (db/other-writers.ts). The write connection never blocks.
 *
 * A write made through the client while this process's write transaction is open (`db.insert` in a
 * `db.transaction(async (tx) => …)` callback, instead of `tx.insert`) would wait for that transaction
 * for ever: a turn that waits longer than `turnLimitMs` fails, naming the likely cause.
 */

export interface LocalClientOptions {
  /** Run on every connection when it opens (per-connection settings: PRAGMA foreign_keys, synchronous). */
  onOpen?: string[];
  /** Prepared statements kept per connection, least recently used dropped first. */
  statementCacheSize?: number;
  /**
   * ms a read connection may block waiting for another process's lock: rare in WAL mode (another
   * process recovering the log after a crash). The write connection never blocks (decision 013).
   */
  readerBusyTimeout?: number;
  /** How long a write may wait for this process's write connection before it fails. */
  turnLimitMs?: number;
  /** How long a write waits for another process's write lock before it fails with SQLITE_BUSY. */
  lockWaitMs?: number;
}

/** A statement as the binding takes it. */
type Statement = { sql: string; args?: InArgs };

function normalize(stmt: InStatement | [string, InArgs?], args?: InArgs): Statement {
  if (typeof stmt === "string") return { sql: stmt, args };
  if (Array.isArray(stmt)) return { sql: stmt[0], args: stmt[1] };
  return stmt;
}

const BEGIN_WRITE = { sql: "BEGIN IMMEDIATE" };
const BEGIN_READ = { sql: "BEGIN TRANSACTION READONLY" };
const COMMIT = { sql: "COMMIT" };
const ROLLBACK = { sql: "ROLLBACK" };
/** Write statements remembered by their text; beyond this many the memory starts again. */
const REMEMBERED_WRITES = 1024;

function closedError(what: "client" | "transaction"): LibsqlError {
  return what === "client"
    ? new LibsqlError("The client is closed", "CLIENT_CLOSED")
    : new LibsqlError("The transaction is closed", "TRANSACTION_CLOSED");
}

/** SQLite refused a write on a read connection (PRAGMA query_only), before it changed anything. */
function isWriteOnReader(error: unknown): boolean {
  return error instanceof LibsqlError && error.code === "SQLITE_READONLY";
}

/** Runs statements one after the other, as a batch reports them (the failing statement's index). */
function runAll(connection: Connection, stmts: Array<InStatement | [string, InArgs?]>): ResultSet[] {
  const results: ResultSet[] = [];
  for (const stmt of stmts) results.push(connection.execute(normalize(stmt)));
  return results;
}

export class LocalTransaction implements Transaction {
  #connection: Connection | null;
  readonly #end: (connection: Connection) => void;

  constructor(connection: Connection, end: (connection: Connection) => void) {
    this.#connection = connection;
    this.#end = end;
  }

  #live(): Connection {
    if (this.closed) throw closedError("transaction");
    return this.#connection!;
  }

  #settle(): void {
    const connection = this.#connection;
    if (connection === null) return;
    this.#connection = null;
    this.#end(connection);
  }

  execute(stmt: InStatement): Promise<ResultSet>;
  execute(sql: string, args?: InArgs): Promise<ResultSet>;
  async execute(stmt: InStatement, args?: InArgs): Promise<ResultSet> {
    return this.#live().execute(normalize(stmt, args));
  }

  /** `execute` for a statement that returns at most one row (Connection.executeOne). */
  async executeOne(stmt: Statement): Promise<ResultSet> {
    return this.#live().executeOne(stmt);
  }

  async batch(stmts: Array<InStatement | [string, InArgs?]>): Promise<ResultSet[]> {
    return runAll(this.#live(), stmts);
  }

  async executeMultiple(sql: string): Promise<void> {
    this.#live().exec(sql);
  }

  async commit(): Promise<void> {
    try {
      this.#live().execute(COMMIT);
    } finally {
      this.#settle();
    }
  }

  async rollback(): Promise<void> {
    this.close();
  }

  close(): void {
    const connection = this.#connection;
    try {
      if (connection?.inTransaction) connection.execute(ROLLBACK);
    } finally {
      this.#settle();
    }
  }

  get closed(): boolean {
    return this.#connection === null || !this.#connection.inTransaction;
  }
}

export class LocalClient implements Client {
  closed = false;
  readonly protocol = "file";
  readonly #path: string;
  readonly #writerSettings: ConnectionSettings;
  readonly #readerSettings: ConnectionSettings;
  readonly #lockWaitMs: number;
  readonly #turnOptions: WriteTurnsOptions;
  #turns: WriteTurns;
  #writer: Connection | null;
  #idleReaders: Connection[] = [];
  readonly #borrowedReaders = new Set<Connection>();
  /** Statements SQLite refused on a read connection: they go to the write connection directly. */
  readonly #writeTexts = new Set<string>();

  constructor(path: string, options: LocalClientOptions = {}) {
    this.#path = path;
    const shared = { onOpen: options.onOpen ?? [], statementCacheSize: options.statementCacheSize ?? 256 };
    this.#writerSettings = { ...shared, busyTimeout: 0, readOnly: false };
    this.#readerSettings = { ...shared, busyTimeout: options.readerBusyTimeout ?? 1000, readOnly: true };
    this.#lockWaitMs = options.lockWaitMs ?? LOCK_WAIT_MS;
    // Opened now, so that a file that cannot be opened fails at once.
    this.#writer = new Connection(path, this.#writerSettings);
    this.#turnOptions = { path, turnLimitMs: options.turnLimitMs ?? 15_000, lockWaitMs: this.#lockWaitMs };
    this.#turns = new WriteTurns(this.#turnOptions);
  }

  // --- the write connection, in turn

  /** Waits for the turn to write (db/write-turns.ts); resolves with the function that ends it. */
  #takeTurn(): Promise<() => void> {
    if (this.closed) return Promise.reject(closedError("client"));
    return this.#turns.take();
  }

  #writeConnection(): Connection {
    if (this.closed) throw closedError("client");
    if (this.#writer === null || !this.#writer.open) this.#writer = new Connection(this.#path, this.#writerSettings);
    return this.#writer;
  }

  /** Ends a turn: a transaction left open is rolled back, so the next turn starts clean. */
  #endTurn(release: () => void): void {
    const writer = this.#writer;
    try {
      if (writer?.inTransaction) writer.execute(ROLLBACK);
    } catch {
      writer?.close();
      this.#writer = null;
    } finally {
      release();
    }
  }

  async #inTurn<T>(work: (writer: Connection) => T | Promise<T>): Promise<T> {
    const release = await this.#takeTurn();
    try {
      return await work(this.#writeConnection());
    } finally {
      this.#endTurn(release);
    }
  }

  /** BEGIN IMMEDIATE: takes SQLite's write lock now, waiting for another process's (decision 013). */
  #begin(writer: Connection): Promise<unknown> {
    return whenUnlocked(() => writer.execute(BEGIN_WRITE), this.#lockWaitMs);
  }

  // --- read connections

  #acquireReader(): Connection {
    if (this.closed) throw closedError("client");
    const reader = this.#idleReaders.pop() ?? new Connection(this.#path, this.#readerSettings);
    this.#borrowedReaders.add(reader);
    return reader;
  }

  /** Back to the pool; a connection never goes back mid-transaction. */
  #releaseReader(reader: Connection): void {
    this.#borrowedReaders.delete(reader);
    if (reader.inTransaction) {
      try {
        reader.execute(ROLLBACK);
      } catch {
        reader.close();
        return;
      }
    }
    if (this.closed || !reader.open) reader.close();
    else this.#idleReaders.push(reader);
  }

  /**
   * One statement outside a transaction: on a read connection, unless SQLite refuses it there as a
   * write (known by its text after the first time); then on the write connection, in turn.
   */
  async #statement(stmt: Statement, run: (connection: Connection, stmt: Statement) => ResultSet): Promise<ResultSet> {
    if (!this.#writeTexts.has(stmt.sql)) {
      const reader = this.#acquireReader();
      try {
        return run(reader, stmt);
      } catch (error) {
        if (!isWriteOnReader(error)) throw error;
        if (this.#writeTexts.size >= REMEMBERED_WRITES) this.#writeTexts.clear();
        this.#writeTexts.add(stmt.sql);
      } finally {
        this.#releaseReader(reader);
      }
    }
    return this.#inTurn((writer) => whenUnlocked(() => run(writer, stmt), this.#lockWaitMs));
  }

  // --- the Client interface

  execute(stmt: InStatement): Promise<ResultSet>;
  execute(sql: string, args?: InArgs): Promise<ResultSet>;
  async execute(stmt: InStatement, args?: InArgs): Promise<ResultSet> {
    return this.#statement(normalize(stmt, args), (connection, s) => connection.execute(s));
  }

  /** `execute` for a statement that returns at most one row (Connection.executeOne). */
  async executeOne(stmt: Statement): Promise<ResultSet> {
    return this.#statement(stmt, (connection, s) => connection.executeOne(s));
  }

  async batch(stmts: Array<InStatement | [string, InArgs?]>, mode: TransactionMode = "deferred"): Promise<ResultSet[]> {
    if (mode === "read") {
      const reader = this.#acquireReader();
      try {
        reader.execute(BEGIN_READ);
        const results = runAll(reader, stmts);
        reader.execute(COMMIT);
        return results;
      } finally {
        this.#releaseReader(reader);
      }
    }
    return this.#inTurn(async (writer) => {
      await this.#begin(writer);
      const results = runAll(writer, stmts);
      writer.execute(COMMIT);
      return results;
    });
  }

  async migrate(stmts: InStatement[]): Promise<ResultSet[]> {
    const results = await this.#inTurn(async (writer) => {
      writer.execute({ sql: "PRAGMA foreign_keys=off" });
      try {
        await this.#begin(writer);
        const results = runAll(writer, stmts);
        writer.execute(COMMIT);
        return results;
      } finally {
        if (writer.inTransaction) writer.execute(ROLLBACK);
        writer.execute({ sql: "PRAGMA foreign_keys=on" });
      }
    });
    this.#forgetStatements();
    return results;
  }

  async transaction(mode: TransactionMode = "write"): Promise<Transaction> {
    if (mode === "read") {
      const reader = this.#acquireReader();
      try {
        reader.execute(BEGIN_READ);
      } catch (error) {
        this.#releaseReader(reader);
        throw error;
      }
      return new LocalTransaction(reader, (used) => this.#releaseReader(used));
    }
    const release = await this.#takeTurn();
    try {
      await this.#begin(this.#writeConnection());
    } catch (error) {
      this.#endTurn(release);
      throw error;
    }
    return new LocalTransaction(this.#writer!, () => this.#endTurn(release));
  }

  /**
   * Several statements in one text, run one after the other on the write connection (each waits
   * for another process's lock on its own, as SQLite's busy handler would).
   */
  async executeMultiple(sql: string): Promise<void> {
    await this.#inTurn(async (writer) => {
      for (const statement of splitStatements(sql)) await whenUnlocked(() => writer.exec(statement), this.#lockWaitMs);
    });
    this.#forgetStatements();
  }

  /** The schema may have changed: every connection prepares its statements again. */
  #forgetStatements(): void {
    this.#writer?.forgetStatements();
    for (const reader of this.#idleReaders) reader.forgetStatements();
  }

  sync(): Promise<Replicated> {
    return Promise.reject(new LibsqlError("A local database file has no remote to sync with.", "SYNC_NOT_SUPPORTED"));
  }

  async reconnect(): Promise<void> {
    this.close();
    this.closed = false;
    this.#turns = new WriteTurns(this.#turnOptions);
  }

  close(): void {
    if (!this.closed) this.#turns.close();
    this.closed = true;
    this.#writer?.close();
    this.#writer = null;
    for (const reader of [...this.#idleReaders, ...this.#borrowedReaders]) reader.close();
    this.#idleReaders = [];
    this.#borrowedReaders.clear();
  }
}
