// The Client interface is asynchronous and the binding synchronous: the methods stay `async` so
// that an error is a rejected promise, as callers of a client expect, not a throw.
// deno-lint-ignore-file require-await
import {
  type Client,
  type InArgs,
  type InStatement,
  type InValue,
  LibsqlError,
  type Replicated,
  type ResultSet,
  type Row,
  type Transaction,
  type TransactionMode,
} from "@libsql/client";
import Database from "libsql";
import { Buffer } from "node:buffer";

/**
 * The client of a local database file: @libsql/client's `Client` interface (what Drizzle's libsql
 * driver talks to) over the `libsql` binding that @libsql/client itself uses for files, with one
 * difference that matters: **each connection keeps its prepared statements and reuses them**.
 *
 * Why not @libsql/client's own file client: it prepares every statement anew on every call, asks
 * the statement for its columns twice, finds out whether it returns rows by catching an exception,
 * and builds each row with `Object.defineProperty` per value. In Deno that is ≈ 70 µs per statement
 * on top of SQLite's own work, more than the work itself: a conversion (≈ 15 statements) spent more
 * time preparing than running (docs/PERFORMANCE.md). Drizzle's queries have a fixed SQL text per
 * shape, so a statement cache keyed by the text hits almost always.
 *
 * Everything else is kept: the answers are the same `ResultSet`s (rows readable by index and by
 * column name, integers as numbers with a RangeError beyond 2^53, blobs as ArrayBuffers), errors
 * are `LibsqlError`s with SQLite's code, and connections come from a small pool: a transaction
 * holds its own connection until it ends; everything else borrows one for a synchronous call. Turso
 * (libsql://, https://) still goes through @libsql/client: db/client.ts chooses.
 */

export interface LocalClientOptions {
  /** ms a connection waits for another process's write lock (busy timeout). */
  timeout?: number;
  /** Run on every connection when it opens (per-connection settings: PRAGMA foreign_keys, synchronous). */
  onOpen?: string[];
  /** Prepared statements kept per connection, least recently used dropped first. */
  statementCacheSize?: number;
}

type LibsqlStatement = Database.Statement;

/** A prepared statement with what is known about it once and for all. */
interface Prepared {
  statement: LibsqlStatement;
  /** Whether it returns rows (SELECT, … RETURNING, most PRAGMAs). */
  reader: boolean;
  columns: string[];
  columnTypes: string[];
  /** Builds a row of this statement's shape. */
  row: ((values: unknown[]) => Row) | null;
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_INT64 = -9223372036854775808n;
const MAX_INT64 = 9223372036854775807n;

/**
 * A row: the values by column name (own, enumerable: what `Object.keys`, spreading and JSON see)
 * and by index (getters on a shared prototype, with `length`: what `Array.prototype.slice.call`
 * and Drizzle's mappers read). One small class per result shape, so every row of it shares one
 * hidden class; much cheaper than defining each index as its own property.
 */
class RowValues {
  #values: unknown[];
  constructor(values: unknown[]) {
    this.#values = values;
  }
  get length(): number {
    return this.#values.length;
  }
  static at(row: RowValues, index: number): unknown {
    return row.#values[index];
  }
}

function rowBuilder(columns: string[]): (values: unknown[]) => Row {
  class ShapedRow extends RowValues {}
  for (let i = 0; i < columns.length; i++) {
    Object.defineProperty(ShapedRow.prototype, i, {
      get(this: RowValues) {
        return RowValues.at(this, i);
      },
    });
  }
  // A name seen twice (a join's two "id"s) keeps its first value, as @libsql/client does; a column
  // named "length" or like an index ("0") is readable by index only, as there.
  const named: Array<[string, number]> = [];
  for (let i = 0; i < columns.length; i++) {
    const name = columns[i];
    const indexLike = /^(0|[1-9]\d*)$/.test(name) && Number(name) < columns.length;
    if (name !== "length" && !indexLike && !named.some(([seen]) => seen === name)) named.push([name, i]);
  }
  return (values) => {
    const row = new ShapedRow(values) as unknown as Record<string, unknown>;
    for (const [name, i] of named) {
      if (name === "__proto__") {
        Object.defineProperty(row, name, { value: values[i], enumerable: true, writable: true, configurable: true });
      } else row[name] = values[i];
    }
    return row as unknown as Row;
  };
}

function valueFromSql(value: unknown): unknown {
  if (typeof value === "bigint") {
    if (value < MIN_SAFE || value > MAX_SAFE) {
      throw new RangeError("Received integer which cannot be safely represented as a JavaScript number");
    }
    return Number(value);
  }
  if (value instanceof Buffer) return value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength);
  return value;
}

