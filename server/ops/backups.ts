/**
 * Backups of a local database file and their restore (decision 041; scripts/backup.ts and
 * scripts/restore.ts are the commands).
 */
import { createClient } from "@libsql/client";
import { copyFileSync, existsSync, renameSync, statSync } from "node:fs";

/** The file of a `file:` URL, or null for a remote database (libsql://, https://...). */
export function localPathOf(url: string): string | null {
  if (!url.startsWith("file:")) return null;
  const path = url.slice("file:".length).split("?")[0];
  return path && path !== ":memory:" ? path : null;
}

export interface BackupSummary {
  bytes: number;
  transfers: number;
  lastTransferId: number | null;
}

/**
 * Copies the database at `source` to `target` (which must not exist) with VACUUM INTO: one read
 * transaction, so one consistent moment of the database, taken beside the running portal's writes
 * (in WAL mode a reader neither waits for the writer nor stops it). The copy is then checked and
 * synced to the disk.
 */
export async function backupLocalFile(source: string, target: string): Promise<BackupSummary> {
  const client = createClient({ url: `file:${source}` });
  try {
    // A reader waits only while another process recovers the log after a crash: briefly.
    await client.execute("PRAGMA busy_timeout = 5000");
    await client.execute({ sql: "VACUUM INTO ?", args: [target] });
  } finally {
    client.close();
  }
  const summary = await verifyBackup(target);
  const file = await Deno.open(target, { read: true, write: true });
  try {
    await file.sync();
  } finally {
    file.close();
  }
  return summary;
}

/**
 * Whether `path` is a whole portal database: SQLite's quick check passes and the migrations table
 * is there. Answers what it holds; throws saying what is wrong.
 */
export async function verifyBackup(path: string): Promise<BackupSummary> {
  const client = createClient({ url: `file:${path}` });
  try {
    const check = await client.execute("PRAGMA quick_check");
    const verdict = check.rows.map((row) => String(row[0]));
    if (verdict.join() !== "ok") throw new Error(`${path} is damaged: ${verdict.slice(0, 5).join("; ")}`);
    const migrated = await client.execute(
      "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('__drizzle_migrations', 'ledger_transfers')",
    );
    if (Number(migrated.rows[0].n) !== 2) throw new Error(`${path} is not a portal database.`);
    const transfers = await client.execute("SELECT count(*) AS n, max(id) AS last FROM ledger_transfers");
    const row = transfers.rows[0];
    return {
      bytes: statSync(path).size,
      transfers: Number(row.n),
      lastTransferId: row.last === null ? null : Number(row.last),
    };
  } finally {
    client.close();
  }
}

/**
 * Puts the backup at `backup` in place of the database file `target`, the caller having made
 * sure that no portal has the file open (db/presence.ts). The backup is copied beside the target
 * first and renamed over it, so the target is at every moment either the old database or the
 * whole backup. An existing target is kept, renamed to `<target>.before-restore-<time>`, with its
 * -wal and -shm files: a log left beside the restored file would be replayed onto it by SQLite
 * and damage it. Answers the path the old database was moved to, if there was one.
 */
export async function restoreLocalFile(backup: string, target: string, now = new Date()): Promise<string | null> {
  const incoming = `${target}.restoring`;
  copyFileSync(backup, incoming);
  const file = await Deno.open(incoming, { read: true, write: true });
  try {
    await file.sync();
  } finally {
    file.close();
  }
  let aside: string | null = null;
  if (existsSync(target)) {
    aside = `${target}.before-restore-${now.toISOString().replace(/[:.]/g, "-")}`;
    renameSync(target, aside);
  }
  for (const suffix of ["-wal", "-shm"]) {
    if (!existsSync(target + suffix)) continue;
    renameSync(target + suffix, (aside ?? `${target}.stale-${now.getTime()}`) + suffix);
  }
  renameSync(incoming, target);
  return aside;
}
