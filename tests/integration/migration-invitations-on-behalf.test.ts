import { expect, test } from "vitest";
import { migrateDatabase } from "../../db/client.ts";
import { listInvitations } from "../../server/accounts/invitations.ts";
import { databaseBefore } from "../helpers/migrated-before.ts";

/**
 * An invitation made by an administrator acting on the customer's behalf records that
 * administrator (migrations 0034 and 0035). Before, only the audit entry written with it said so
 * (its actor the administrator, its subject the customer): the invitations made before take the
 * administrator from it, and still say "… of our team (on behalf of …)"; the customer's own stay theirs.
 */
test("invitations made on the customer's behalf before the column record their administrator", async () => {
  const { db, sql, dispose } = await databaseBefore(/_invitations_on_behalf_admin$/);
  try {
    const at = Date.UTC(2026, 10, 27);
    const later = at + 7 * 24 * 60 * 60 * 1000;
    await sql(`INSERT INTO users (id, username, level, created_at) VALUES (1, 'ops@portal.test', 'Admin', ?)`, [at]);
    await sql(
      `INSERT INTO users (id, username, level, type, created_at) VALUES (2, 'ann@acme.test', 'User', 'Business', ?)`,
      [
        at,
      ],
    );
    await sql(
      `INSERT INTO profiles (user_id, type, data, created_at, updated_at) VALUES (2, 'Business', ?, ?, ?)`,
      [JSON.stringify({ name: "Acme Ltd", first: "Ann", last: "Archer" }), at, at],
    );
    await sql(`INSERT INTO profiles (user_id, type, data, created_at, updated_at) VALUES (1, 'Personal', ?, ?, ?)`, [
      JSON.stringify({ first: "Olga", last: "Ops" }),
      at,
      at,
    ]);
    for (const id of [10, 20]) {
      await sql(
        `INSERT INTO accounts (id, account_ref, type, name, opened_at) VALUES (?, ?, 'Business', 'Acme Ltd', ?)`,
        [
          id,
          `ACC${id}`,
          at,
        ],
      );
    }
    // Invitation 1 made on Ann's behalf, 2 by Ann herself, 3 on another account whose audit entry
    // has the id 1 too (the invitation ids are read per account).
    const invitations = [[1, 10, "on-behalf@x.test"], [2, 10, "own@x.test"], [3, 20, "other@x.test"]] as const;
    for (const [id, account, email] of invitations) {
      await sql(
        `INSERT INTO account_invitations (id, account_id, email, role, token_hash, invited_by, created_at, expires_at)
         VALUES (?, ?, ?, 'viewer', ?, 2, ?, ?)`,
        [id, account, email, `hash-${id}`, at, later],
      );
    }
    const entry = (actor: number, subject: number | null, account: number, invitation: number) =>
      sql(
        `INSERT INTO audit_log (at, actor_id, subject_id, account_id, action, before, after)
         VALUES (?, ?, ?, ?, 'account-users.invite', NULL, ?)`,
        [at, actor, subject, account, JSON.stringify({ invitation_id: invitation, email: "x", role: "viewer" })],
      );
    await entry(1, 2, 10, 1);
    await entry(2, null, 10, 2);
    await entry(2, null, 20, 3);
    await entry(1, 2, 20, 1);

    await migrateDatabase(db);
    const { rows } = await sql("SELECT id, on_behalf_admin_id FROM account_invitations ORDER BY id");
    expect(rows.map((r) => [r.id, r.on_behalf_admin_id])).toEqual([[1, 1], [2, null], [3, null]]);
    const listed = await listInvitations(db, 10, new Date(at + 1000));
    expect(listed.map((i) => [i.email, i.invited_by])).toEqual([
      ["on-behalf@x.test", "Olga Ops of our team (on behalf of Ann Archer)"],
      ["own@x.test", "Ann Archer"],
    ]);
  } finally {
    dispose();
  }
});