function valueToSql(value: InValue | undefined): unknown {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) {
      throw new RangeError("Only finite numbers (not Infinity or NaN) can be passed as arguments");
    }
    return value;
  }
  if (typeof value === "bigint") {
    if (value < MIN_INT64 || value > MAX_INT64) {
      throw new RangeError("bigint is too large to be represented as a 64-bit integer and passed as argument");
    }
    return value;
  }
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof ArrayBuffer) return Buffer.from(value);
  if (value instanceof Date) return value.valueOf();
  if (value === undefined) throw new TypeError("undefined cannot be passed as argument to the database");
  return value;
}

function argsToSql(args: InArgs | undefined): unknown[] | Record<string, unknown> {
  if (args === undefined) return [];
  if (Array.isArray(args)) return args.map(valueToSql);
  const named: Record<string, unknown> = {};
  for (const name in args) {
    const bare = name[0] === "@" || name[0] === "$" || name[0] === ":" ? name.slice(1) : name;
    named[bare] = valueToSql((args as Record<string, InValue>)[name]);
  }
  return named;
}

const SQLITE_CODES: Record<number, string> = {
  1: "SQLITE_ERROR",
  2: "SQLITE_INTERNAL",
  3: "SQLITE_PERM",
  4: "SQLITE_ABORT",
  5: "SQLITE_BUSY",
  6: "SQLITE_LOCKED",
  7: "SQLITE_NOMEM",
  8: "SQLITE_READONLY",
  9: "SQLITE_INTERRUPT",
  10: "SQLITE_IOERR",
  11: "SQLITE_CORRUPT",
  12: "SQLITE_NOTFOUND",
  13: "SQLITE_FULL",
  14: "SQLITE_CANTOPEN",
  15: "SQLITE_PROTOCOL",
  16: "SQLITE_EMPTY",
  17: "SQLITE_SCHEMA",
  18: "SQLITE_TOOBIG",
  19: "SQLITE_CONSTRAINT",
  20: "SQLITE_MISMATCH",
  21: "SQLITE_MISUSE",
  22: "SQLITE_NOLFS",
  23: "SQLITE_AUTH",
  24: "SQLITE_FORMAT",
  25: "SQLITE_RANGE",
  26: "SQLITE_NOTADB",
  27: "SQLITE_NOTICE",
  28: "SQLITE_WARNING",
};

/** SQLite's errors as @libsql/client reports them (a LibsqlError with the base code). */
function mapError(error: unknown): unknown {
  if (error instanceof Database.SqliteError) {
    const { code: extended, rawCode } = error as unknown as { code: string; rawCode?: number };
    const code = rawCode === undefined
      ? "SQLITE_UNKNOWN"
      : SQLITE_CODES[rawCode & 0xff] ?? `SQLITE_UNKNOWN_${rawCode & 0xff}`;
    return new LibsqlError((error as Error).message, code, extended, rawCode, error as Error);
  }
  return error;
}

function normalize(stmt: InStatement | [string, InArgs?], args?: InArgs): { sql: string; args?: InArgs } {
  if (typeof stmt === "string") return { sql: stmt, args };
  if (Array.isArray(stmt)) return { sql: stmt[0], args: stmt[1] };
  return stmt;
}

const BEGIN: Record<TransactionMode, string> = {
  write: "BEGIN IMMEDIATE",
  read: "BEGIN TRANSACTION READONLY",
  deferred: "BEGIN DEFERRED",
};

/** Reads a statement's result columns (again) and makes its row builder. */
function describe(prepared: Prepared): void {
  const described = prepared.statement.columns() as Array<{ name: string; type: string | null }>;
  prepared.columns = described.map((c) => c.name);
  prepared.columnTypes = described.map((c) => c.type ?? "");
  prepared.row = rowBuilder(prepared.columns);
}

/** One connection to the file and its prepared statements. */
class Connection {
  readonly db: Database.Database;
  readonly #statements = new Map<string, Prepared>();
  readonly #cacheSize: number;

  constructor(path: string, options: LocalClientOptions) {
    this.db = new Database(path, { timeout: options.timeout ?? 0 });
    this.#cacheSize = options.statementCacheSize ?? 256;
    for (const sql of options.onOpen ?? []) this.execute({ sql });
  }

  get open(): boolean {
    return this.db.open;
  }

  get inTransaction(): boolean {
    return this.db.open && this.db.inTransaction;
  }

