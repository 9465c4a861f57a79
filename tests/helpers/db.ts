import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { type Database, openMigratedDatabase } from "../../db/client.ts";

/**
 * A fresh, migrated database in its own temporary file, removed when the test file ends.
 * Each test file gets its own, so files can run in parallel without seeing each other's rows.
 */
export async function testDatabase(): Promise<Database> {
  return (await testDatabaseFile()).db;
}

/** testDatabase, with the path of its file (for a test that opens the file another way too). */
export async function testDatabaseFile(): Promise<{ db: Database; path: string }> {
  const dir = mkdtempSync(join(tmpdir(), "portal-test-"));
  const path = join(dir, "portal.db");
  const db = await openMigratedDatabase({ url: `file:${path}` });
  afterAll(() => {
    db.$client.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { db, path };
}
