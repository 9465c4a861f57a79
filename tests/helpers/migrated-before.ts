import { migrate } from "drizzle-orm/libsql/migrator";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { type Database, openDatabase } from "../../db/client.ts";

const MIGRATIONS = fileURLToPath(new URL("../../db/migrations", import.meta.url));

export interface DatabaseBefore {
  db: Database;
  /** Runs one SQL statement on it: the rows of the time are written as they were, not by today's code. */
  sql(text: string, args?: unknown[]): ReturnType<Database["$client"]["execute"]>;
  /** Closes the database and removes its folder: call it in the test's `finally`. */
  dispose(): void;
}

/**
 * A database file migrated up to just before the migration whose tag matches `tag`: the state a
 * real database was in when that migration shipped. A test writes the rows of the time, then runs
 * `migrateDatabase` and checks what the migration made of them.
 */
export async function databaseBefore(tag: RegExp): Promise<DatabaseBefore> {
  const dir = mkdtempSync(join(tmpdir(), "portal-migration-"));
  const before = join(dir, "migrations");
  cpSync(MIGRATIONS, before, { recursive: true });
  const journalPath = join(before, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { tag: string }[] };
  const index = journal.entries.findIndex((entry) => tag.test(entry.tag));
  expect(index, `the migration ${tag} is in the journal`).toBeGreaterThan(0);
  writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, index) }));

  const db = await openDatabase({ url: `file:${join(dir, "portal.db")}` });
  await migrate(db, { migrationsFolder: before });
  return {
    db,
    sql: (text, args = []) => db.$client.execute({ sql: text, args: args as never }),
    dispose() {
      db.$client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