  #prepare(sql: string): Prepared {
    const cached = this.#statements.get(sql);
    if (cached) {
      // Most recently used goes last; the first key is the one to drop.
      this.#statements.delete(sql);
      this.#statements.set(sql, cached);
      return cached;
    }
    const statement = this.db.prepare(sql);
    statement.safeIntegers(true);
    const reader = statement.reader as boolean;
    const prepared: Prepared = { statement, reader, columns: [], columnTypes: [], row: null };
    if (reader) {
      statement.raw(true);
      describe(prepared);
    }
    this.#statements.set(sql, prepared);
    if (this.#statements.size > this.#cacheSize) this.#statements.delete(this.#statements.keys().next().value!);
    return prepared;
  }

  execute(stmt: { sql: string; args?: InArgs }): ResultSet {
    try {
      const prepared = this.#prepare(stmt.sql);
      const { statement, reader } = prepared;
      const args = argsToSql(stmt.args);
      if (reader) {
        const raw = statement.all(args) as unknown[][];
        // SQLite prepares a statement again by itself when the schema changed (another connection
        // ran a migration): then `SELECT *` may have other columns than described.
        if (raw.length > 0 && raw[0].length !== prepared.columns.length) describe(prepared);
        const { columns, columnTypes, row } = prepared;
        const rows = new Array<Row>(raw.length);
        for (let r = 0; r < raw.length; r++) {
          const values = raw[r];
          for (let i = 0; i < values.length; i++) values[i] = valueFromSql(values[i]);
          rows[r] = row!(values);
        }
        return resultSet(columns, columnTypes, rows, 0, undefined);
      }
      const info = statement.run(args) as { changes: number; lastInsertRowid: number | bigint };
      return resultSet([], [], [], info.changes, BigInt(info.lastInsertRowid));
    } catch (error) {
      throw mapError(error);
    }
  }

  /**
   * A statement that returns at most one row (a primary key lookup, one row's INSERT or UPDATE …
   * RETURNING): read with the binding's `get()`, which costs a sixth of `all()` (≈ 2.5 µs
   * against ≈ 14 µs: `all()` builds an iterator object across the native boundary every time).
   * A second row, if there were one, is not read.
   */
  executeOne(stmt: { sql: string; args?: InArgs }): ResultSet {
    try {
      const prepared = this.#prepare(stmt.sql);
      if (!prepared.reader) return this.execute(stmt);
      const values = prepared.statement.get(argsToSql(stmt.args)) as unknown[] | undefined;
      if (values === undefined) return resultSet(prepared.columns, prepared.columnTypes, [], 0, undefined);
      if (values.length !== prepared.columns.length) describe(prepared);
      for (let i = 0; i < values.length; i++) values[i] = valueFromSql(values[i]);
      return resultSet(prepared.columns, prepared.columnTypes, [prepared.row!(values)], 0, undefined);
    } catch (error) {
      throw mapError(error);
    }
  }

  /** Several statements in one string (no results); the schema may change, so forget what was prepared. */
  exec(sql: string): void {
    this.#statements.clear();
    try {
      this.db.exec(sql);
    } catch (error) {
      throw mapError(error);
    }
  }

  forgetStatements(): void {
    this.#statements.clear();
  }

  close(): void {
    this.#statements.clear();
    try {
      if (this.db.open) this.db.close();
    } catch {
      // nothing useful to do while tearing down
    }
  }
}

function resultSet(
  columns: string[],
  columnTypes: string[],
  rows: Row[],
  rowsAffected: number,
  lastInsertRowid: bigint | undefined,
): ResultSet {
  return {
    columns,
    columnTypes,
    rows,
    rowsAffected,
    lastInsertRowid,
    toJSON() {
      return {
        columns,
        columnTypes,
        rows: rows.map((row) => Array.prototype.map.call(row, (v) => (typeof v === "bigint" ? String(v) : v))),
        rowsAffected,
        lastInsertRowid: lastInsertRowid === undefined ? null : String(lastInsertRowid),
      };
    },
  };
}

function closedError(what: "client" | "transaction"): LibsqlError {
  return what === "client"
    ? new LibsqlError("The client is closed", "CLIENT_CLOSED")
    : new LibsqlError("The transaction is closed", "TRANSACTION_CLOSED");
}

/** Runs statements one after the other, as a batch reports them (the failing statement's index). */
function runAll(connection: Connection, stmts: Array<InStatement | [string, InArgs?]>): ResultSet[] {
  const results: ResultSet[] = [];
  for (const stmt of stmts) results.push(connection.execute(normalize(stmt)));
  return results;
}

export class LocalTransaction implements Transaction {
  #connection: Connection | null;
  readonly #release: (connection: Connection) => void;

