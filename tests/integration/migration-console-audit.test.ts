import { expect, test } from "vitest";
import { migrateDatabase } from "../../db/client.ts";
import { databaseBefore } from "../helpers/migrated-before.ts";

/**
 * The migration that gives the audit log its shape (db/migrations/*_console_audit_and_four_eyes,
 * docs/decisions/026) keeps every entry: an administrator's own entries keep their action and
 * values; a call made on behalf ("POST /api/...", {status}) becomes on-behalf.call with the method,
 * path and status; a {before, after} detail is split in two; every receipt stays as it was. Afterwards the log only grows.
 */

test("audit entries and receipts survive the migration; the log refuses changes afterwards", async () => {
  // A database as it was before this migration.
  const { db, sql, dispose } = await databaseBefore(/_console_audit_and_four_eyes$/);
  try {
    const at = Date.UTC(2026, 10, 1);
    await sql(
      `INSERT INTO users (id, username, level, type, created_at) VALUES
         (1, 'admin@example.com', 'Admin', 'Personal', ?), (2, 'ada@example.com', 'User', 'Personal', ?)`,
      [at, at],
    );
    await sql(
      `INSERT INTO accounts (id, account_ref, type, name, opened_at) VALUES (1, 'P0000002', 'Personal', 'A', ?)`,
      [
        at,
      ],
    );
    await sql(
      `INSERT INTO audit_log (id, at, actor_id, on_behalf_of_id, action, detail) VALUES
         (1, ?, 1, 2, 'on-behalf.start', NULL),
         (2, ?, 1, 2, 'POST /api/account/profile', '{"status":200}'),
         (3, ?, 1, 2, 'fees.override', '{"before":{"override_transfer_fee":false},"after":{"override_transfer_fee":true}}')`,
      [at, at, at],
    );
    await sql(
      `INSERT INTO receipts (id, amount_minor, currency, payer_name, reference, received_at, status, account_id,
         transfer_id, recorded_by, created_at) VALUES (1, 1000, 'GBP', 'Ada', 'P0000002', '2026-11-01', 'matched', 1, 7, 1, ?)`,
      [at],
    );

    await migrateDatabase(db);
    const { rows } = await sql("SELECT id, actor_id, subject_id, action, before, after FROM audit_log ORDER BY id");
    expect(rows.map((row) => ({ ...row }))).toEqual([
      { id: 1, actor_id: 1, subject_id: 2, action: "on-behalf.start", before: null, after: null },
      {
        id: 2,
        actor_id: 1,
        subject_id: 2,
        action: "on-behalf.call",
        before: null,
        after: '{"method":"POST","path":"/api/account/profile","status":200}',
      },
      {
        id: 3,
        actor_id: 1,
        subject_id: 2,
        action: "fees.override",
        before: '{"override_transfer_fee":false}',
        after: '{"override_transfer_fee":true}',
      },
    ]);
    const receipts = await sql("SELECT id, amount_minor, status, account_id, transfer_id FROM receipts");
    expect(receipts.rows.map((row) => ({ ...row }))).toEqual([
      { id: 1, amount_minor: 1000, status: "matched", account_id: 1, transfer_id: 7 },
    ]);
    await expect(sql("UPDATE audit_log SET action = 'x' WHERE id = 1")).rejects.toThrow(/append-only/);
    await expect(sql("DELETE FROM audit_log WHERE id = 1")).rejects.toThrow(/append-only/);
  } finally {
    dispose();
  }
});
