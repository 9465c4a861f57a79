import { expect, test } from "vitest";
import { migrateDatabase } from "../../db/client.ts";
import { databaseBefore } from "../helpers/migrated-before.ts";

/**
 * Decision 050, amended 2026-11-28: a resumed bulk email job records its `sending` recipients as
 * sent, because from this release a recipient is `sending` only once its mail is on the wire up to
 * its final dot. A runner of the release before marked `sending` before handing the mail over, so
 * what it left `sending` when the deployment stopped it may never have been mailed: the migration
 * makes those `in doubt` (as that release's resume did), and leaves every other state alone.
 */
test("a recipient left sending by the release before is in doubt, not taken for sent; others stay", async () => {
  const { db, sql, dispose } = await databaseBefore(/_bulk_sending_in_doubt$/);
  try {
    const at = Date.UTC(2026, 10, 27);
    await sql(`INSERT INTO users (id, username, level, created_at) VALUES (1, 'admin@portal.test', 'Admin', ?)`, [at]);
    const states = ["sending", "pending", "sent", "in doubt", "failed", "unsubscribed"];
    for (const [i] of states.entries()) {
      await sql(`INSERT INTO users (id, username, level, created_at) VALUES (?, ?, 'User', ?)`, [
        i + 2,
        `c${i}@example.com`,
        at,
      ]);
    }
    await sql(
      `INSERT INTO bulk_emails (id, subject, body, segment, created_by, created_at)
       VALUES (1, 'News', 'Hello', '{}', 1, ?)`,
      [at],
    );
    for (const [i, state] of states.entries()) {
      await sql(
        `INSERT INTO bulk_email_recipients (bulk_email_id, user_id, email, state, updated_at) VALUES (1, ?, ?, ?, ?)`,
        [i + 2, `c${i}@example.com`, state, at],
      );
    }

    await migrateDatabase(db);
    const { rows } = await sql("SELECT state FROM bulk_email_recipients ORDER BY user_id");
    expect(rows.map((r) => r.state)).toEqual(["in doubt", "pending", "sent", "in doubt", "failed", "unsubscribed"]);
  } finally {
    dispose();
  }
});
