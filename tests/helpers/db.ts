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
  const dir = mkdtempSync(join(tmpdir(), "portal-test-"));
  const db = await openMigratedDatabase({ url: `file:${join(dir, "portal.db")}` });
  afterAll(() => {
    db.$client.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return db;
}
