import Database from "libsql";
import { Buffer } from "node:buffer";
import { type Col, StatementError, type StmtResult, type Value } from "./protocol.ts";

/**
 * One SQLite connection behind a Hrana stream: runs one statement with its arguments and answers
 * in the protocol's shapes (integers as strings, blobs in base64, the declared type of each
 * column). Errors are reported as libSQL's server reports them: "SQLite error: …" with the base
 * code's name (SQLITE_CONSTRAINT, SQLITE_BUSY, …) and no extended code.
 */

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
  17: "SQLITE_SCHEMA",
  18: "SQLITE_TOOBIG",
  19: "SQLITE_CONSTRAINT",
  20: "SQLITE_MISMATCH",
  21: "SQLITE_MISUSE",
  22: "SQLITE_NOLFS",
  23: "SQLITE_AUTH",
  25: "SQLITE_RANGE",
  26: "SQLITE_NOTADB",
};
const SQLITE_BUSY = 5;
/** SQLite's "the snapshot is stale": waiting cannot help, only a new transaction can. */
const SQLITE_BUSY_SNAPSHOT = 517;

/** SQLite's own error, kept with its raw code so the server can tell a lock it may wait for. */
export class SqliteFailure extends StatementError {
  constructor(message: string, readonly rawCode: number) {
    super(`SQLite error: ${message}`, SQLITE_CODES[rawCode & 0xff] ?? "SQLITE_UNKNOWN");
  }

  /** Another connection holds the write lock: the statement did nothing and may run again later. */
  get waitable(): boolean {
    return (this.rawCode & 0xff) === SQLITE_BUSY && this.rawCode !== SQLITE_BUSY_SNAPSHOT;
  }
}

function failure(error: unknown): unknown {
  if (error instanceof Database.SqliteError) {
    const { rawCode } = error as unknown as { rawCode?: number };
    return new SqliteFailure((error as Error).message, rawCode ?? 1);
  }
  return error;
}

const MIN_INT64 = -(2n ** 63n);
const MAX_INT64 = 2n ** 63n - 1n;

function fromProto(value: Value): unknown {
  switch (value.type) {
    case "null":
      return null;
    case "integer": {
      const integer = BigInt(value.value);
      if (integer < MIN_INT64 || integer > MAX_INT64) {
        throw new StatementError(`Integer ${value.value} does not fit in 64 bits`, "ARGS_INVALID");
      }
      return integer;
    }
    case "float":
      return value.value;
    case "text":
      return value.value;
    case "blob":
      return Buffer.from(value.base64, "base64");
  }
}

function toProto(value: unknown): Value {
  if (value === null || value === undefined) return { type: "null" };
  if (typeof value === "bigint") return { type: "integer", value: value.toString() };
  if (typeof value === "number") return { type: "float", value };
  if (typeof value === "string") return { type: "text", value };
  if (value instanceof Uint8Array) return { type: "blob", base64: Buffer.from(value).toString("base64") };
  throw new Error(`The binding answered a value of an unexpected kind: ${typeof value}`);
}

export interface Arguments {
  positional: Value[];
  named: Array<{ name: string; value: Value }>;
}

function bind(args: Arguments): unknown[] | Record<string, unknown> {
  if (args.named.length === 0) return args.positional.map(fromProto);
  if (args.positional.length > 0) {
    throw new StatementError(
      "Specifying both positional and named arguments is not supported",
      "ARGS_BOTH_POSITIONAL_AND_NAMED",
    );
  }
  // The binding takes names without their sign (:name, @name, $name).
  const named: Record<string, unknown> = {};
  for (const { name, value } of args.named) named[/^[:@$]/.test(name) ? name.slice(1) : name] = fromProto(value);
  return named;
}

interface Prepared {
  statement: Database.Statement;
  reader: boolean;
  cols: Col[];
}

export class SqliteConnection {
  readonly #db: Database.Database;
  readonly #prepared = new Map<string, Prepared>();
  readonly #changes: Database.Statement;

  constructor(path: string) {
    // No busy timeout: the binding would wait by blocking the server's only thread, the one the
    // connection holding the lock needs to finish. The server waits for the lock asynchronously.
    this.#db = new Database(path, { timeout: 0 });
    this.#changes = this.#db.prepare("SELECT total_changes(), last_insert_rowid()");
    this.#changes.raw(true);
    this.#changes.safeIntegers(true);
  }

  get inTransaction(): boolean {
    return this.#db.open && this.#db.inTransaction;
  }

  #prepare(sql: string): Prepared {
    let prepared = this.#prepared.get(sql);
    if (!prepared) {
      const statement = this.#db.prepare(sql);
      statement.safeIntegers(true);
      const reader = statement.reader as boolean;
      if (reader) statement.raw(true);
      prepared = { statement, reader, cols: [] };
      this.#prepared.set(sql, prepared);
    }
    if (prepared.reader) {
      // Described at every run: another connection may have changed the table (SELECT *).
      const columns = prepared.statement.columns() as Array<{ name: string; type: string | null }>;
      prepared.cols = columns.map((column) => ({ name: column.name, decltype: column.type }));
    }
    return prepared;
  }

  /** Runs one statement; throws a StatementError when SQLite refuses it. */
  execute(sql: string, args: Arguments, wantRows: boolean): StmtResult {
    try {
      const { statement, reader, cols } = this.#prepare(sql);
      const bound = bind(args);
      if (reader) {
        const [before] = this.#changes.get() as [bigint, bigint];
        const rows = statement.all(bound) as unknown[][];
        const [after, lastInsertRowid] = this.#changes.get() as [bigint, bigint];
        return {
          cols,
          rows: wantRows ? rows.map((row) => row.map(toProto)) : [],
          affected_row_count: Number(after - before),
          last_insert_rowid: lastInsertRowid.toString(),
        };
      }
      const info = statement.run(bound) as { changes: number; lastInsertRowid: number | bigint };
      return {
        cols: [],
        rows: [],
        affected_row_count: info.changes,
        last_insert_rowid: BigInt(info.lastInsertRowid).toString(),
      };
    } catch (error) {
      throw failure(error);
    }
  }

  /** Back to a clean state for the next stream: no transaction, the settings libSQL starts with. */
  reset(): void {
    if (this.inTransaction) this.#db.exec("ROLLBACK");
    this.#db.exec("PRAGMA foreign_keys = ON");
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}
