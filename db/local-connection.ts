import { type InArgs, type InValue, LibsqlError, type ResultSet, type Row } from "@libsql/client";
import Database from "libsql";
import { Buffer } from "node:buffer";

/**
 * One connection to a local database file, for db/local-client.ts: it keeps its prepared
 * statements (an LRU by SQL text) and builds rows cheaply, and answers as @libsql/client does.
 *
 * Why not @libsql/client's own file client: it prepares every statement anew on every call, asks
 * the statement for its columns twice, finds out whether it returns rows by catching an exception,
 * and builds each row with `Object.defineProperty` per value. In Deno that is ≈ 70 µs per statement
 * on top of SQLite's own work, more than the work itself: a conversion (≈ 15 statements) spent more
 * time preparing than running (docs/PERFORMANCE.md). Drizzle's queries have a fixed SQL text per
 * shape, so a statement cache keyed by the text hits almost always.
 *
 * What callers see is what @libsql/client gives: `ResultSet`s whose rows read by index and by
 * column name, integers as numbers with a RangeError beyond 2^53, blobs as ArrayBuffers, and
 * errors as `LibsqlError`s with SQLite's code.
 */

export interface ConnectionSettings {
  /** ms the binding waits, blocking the thread, for another connection's lock (SQLite's busy timeout). */
  busyTimeout: number;
  /** Run when the connection opens (per-connection settings: PRAGMA foreign_keys, synchronous). */
  onOpen: string[];
  /** Prepared statements kept, least recently used dropped first. */
  statementCacheSize: number;
  /** A read connection: SQLite refuses any write on it (PRAGMA query_only), before it changes anything. */
  readOnly: boolean;
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

/** Reads a statement's result columns (again) and makes its row builder. */
function describe(prepared: Prepared): void {
  const described = prepared.statement.columns() as Array<{ name: string; type: string | null }>;
  prepared.columns = described.map((c) => c.name);
  prepared.columnTypes = described.map((c) => c.type ?? "");
  prepared.row = rowBuilder(prepared.columns);
}

/** How long opening a connection waits for another process's lock on the file (see Connection). */
const OPEN_BUSY_TIMEOUT_MS = 10_000;

/** One connection to the file and its prepared statements. */
export class Connection {
  readonly db: Database.Database;
  readonly #statements = new Map<string, Prepared>();
  readonly #cacheSize: number;

  constructor(path: string, settings: ConnectionSettings) {
    // Opening waits for another process's lock, blocking, for a while: the setup statements are run
    // here, synchronously, and `journal_mode = WAL` needs the file to itself while another process
    // creates it or turns it to WAL (two instances starting together on a new file: SQLITE_BUSY at
    // once with the write connection's timeout of 0). Only opening waits so; then the setting's own.
    this.db = new Database(path, { timeout: Math.max(settings.busyTimeout, OPEN_BUSY_TIMEOUT_MS) });
    this.#cacheSize = settings.statementCacheSize;
    try {
      for (const sql of settings.onOpen) this.execute({ sql });
      if (settings.readOnly) this.execute({ sql: "PRAGMA query_only = ON" });
      if (settings.busyTimeout < OPEN_BUSY_TIMEOUT_MS) {
        this.execute({ sql: `PRAGMA busy_timeout = ${Math.trunc(settings.busyTimeout)}` });
      }
    } catch (error) {
      this.close();
      throw error;
    }
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
