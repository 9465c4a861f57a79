import type { InArgs, ResultSet } from "@libsql/client";
import { type Column, getTableColumns, type Table } from "drizzle-orm";
import type { Database } from "./client.ts";

/**
 * Fixed SQL for the hot paths, run on the libSQL connection under a Drizzle database or
 * transaction.
 *
 * Why: Drizzle builds a query's SQL text from its builder on every call (≈ 100–300 µs of CPU for
 * a small query, most of it in its `is()` entity checks), several times what SQLite then spends
 * running it. The ledger and a conversion's execution run ~15 statements per request, so they are
 * written as fixed SQL texts instead, which the local client prepares once per connection and
 * reuses (db/local-client.ts), as are the reads of every signed-in request (the session, the user
 * and their summary, the account). Rows come back through the schema's column mappings
 * (`fromColumns`). Everything else keeps Drizzle's query builders.
 */

/** A Drizzle transaction on the portal database (what `db.transaction` hands its callback). */
export type Tx = Parameters<Parameters<Database["transaction"]>[0]>[0];

/**
 * A LIKE pattern that finds `text` anywhere, its own `%`, `_` and `\\` taken literally. Use it with
 * `ESCAPE '\\'` after the LIKE, so that a customer searching "50%" finds "50%" and not everything.
 */
export const likeContaining = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export interface SqlRunner {
  execute(stmt: { sql: string; args?: InArgs }): Promise<ResultSet>;
  /** The local client's cheaper execute for a statement that returns at most one row. */
  executeOne?(stmt: { sql: string; args?: InArgs }): Promise<ResultSet>;
}

/**
 * The libSQL object that runs a Drizzle executor's statements: the transaction's own connection
 * inside `db.transaction` (savepoints included), else the client. It reads Drizzle's session (not
 * part of its typed API, stable across 0.x); tests/integration/local-client.test.ts fails if a
 * Drizzle upgrade moves it, rather than letting statements run outside their transaction.
 */
export function sqlRunner(executor: Database | Tx): SqlRunner {
  const session = (executor as unknown as { session?: { tx?: SqlRunner; client?: SqlRunner } }).session;
  const runner = session?.tx ?? session?.client;
  if (!runner || typeof runner.execute !== "function") {
    throw new Error("sqlRunner: this Drizzle version keeps its libSQL client elsewhere (see db/sql.ts).");
  }
  return runner;
}

/** Whether the executor is a transaction (or a savepoint in one) rather than the database. */
export function isTransaction(executor: Database | Tx): executor is Tx {
  return (executor as unknown as { session?: { tx?: unknown } }).session?.tx != null;
}

/**
 * Runs `work` in a savepoint of the transaction: if it throws, what it wrote is rolled back and
 * the transaction goes on. Drizzle's `tx.transaction()` does the same, but builds a new Drizzle
 * transaction object (with its relational query builders) every time; this reuses `tx`. The name
 * is fixed so that the statements stay prepared; SQLite matches nested savepoints of one name
 * innermost first.
 */
export async function withSavepoint<T>(
  tx: Tx,
  name: "grouped_work" | "movement",
  work: (tx: Tx) => Promise<T>,
): Promise<T> {
  const runner = sqlRunner(tx);
  await runner.execute({ sql: `SAVEPOINT ${name}` });
  try {
    const result = await work(tx);
    await runner.execute({ sql: `RELEASE ${name}` });
    return result;
  } catch (error) {
    try {
      // ROLLBACK TO keeps the savepoint open: RELEASE ends it (nothing of it is kept).
      await runner.execute({ sql: `ROLLBACK TO ${name}` });
      await runner.execute({ sql: `RELEASE ${name}` });
    } catch (rollbackError) {
      throw new SavepointLost(error, rollbackError);
    }
    throw error;
  }
}

/**
 * The work failed and its savepoint could not be rolled back: what it wrote may still be in the
 * transaction, so the whole transaction must be rolled back (let this error reach it).
 */
export class SavepointLost extends Error {
  constructor(readonly original: unknown, readonly rollbackError: unknown) {
    super(
      `A savepoint could not be rolled back (${
        rollbackError instanceof Error ? rollbackError.message : rollbackError
      }) after: ${original instanceof Error ? original.message : original}`,
    );
    this.name = "SavepointLost";
  }
}

/** Runs one statement and answers its rows as plain objects keyed by column name. */
export async function rowsOf<T>(executor: Database | Tx, sql: string, args: InArgs = []): Promise<T[]> {
  const result = await sqlRunner(executor).execute({ sql, args });
  return result.rows as unknown as T[];
}

/**
 * Runs a statement that returns at most one row (a lookup by a unique key, one row's INSERT or
 * UPDATE … RETURNING) and answers that row, or undefined. Cheaper than `rowsOf` on a local file.
 */
export async function rowOf<T>(executor: Database | Tx, sql: string, args: InArgs = []): Promise<T | undefined> {
  const runner = sqlRunner(executor);
  const result = runner.executeOne ? await runner.executeOne({ sql, args }) : await runner.execute({ sql, args });
  return result.rows[0] as unknown as T | undefined;
}

const columnsOf = new WeakMap<Table, Array<[string, Column]>>();

/**
 * A table's row as Drizzle gives it (property names, booleans, dates, JSON), from a row of fixed
 * SQL that selected the table's columns by their SQL names: the schema's own column mappings, so
 * no hand-written copy of them.
 */
export function fromColumns<T extends Table>(table: T, row: Record<string, unknown>): T["$inferSelect"] {
  let columns = columnsOf.get(table);
  if (!columns) columnsOf.set(table, columns = Object.entries(getTableColumns(table)));
  const mapped: Record<string, unknown> = {};
  for (const [key, column] of columns) {
    const value = row[column.name];
    mapped[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return mapped as T["$inferSelect"];
}

/** A table's columns by their SQL names, for fixed SQL that `fromColumns` reads back. */
export function columnList(table: Table, alias?: string): string {
  return Object.values(getTableColumns(table)).map((
    column,
  ) => (alias ? `${alias}."${column.name}"` : `"${column.name}"`)).join(", ");
}

/** Runs one statement that returns no rows; answers how many rows it changed. */
export async function run(executor: Database | Tx, sql: string, args: InArgs = []): Promise<number> {
  const result = await sqlRunner(executor).execute({ sql, args });
  return result.rowsAffected;
}

/**
 * A Drizzle query built once per database and reused with `sql.placeholder` values, for frequent
 * reads outside transactions (a user by id). Never call one inside a transaction's callback: it
 * runs on the client, outside the transaction.
 */
export function preparedQuery<Q>(build: (db: Database) => Q): (db: Database) => Q {
  const byDatabase = new WeakMap<Database, Q>();
  return (db) => {
    let query = byDatabase.get(db);
    if (query === undefined) {
      query = build(db);
      byDatabase.set(db, query);
    }
    return query;
  };
}
