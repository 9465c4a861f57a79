import { type Database, migrateDatabase } from "../db/client.ts";
import { backfillAssignments } from "./partners/assignments.ts";
import { backfillFunded } from "./partners/funded.ts";

/**
 * Everything a database goes through before the portal serves from it, in order, in one place:
 * main.ts (when the instance migrates itself) and `deno task db:migrate` (scripts/db-migrate.ts,
 * for a release with MIGRATE_ON_START=0) both call `migratePortal`, so the two cannot drift.
 *
 * 1. The committed migrations, then what the schema cannot say: the search tables and the triggers
 *    (db/derived.ts `ensureDerived`, decision 052). Both are in `migrateDatabase` (db/client.ts):
 *    they are the schema, pure SQL, which every database the code opens needs (the tests' and the
 *    tools' through `openMigratedDatabase` too).
 * 2. The data changes that run once after the migrations (`DATA_STEPS`, decision 055): done, each
 *    does nothing. They are here and not in db/ because they are business code (server/partners
 *    knows what "funded" means), and db/ imports nothing from server/.
 */
export async function migratePortal(db: Database): Promise<void> {
  await migrateDatabase(db);
  for (const step of DATA_STEPS) await step(db);
}

/** The data changes after the migrations, in the order they run; add a new one here. */
const DATA_STEPS: readonly ((db: Database) => Promise<unknown>)[] = [
  // users.funded_at from the ledger, for a database whose receipts came before the column.
  backfillFunded,
  // One partner_assignments row from sign-up for each customer with a partner before the history (decision 062).
  backfillAssignments,
];
