import { expect, test } from "vitest";
import { migrateDatabase } from "../../db/client.ts";
import {
  CODE_REMOVED,
  CONTENT_NOT_KEPT,
  keptCopy,
  LINK_REMOVED,
  SECURITY_TEMPLATES,
} from "../../server/mail/redact.ts";
import { databaseBefore } from "../helpers/migrated-before.ts";

/**
 * Decision 057 keeps a security email without its links and codes; the emails kept before it held
 * them in full. The migration that followed (db/migrations/*_redact_old_security_emails) keeps
 * nothing of such an old body, leaves a copy already redacted as it is, and leaves every other
 * email alone.
 */
test("an old security email loses its body; a redacted one and an ordinary one stay as they were", async () => {
  const { db, sql, dispose } = await databaseBefore(/_redact_old_security_emails$/);
  try {
    const at = Date.UTC(2026, 10, 1);
    const oldReset = "Reset it: https://portal.example/reset?token=abc123secret (valid one hour)";
    const oldCode = "Your sign-in code is 481516.";
    const redacted = keptCopy("password-reset", { html: "<p>x</p>", text: "Reset: https://p.example/r?token=t0k" }, [
      { kind: "link", value: "https://p.example/r?token=t0k" },
    ]);
    const receipt = "We received 100.00 GBP from Ada, reference P0000002 (code 123456 in the bank's words).";
    const rows: [string, string][] = [
      ["password-reset", oldReset],
      ["second-factor-code", oldCode],
      ["password-reset", redacted.text],
      ["receipt", receipt],
    ];
    for (const [template, text] of rows) {
      await sql(
        `INSERT INTO emails (user_id, "to", subject, template, html, text, status, created_at)
         VALUES (NULL, 'ada@example.com', 'Subject', ?, ?, ?, 'sent', ?)`,
        [template, `<p>${text}</p>`, text, at],
      );
    }

    await migrateDatabase(db);
    const { rows: after } = await sql("SELECT template, html, text FROM emails ORDER BY id");
    expect(after.map((row) => row.text)).toEqual([CONTENT_NOT_KEPT, CONTENT_NOT_KEPT, redacted.text, receipt]);
    expect(after[0].html).toBe(`<p>${CONTENT_NOT_KEPT}</p>`);
    expect(redacted.text).toContain(LINK_REMOVED);
    expect(after[3].html).toBe(`<p>${receipt}</p>`);
  } finally {
    dispose();
  }
});

test("the migration names every security template and the notes the kept copies carry", async () => {
  const migration = await Deno.readTextFile(
    new URL("../../db/migrations/0025_redact_old_security_emails.sql", import.meta.url),
  );
  for (const template of SECURITY_TEMPLATES) expect(migration).toContain(`'${template}'`);
  for (const note of [LINK_REMOVED, CODE_REMOVED, CONTENT_NOT_KEPT]) expect(migration).toContain(note);
});
