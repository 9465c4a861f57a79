/**
 * deno task restore PATH [--force]: puts the backup at PATH (made by `deno task backup`) in place
 * of the portal's database file (DATABASE_URL, else file:data/portal.db) (decision 041).
 *
 * Refuses:
 * - while a portal process has the file open (each holds a shared lock on `<file>-portal`,
 *   db/presence.ts): stop every portal first; one started meanwhile waits until the restore ends;
 * - when the database file exists, unless --force: the old file is then kept beside it as
 *   `<file>.before-restore-<time>` (with its -wal and -shm), never deleted;
 * - a backup that is damaged or not a portal database;
 * - a remote database (Turso restores its own: docs/DEPLOYMENT.md, Backups).
 *
 * Exit status: 0 restored, 1 refused or failed, 2 a remote database.
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { takeAlone } from "../db/presence.ts";
import { localPathOf, restoreLocalFile, verifyBackup } from "../server/ops/backups.ts";
import { loadConfig } from "../server/config.ts";

const force = Deno.args.includes("--force");
const backup = Deno.args.find((arg) => !arg.startsWith("--"));
if (!backup) {
  console.error("Usage: deno task restore PATH [--force]   (into DATABASE_URL's file, else data/portal.db)");
  Deno.exit(1);
}
const url = loadConfig().databaseUrl;
const target = localPathOf(url);
if (target === null) {
  console.error(
    `The database is remote (${url.replace(/\/\/[^@/]*@/, "//")}): restore it with Turso's point-in-time\n` +
      "restore (turso db create NEW-NAME --from-db DATABASE-NAME --timestamp ...), or load a dump into a new\n" +
      "database (turso db create NEW-NAME --from-dump backup.sql), then point DATABASE_URL at it.",
  );
  Deno.exit(2);
}
if (!existsSync(backup)) {
  console.error(`No backup at ${backup}.`);
  Deno.exit(1);
}
if (existsSync(target) && !force) {
  console.error(
    `${target} exists: restoring would replace it. Stop every portal process, then run again with --force\n` +
      `(the current file is kept beside it as ${target}.before-restore-<time>).`,
  );
  Deno.exit(1);
}

mkdirSync(dirname(target), { recursive: true });
const alone = await takeAlone(target);
if (!alone) {
  console.error(`A portal process has ${target} open: stop every portal process first, then restore.`);
  // Exiting drops the lock request that is still waiting.
  Deno.exit(1);
}
try {
  const summary = await verifyBackup(backup);
  const aside = await restoreLocalFile(backup, target);
  console.log(
    `Restored ${backup} into ${target}: ${summary.transfers} ledger transfers (the last #${
      summary.lastTransferId ?? "none"
    }).` + (aside ? ` The previous database is kept as ${aside}.` : ""),
  );
  console.log(`Check it before starting the portal: deno task ledger:check file:${target}`);
} catch (error) {
  console.error(`The restore failed: ${error instanceof Error ? error.message : error}`);
  Deno.exit(1);
} finally {
  alone.release();
}