  constructor(connection: Connection, release: (connection: Connection) => void) {
    this.#connection = connection;
    this.#release = release;
  }

  #live(): Connection {
    if (this.closed) throw closedError("transaction");
    return this.#connection!;
  }

  #settle(): void {
    const connection = this.#connection;
    if (connection === null) return;
    this.#connection = null;
    this.#release(connection);
  }

  execute(stmt: InStatement): Promise<ResultSet>;
  execute(sql: string, args?: InArgs): Promise<ResultSet>;
  async execute(stmt: InStatement, args?: InArgs): Promise<ResultSet> {
    return this.#live().execute(normalize(stmt, args));
  }

  /** `execute` for a statement that returns at most one row (Connection.executeOne). */
  async executeOne(stmt: { sql: string; args?: InArgs }): Promise<ResultSet> {
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
      this.#live().execute({ sql: "COMMIT" });
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
      if (connection?.inTransaction) connection.execute({ sql: "ROLLBACK" });
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
  readonly #options: LocalClientOptions;
  #idle: Connection[] = [];
  readonly #borrowed = new Set<Connection>();

  constructor(path: string, options: LocalClientOptions = {}) {
    this.#path = path;
    this.#options = options;
    // Fail at once when the file cannot be opened.
    this.#release(this.#acquire());
  }

  #acquire(): Connection {
    if (this.closed) throw closedError("client");
    const connection = this.#idle.pop() ?? new Connection(this.#path, this.#options);
    this.#borrowed.add(connection);
    return connection;
  }

  /** Back to the pool; a connection never goes back mid-transaction. */
  #release(connection: Connection): void {
    this.#borrowed.delete(connection);
    if (connection.inTransaction) {
      try {
        connection.execute({ sql: "ROLLBACK" });
      } catch {
        connection.close();
        return;
      }
    }
    if (this.closed || !connection.open) connection.close();
    else this.#idle.push(connection);
  }

  #with<T>(work: (connection: Connection) => T): T {
    const connection = this.#acquire();
    try {
      return work(connection);
    } finally {
      this.#release(connection);
    }
  }

  execute(stmt: InStatement): Promise<ResultSet>;
  execute(sql: string, args?: InArgs): Promise<ResultSet>;
  async execute(stmt: InStatement, args?: InArgs): Promise<ResultSet> {
    return this.#with((connection) => connection.execute(normalize(stmt, args)));
  }

  /** `execute` for a statement that returns at most one row (Connection.executeOne). */
  async executeOne(stmt: { sql: string; args?: InArgs }): Promise<ResultSet> {
    return this.#with((connection) => connection.executeOne(stmt));
  }

  async batch(stmts: Array<InStatement | [string, InArgs?]>, mode: TransactionMode = "deferred"): Promise<ResultSet[]> {
    return this.#with((connection) => {
      connection.execute({ sql: BEGIN[mode] });
      const results = runAll(connection, stmts);
      connection.execute({ sql: "COMMIT" });
      return results;
    });
  }

  async migrate(stmts: InStatement[]): Promise<ResultSet[]> {
    const results = this.#with((connection) => {
      connection.execute({ sql: "PRAGMA foreign_keys=off" });
      try {
        connection.execute({ sql: BEGIN.deferred });
        const results = runAll(connection, stmts);
        connection.execute({ sql: "COMMIT" });
        return results;
      } finally {
        if (connection.inTransaction) connection.execute({ sql: "ROLLBACK" });
        connection.execute({ sql: "PRAGMA foreign_keys=on" });
      }
    });
    this.#forgetStatements();
    return results;
  }

  async transaction(mode: TransactionMode = "write"): Promise<Transaction> {
    const connection = this.#acquire();
    try {
      connection.execute({ sql: BEGIN[mode] });
    } catch (error) {
      this.#release(connection);
      throw error;
    }
    return new LocalTransaction(connection, (used) => this.#release(used));
  }

  async executeMultiple(sql: string): Promise<void> {
    this.#with((connection) => connection.exec(sql));
    this.#forgetStatements();
  }

  /** The schema may have changed: every connection prepares its statements again. */
  #forgetStatements(): void {
    for (const connection of this.#idle) connection.forgetStatements();
  }

  sync(): Promise<Replicated> {
    return Promise.reject(new LibsqlError("A local database file has no remote to sync with.", "SYNC_NOT_SUPPORTED"));
  }

  async reconnect(): Promise<void> {
    this.close();
    this.closed = false;
  }

  close(): void {
    this.closed = true;
    for (const connection of [...this.#idle, ...this.#borrowed]) connection.close();
    this.#idle = [];
    this.#borrowed.clear();
  }
}
