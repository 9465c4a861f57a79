import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { afterEach, expect, test } from "vitest";
import { applyMigrationsAfter, type Database, isMigrated, migrateDatabase, openDatabase } from "../../db/client.ts";
import { seedMoney } from "../../server/money/store.ts";
import { startHranaServer } from "../helpers/hrana/server.ts";

/**
 * Several instances that start together on one fresh database each apply the migrations and seed
 * it (decision 043): one does it, the others find it done, and none fails to start. Over
 * the Hrana protocol too (the "hrana" project), as instances against Turso would.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Three clients of one fresh database, as three processes would open it. */
async function threeInstances(): Promise<Database[]> {
  const dir = mkdtempSync(join(tmpdir(), "portal-migrate-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "portal.db");
  let open = () => openDatabase({ url: `file:${path}` });
  if (process.env.TEST_DATABASE === "hrana") {
    const authToken = crypto.randomUUID();
    const server = startHranaServer({ path, authToken });
    cleanups.push(() => server.close());
    open = () => openDatabase({ url: server.url, authToken });
  }
  const dbs = await Promise.all([open(), open(), open()]);
  cleanups.push(() => dbs.forEach((db) => db.$client.close()));
  return dbs;
}

test("instances that migrate one fresh database at the same moment all start, and each migration is applied once", async () => {
  const dbs = await threeInstances();
  const outcomes = await Promise.allSettled(dbs.map((db) => migrateDatabase(db)));
  expect(outcomes.map((o) => (o.status === "rejected" ? String(o.reason) : "applied"))).toEqual([
    "applied",
    "applied",
    "applied",
  ]);
  for (const db of dbs) expect(await isMigrated(db)).toBe(true);
  const rows = (await dbs[0].$client.execute("SELECT hash, count(*) AS n FROM __drizzle_migrations GROUP BY hash"))
    .rows;
  expect(rows.every((row) => Number(row.n) === 1)).toBe(true);
});

test("migrating a database that is up to date changes nothing", async () => {
  const [db] = await threeInstances();
  await migrateDatabase(db);
  const before = (await db.$client.execute("SELECT count(*) AS n FROM __drizzle_migrations")).rows[0].n;
  await migrateDatabase(db);
  expect((await db.$client.execute("SELECT count(*) AS n FROM __drizzle_migrations")).rows[0].n).toBe(before);
});

test("an instance that read the database before another migrated it applies nothing twice", async () => {
  const [first, second] = await threeInstances();
  await migrateDatabase(first);
  await first.$client.execute("INSERT INTO redirects (path, target, status, created_at) VALUES ('/kept', '/', 302, 0)");
  const tables = async () => (await first.$client.execute("SELECT count(*) AS n FROM sqlite_master")).rows[0].n;
  const before = await tables();
  // The second read "nothing applied" a moment before the first's batch committed: its batch is
  // refused at its first row, whole, and changes nothing.
  await expect(applyMigrationsAfter(second, undefined)).rejects.toThrow(/UNIQUE constraint failed/);
  expect(await tables()).toBe(before);
  expect((await first.$client.execute("SELECT count(*) AS n FROM redirects")).rows[0].n).toBe(1);
  // And migrateDatabase, reading again, finds nothing to do.
  await migrateDatabase(second);
  expect(await isMigrated(second)).toBe(true);
});

test("instances that start together on a fresh database seed one rate table and one default plan", async () => {
  const dbs = await threeInstances();
  await Promise.all(dbs.map((db) => migrateDatabase(db)));
  await Promise.all(dbs.map((db) => seedMoney(db)));
  const count = async (sql: string) => Number((await dbs[0].$client.execute(sql)).rows[0].n);
  expect(await count("SELECT count(*) AS n FROM rate_tables")).toBe(1);
  expect(await count("SELECT count(*) AS n FROM pricing_plans WHERE is_default = 1")).toBe(1);
});
