import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { type Database, openMigratedDatabase } from "../../db/client.ts";
import { startHranaServer } from "./hrana/server.ts";

/**
 * A fresh, migrated database in its own temporary file, removed when the test file ends.
 * Each test file gets its own, so files can run in parallel without seeing each other's rows.
 *
 * With TEST_DATABASE=hrana (the vitest project "hrana", decision 014), the same file is reached as
 * Turso would be: through @libsql/client over HTTP, to a test server speaking libSQL's Hrana
 * protocol in front of it (tests/helpers/hrana/server.ts). Migrations go through it too.
 */
export async function testDatabase(): Promise<Database> {
  return (await testDatabaseFile()).db;
}

/** Whether this run reaches its databases over the Hrana protocol (decision 014). */
const overHrana = process.env.TEST_DATABASE === "hrana";

/** testDatabase, with the path of its file (for a test that opens the file another way too). */
export async function testDatabaseFile(): Promise<{ db: Database; path: string }> {
  const { db, path, close } = await openTestDatabase();
  afterAll(close);
  return { db, path };
}

/**
 * A fresh, migrated database that the caller closes (a fixture's cleanup): `afterAll` registers
 * nothing once the tests run, so a database opened inside a test or a fixture is closed this way.
 */
export async function openTestDatabase(): Promise<{ db: Database; path: string; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "portal-test-"));
  const path = join(dir, "portal.db");
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  if (!overHrana) {
    const db = await openMigratedDatabase({ url: `file:${path}` });
    return {
      db,
      path,
      close: () => {
        db.$client.close();
        removeDir();
        return Promise.resolve();
      },
    };
  }
  const authToken = crypto.randomUUID();
  // Under a loaded CI machine the last of twenty writers waits for nineteen others: the lock wait is
  // generous, as a Turso primary's busy timeout is not what these tests check.
  const server = startHranaServer({ path, authToken, lockWaitMs: 30_000 });
  const db = await openMigratedDatabase({ url: server.url, authToken });
  return {
    db,
    path,
    close: async () => {
      db.$client.close();
      await server.close();
      removeDir();
    },
  };
}
