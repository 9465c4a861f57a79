/**
 * deno task backup PATH: writes a consistent copy of the portal's database (DATABASE_URL, else
 * file:data/portal.db) to PATH, while the portal keeps running (decision 041).
 *
 * A local file is copied with SQLite's `VACUUM INTO`, which reads one snapshot of the database
 * (a read transaction: the portal's writes go on beside it and none is half in the copy) and
 * writes it compacted, to `PATH.partial`; the copy is checked (PRAGMA quick_check), synced to the
 * disk and then renamed to PATH, so that PATH is either absent or a whole backup. An existing PATH
 * is never overwritten. A remote libSQL database (Turso) is not copied here: see the message
 * below and docs/DEPLOYMENT.md, Backups.
 *
 * Exit status: 0 done, 1 refused or failed, 2 a remote database.
 */
import { existsSync, renameSync, rmSync } from "node:fs";
import { backupLocalFile, localPathOf } from "../server/ops/backups.ts";
import { loadConfig } from "../server/config.ts";

const target = Deno.args.find((arg) => !arg.startsWith("--"));
if (!target) {
  console.error("Usage: deno task backup PATH   (the database is DATABASE_URL's, else file:data/portal.db)");
  Deno.exit(1);
}
const url = loadConfig().databaseUrl;
const source = localPathOf(url);
if (source === null) {
  console.error(
    `The database is remote (${url.replace(/\/\/[^@/]*@/, "//")}): this task copies local files only.\n` +
      "Turso keeps the backups of a remote database itself: restore a moment of the past with\n" +
      "  turso db create NEW-NAME --from-db DATABASE-NAME --timestamp 2026-11-27T10:00:00Z\n" +
      "or take a copy of your own with\n" +
      "  turso db shell DATABASE-NAME .dump > backup.sql\n" +
      "(docs/DEPLOYMENT.md, Backups).",
  );
  Deno.exit(2);
}
if (!existsSync(source)) {
  console.error(`No database file at ${source}.`);
  Deno.exit(1);
}
if (existsSync(target)) {
  console.error(`${target} exists already: a backup never overwrites a file. Choose another path.`);
  Deno.exit(1);
}

const partial = `${target}.partial`;
rmSync(partial, { force: true });
try {
  const started = performance.now();
  const summary = await backupLocalFile(source, partial);
  renameSync(partial, target);
  console.log(
    `Backed up ${source} to ${target}: ${summary.bytes} bytes, ${summary.transfers} ledger transfers ` +
      `(the last #${summary.lastTransferId ?? "none"}), in ${Math.round(performance.now() - started)} ms.`,
  );
} catch (error) {
  rmSync(partial, { force: true });
  console.error(`The backup failed: ${error instanceof Error ? error.message : error}`);
  Deno.exit(1);
}
