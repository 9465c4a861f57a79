import { expect, test } from "vitest";
import { migrateDatabase } from "../../db/client.ts";
import { databaseBefore } from "../helpers/migrated-before.ts";

/**
 * Migration 0037 (decision 073, amended): an administrator on behalf no longer gives a role that
 * approves payments, so the invitations to such a role that one made before are withdrawn, and only
 * those: the customer's own, a payer's or viewer's, and those already accepted or withdrawn stay.
 */
test("waiting invitations to an approving role made on the customer's behalf are withdrawn, no other", async () => {
  const { db, sql, dispose } = await databaseBefore(/_on_behalf_approving_invitations_withdrawn$/);
  try {
    const at = Date.UTC(2026, 10, 27);
    const later = at + 7 * 24 * 60 * 60 * 1000;
    await sql(`INSERT INTO users (id, username, level, created_at) VALUES (1, 'ops@portal.test', 'Admin', ?)`, [at]);
    await sql(
      `INSERT INTO users (id, username, level, type, created_at) VALUES (2, 'ann@acme.test', 'User', 'Business', ?)`,
      [at],
    );
    await sql(
      `INSERT INTO accounts (id, account_ref, type, name, opened_at) VALUES (10, 'ACC10', 'Business', 'Acme', ?)`,
      [
        at,
      ],
    );
    // [id, role, made on behalf, accepted, withdrawn]
    const invitations = [
      [1, "approver", true, false, false],
      [2, "owner", true, false, false],
      [3, "admin", true, false, false],
      [4, "payer", true, false, false],
      [5, "approver", false, false, false],
      [6, "approver", true, true, false],
      [7, "approver", true, false, true],
    ] as const;
    for (const [id, role, onBehalf, accepted, withdrawn] of invitations) {
      await sql(
        `INSERT INTO account_invitations (id, account_id, email, role, token_hash, invited_by, on_behalf_admin_id,
           created_at, expires_at, accepted_at, revoked_at)
         VALUES (?, 10, ?, ?, ?, 2, ?, ?, ?, ?, ?)`,
        [
          id,
          `i${id}@x.test`,
          role,
          `hash-${id}`,
          onBehalf ? 1 : null,
          at,
          later,
          accepted ? at : null,
          withdrawn ? at : null,
        ],
      );
    }

    const before = Date.now();
    await migrateDatabase(db);
    const { rows } = await sql("SELECT id, revoked_at FROM account_invitations ORDER BY id");
    const revoked = rows.filter((r) => r.revoked_at !== null && Number(r.revoked_at) !== at).map((r) => r.id);
    expect(revoked).toEqual([1, 2, 3]);
    for (const r of rows.filter((r) => [1, 2, 3].includes(Number(r.id)))) {
      expect(Number(r.revoked_at)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    }
    expect(rows.find((r) => r.id === 7)?.revoked_at).toBe(at);
  } finally {
    dispose();
  }
});
