/**
 * `deno task backup` under write load, and `deno task restore` (decision 041): the real portal
 * (main.ts) converts all the while (two customers, four loops of quote + execute over HTTP); the
 * backup is taken in the middle of the stream, restored into a new file, and then
 * - the ledger check passes on the restored file (scripts/ledger-check.ts exits 0);
 * - every conversion acknowledged (answered 201) before the backup started is in it, with its
 *   ledger transfer;
 * - the portal kept converting while the backup ran (it was taken under load, not in a pause);
 * - restore refuses to overwrite a file without --force, and refuses a file a running portal has
 *   open even with --force (the running portal's file is left as it was).
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, test, vi } from "vitest";
import { type Database, openDatabase } from "../../db/client.ts";
import { checkLedger, formatReport } from "../../server/ledger/check.ts";
import { missingConversions, startConversions } from "../helpers/conversion-stream.ts";
import { createAdminOverHttp, fundedCustomerOverHttp, type HttpCustomer } from "../helpers/http-customer.ts";
import { type RunningServer, startServer } from "../helpers/server.ts";

vi.setConfig({ testTimeout: 240_000 });

const ENV = {
  APP_ENV: "test",
  APP_SECRET: crypto.randomUUID(),
  QUOTE_VALIDITY_SECONDS: "600",
  // Funding of 100,000 would otherwise wait for a second administrator (decision 026).
  RECEIPT_APPROVAL_GBP: "10000000",
};
const FUNDS: Record<string, string> = { GBP: "100000.00", EUR: "100000.00" };

let server: RunningServer | null = null;
afterAll(async () => {
  await server?.stop();
});

/** Runs a task (deno task NAME ...args) with DATABASE_URL; answers its exit code and output. */
async function task(name: string, args: string[], databaseUrl: string) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", name, ...args],
    env: { DATABASE_URL: databaseUrl, APP_ENV: "test" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: output.code, said: decoder.decode(output.stdout) + decoder.decode(output.stderr) };
}

test("a backup taken while the portal converts restores into a database whose ledger checks out, with every acknowledged conversion", async () => {
  server = await startServer("main.ts", ENV);
  const live = join(server.dataDir, "portal.db");
  const mailbox = await openDatabase({ url: `file:${live}` });
  let customers: HttpCustomer[];
  try {
    const admin = await createAdminOverHttp(server.url, mailbox);
    customers = [
      await fundedCustomerOverHttp(server.url, mailbox, admin, { funds: FUNDS, first: "Backup", last: "One" }),
      await fundedCustomerOverHttp(server.url, mailbox, admin, { funds: FUNDS, first: "Backup", last: "Two" }),
    ];
  } finally {
    mailbox.$client.close();
  }

  const stream = startConversions(customers, { loops: 4 });
  await stream.answeredAtLeast(20);
  const acknowledged = [...stream.answered];
  const backupPath = join(server.dataDir, "backups", "portal-backup.db");
  Deno.mkdirSync(join(server.dataDir, "backups"));
  const backup = await task("backup", [backupPath], `file:${live}`);
  const answeredDuringBackup = stream.answered.length - acknowledged.length;
  await stream.answeredAtLeast(stream.answered.length + 10);
  const { unexpected } = await stream.stop();
  expect(unexpected, "answers while the backup ran").toEqual([]);
  expect(backup.code, backup.said).toBe(0);
  expect(backup.said).toMatch(/Backed up .* ledger transfers/);
  expect(existsSync(`${backupPath}.partial`)).toBe(false);
  // Under load: the portal answered conversions while the copy was being made.
  expect(answeredDuringBackup, "conversions answered while the backup ran").toBeGreaterThan(0);

  // A second backup to the same path is refused: a backup never overwrites.
  const again = await task("backup", [backupPath], `file:${live}`);
  expect(again.code).toBe(1);
  expect(again.said).toContain("never overwrites");

  // Restored into a new file: the ledger checks out, and every conversion acknowledged before the
  // backup started is there with its transfer.
  const restoredPath = join(server.dataDir, "restored", "portal.db");
  const restore = await task("restore", [backupPath], `file:${restoredPath}`);
  expect(restore.code, restore.said).toBe(0);
  const ledgerCheck = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/ledger-check.ts", `file:${restoredPath}`],
    env: { APP_ENV: "test" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const checkSaid = new TextDecoder().decode(ledgerCheck.stdout) + new TextDecoder().decode(ledgerCheck.stderr);
  expect(ledgerCheck.code, checkSaid).toBe(0);
  expect(checkSaid).toContain("OK: every invariant holds.");
  const restored: Database = await openDatabase({ url: `file:${restoredPath}` });
  try {
    const report = await checkLedger(restored);
    expect(report.violations, formatReport(report)).toEqual([]);
    expect(await missingConversions(restored, acknowledged), "acknowledged before the backup, missing").toEqual([]);
  } finally {
    restored.$client.close();
  }

  // Restoring over an existing file needs --force, and keeps the old file aside.
  const refused = await task("restore", [backupPath], `file:${restoredPath}`);
  expect(refused.code).toBe(1);
  expect(refused.said).toContain("--force");
  const forced = await task("restore", [backupPath, "--force"], `file:${restoredPath}`);
  expect(forced.code, forced.said).toBe(0);
  expect(readdirSync(join(server.dataDir, "restored")).some((name) => name.includes(".before-restore-"))).toBe(true);

  // The running portal's own file: refused even with --force, and left as it was.
  const before = statSync(live);
  const underPortal = await task("restore", [backupPath, "--force"], `file:${live}`);
  expect(underPortal.code, underPortal.said).toBe(1);
  expect(underPortal.said).toContain("A portal process has");
  expect(statSync(live).ino).toBe(before.ino);
  const health = await fetch(`${server.url}/api/health`);
  await health.body?.cancel();
  expect(health.status).toBe(200);
});
