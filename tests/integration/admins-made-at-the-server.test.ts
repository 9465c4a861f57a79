import { eq } from "drizzle-orm";
import { describe, expect, test, vi } from "vitest";
import { auditLog, users } from "../../db/schema.ts";
import { testApp } from "../helpers/app.ts";
import { testDatabaseFile } from "../helpers/db.ts";

/**
 * Administrators made outside the console, by the first run's /setup and by `deno task
 * admin:create` on the server, are in the audit log like those invited in the console: the
 * console's administrators screen and the log must say where each administrator came from, or an
 * administrator added at the server (past the four eyes of an invitation) leaves no trace.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

describe("an administrator made outside the console", () => {
  test("by `deno task admin:create` is in the audit log, naming the task", async () => {
    const { db, path } = await testDatabaseFile();
    const run = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "scripts/admin-create.ts", "Night.Shift@Example.test"],
      env: { DATABASE_URL: `file:${path}`, ADMIN_PASSWORD: "a long pass phrase 1", APP_ENV: "test" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    expect(new TextDecoder().decode(run.stderr) + new TextDecoder().decode(run.stdout)).toContain("created");
    const [made] = await db.select({ id: users.id }).from(users).where(eq(users.username, "night.shift@example.test"));
    const entries = await db.select().from(auditLog).where(eq(auditLog.subjectId, made.id));
    expect(entries.map((e) => ({ actor: e.actorId, action: e.action, after: e.after }))).toEqual([
      {
        actor: made.id,
        action: "admin.create",
        after: { email: "night.shift@example.test", by: "deno task admin:create" },
      },
    ]);
  });

  test("by the first run's /setup is in the audit log", async () => {
    const t = await testApp();
    const res = await t.app.request("/api/setup", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "first@example.test", password: "a long pass phrase 1" }),
    });
    expect(res.status).toBe(200);
    const [made] = await t.db.select({ id: users.id }).from(users).where(eq(users.username, "first@example.test"));
    const entries = await t.db.select().from(auditLog).where(eq(auditLog.subjectId, made.id));
    expect(entries.map((e) => ({ actor: e.actorId, action: e.action, after: e.after }))).toEqual([
      { actor: made.id, action: "admin.create", after: { email: "first@example.test", by: "setup" } },
    ]);
  });
});

describe("an administrator's address", () => {
  test("is refused by `deno task admin:create` when the reset-link form would refuse it, so they can always ask one", async () => {
    const { db } = await testDatabaseFile();
    const { createAdministrator } = await import("../../server/auth/setup.ts");
    // The task's own check let it through; POST auth/forgot answers it with a 422.
    expect(
      await createAdministrator(db, "night!shift@example.test", "a long pass phrase 1", {
        by: "deno task admin:create",
      }),
    ).toBe("Enter a valid email address.");
    expect(await db.select({ id: users.id }).from(users)).toEqual([]);
  });
});
