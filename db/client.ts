import type { Client } from "@libsql/client";
// The web build of the client: HTTP and WebSockets only, no native SQLite binding, so that an
// instance on a platform without native add-ons (Deno Deploy) can import this module. A local file
// loads the binding only when it is opened (openLocalFile).
import { createClient } from "@libsql/client/web";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
// Drizzle's driver for the web client: its default one imports @libsql/client's Node build.
import { drizzle } from "drizzle-orm/libsql/web";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { ensureDerived } from "./derived.ts";
import { fileURLToPath } from "node:url";

// Deliberately without the schema: we use no relational queries (db.query.*), and typing the
// database with the whole schema made every query's type check carry the schema's relations,
// deep enough that the checker gave up ("excessively deep", TS2589) depending on file order.
export type Database = LibSQLDatabase & { $client: Client };

export interface OpenOptions {
  url: string;
  authToken?: string;
}

const MIGRATIONS_FOLDER = fileURLToPath(new URL("./migrations", import.meta.url));

/**
 * Opens the portal database: a local libSQL file by default, or Turso when the URL is
 * libsql:// or https:// (with DATABASE_AUTH_TOKEN). Same code either way.
 */
export async function openDatabase({ url, authToken }: OpenOptions): Promise<Database> {
  const client = url.startsWith("file:")
    ? await openLocalFile(url.slice("file:".length))
    : createClient({ url, authToken });
  return drizzle(client) as Database;
}

/**
 * A local file, through our client (db/local-client.ts: prepared statements kept, one write
 * connection behind a mutex, read connections beside it; an in-memory database, one per
 * connection, stays with @libsql/client). Every connection is set up alike: foreign keys on, and
 * synchronous=FULL so that every commit is durable (the WAL is synced at each commit), which a
 * ledger needs. WAL lets readers run beside the writer. Other processes on the same file (a second
 * instance, deno task admin:create beside the server) are waited for asynchronously (decision 013).
 */
async function openLocalFile(path: string): Promise<Client> {
  // Imported here, not above: these load the native SQLite binding (decision 043).
  if (!path || path === ":memory:") return (await import("@libsql/client")).createClient({ url: `file:${path}` });
  const { LocalClient } = await import("./local-client.ts");
  mkdirSync(dirname(path), { recursive: true });
  return new LocalClient(path, {
    onOpen: [
      "PRAGMA journal_mode = WAL",
      "PRAGMA synchronous = FULL",
      "PRAGMA foreign_keys = ON",
      "PRAGMA cache_size = -32000",
    ],
  });
}

const MIGRATIONS_TABLE = "__drizzle_migrations";

/**
 * Applies the committed drizzle-kit migrations; safe to run on every start, and by several
 * instances starting together on one database (decision 043). Drizzle's own `migrate` reads which
 * migrations are applied and then applies the rest in a second step, so two instances that read at
 * the same moment would both apply them (the second failing on "table already exists", or, for a
 * migration that only changes rows, applying it twice). Here the same table and rows are written
 * as drizzle writes them, but each migration's row goes in first, in the same batch as its
 * statements, under a unique index on its hash: an instance that arrives second fails on that row
 * before any statement runs, its batch rolls back whole, and it reads again and finds nothing to do.
 */
export async function migrateDatabase(db: Database): Promise<void> {
  await db.$client.execute(
    `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)`,
  );
  await db.$client.execute(
    `CREATE UNIQUE INDEX IF NOT EXISTS ${MIGRATIONS_TABLE}_hash ON ${MIGRATIONS_TABLE} (hash)`,
  );
  for (let attempt = 1;; attempt++) {
    const last = await db.$client.execute(
      `SELECT created_at FROM ${MIGRATIONS_TABLE} ORDER BY created_at DESC LIMIT 1`,
    );
    const lastApplied = last.rows.length ? Number(last.rows[0].created_at) : undefined;
    try {
      await applyMigrationsAfter(db, lastApplied);
      // The search tables and the triggers the schema cannot say (decision 052).
      await ensureDerived(db.$client);
      return;
    } catch (error) {
      // Another instance applied them between our read and our batch: read again.
      if (attempt >= 3 || !String(error).includes("UNIQUE constraint failed")) throw error;
    }
  }
}

/**
 * Applies, in one batch, every migration newer than `lastApplied` (the created_at of the newest
 * applied one, as read; undefined when none is): exported so that a test can play the instance
 * whose read came before another instance's batch.
 */
export async function applyMigrationsAfter(db: Database, lastApplied: number | undefined): Promise<void> {
  const pending = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER })
    .filter((migration) => lastApplied === undefined || lastApplied < migration.folderMillis);
  if (!pending.length) return;
  // The client runs the batch in one write transaction with foreign keys off, as drizzle's did:
  // a migration that rebuilds a table must not cascade its DROP.
  await db.$client.migrate(pending.flatMap((migration) => [
    {
      sql: `INSERT INTO ${MIGRATIONS_TABLE} ("hash", "created_at") VALUES (?, ?)`,
      args: [migration.hash, migration.folderMillis],
    },
    ...migration.sql,
  ]));
}

/**
 * Opens and migrates in one step (with the derived tables and triggers): what tests and benchmarks
 * do. The portal and its tools migrate with server/migrate.ts `migratePortal`, which also runs the
 * data changes after the migrations (business code, which db/ does not import).
 */
export async function openMigratedDatabase(options: OpenOptions): Promise<Database> {
  const db = await openDatabase(options);
  await migrateDatabase(db);
  return db;
}

/** Whether every committed migration has been applied (the health check asks this). */
export async function isMigrated(db: Database): Promise<boolean> {
  const journal = JSON.parse(readFileSync(`${MIGRATIONS_FOLDER}/meta/_journal.json`, "utf8")) as {
    entries: unknown[];
  };
  try {
    const result = await db.$client.execute("SELECT count(*) AS n FROM __drizzle_migrations");
    return Number(result.rows[0].n) >= journal.entries.length;
  } catch {
    return false;
  }
}
