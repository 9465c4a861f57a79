/**
 * deno task db:migrate [DATABASE_URL]: applies the committed migrations (db/migrations) to a
 * database (the argument, else DATABASE_URL with DATABASE_AUTH_TOKEN, else file:data/portal.db)
 * and writes the first rates and the default plan when there are none, then exits: the step a
 * release runs once, before its instances start, where they do not migrate themselves
 * (MIGRATE_ON_START=0, and deploy.ts always; decision 043). Safe to run again, and beside running
 * instances or another run of itself: each migration is applied once.
 */
import { isMigrated, openDatabase } from "../db/client.ts";
import { loadConfig } from "../server/config.ts";
import { seedMoney } from "../server/money/store.ts";
import { migratePortal } from "../server/migrate.ts";

const config = loadConfig();
const url = Deno.args[0] ?? config.databaseUrl;
const authToken = Deno.args[0] ? Deno.env.get("DATABASE_AUTH_TOKEN") : config.databaseAuthToken;
// The address without a password or token that may be in it, for the log.
const shown = url.replace(/\/\/[^@/]*@/, "//");

const applied = async (db: Awaited<ReturnType<typeof openDatabase>>) => {
  try {
    return Number((await db.$client.execute("SELECT count(*) AS n FROM __drizzle_migrations")).rows[0].n);
  } catch {
    return 0;
  }
};

let exitCode = 0;
try {
  const db = await openDatabase({ url, authToken });
  try {
    const before = await applied(db);
    // The migrations and every step after them, as an instance that migrates at start does.
    await migratePortal(db);
    await seedMoney(db);
    const after = await applied(db);
    if (!(await isMigrated(db))) throw new Error("the migrations did not all apply");
    console.log(
      after === before
        ? `${shown}: up to date (${after} migrations).`
        : `${shown}: applied ${after - before} migrations (${after} in all).`,
    );
  } finally {
    db.$client.close();
  }
} catch (error) {
  console.error(`db:migrate: ${shown}: ${error instanceof Error ? error.message : error}`);
  exitCode = 1;
}
Deno.exit(exitCode);
