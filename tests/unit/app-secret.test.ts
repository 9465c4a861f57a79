import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, expect, test } from "vitest";
import { appSecret } from "../../server/auth/encryption.ts";

/**
 * Without APP_SECRET the key is generated once into a file; processes that start together on a
 * fresh machine (two instances, or the server and `deno task admin:create`) must all end with that
 * one key, or what one seals (a registration cookie, a TOTP secret) the other cannot open.
 */

const dir = mkdtempSync(join(tmpdir(), "portal-secret-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const MODULE = resolve(import.meta.dirname!, "../../server/auth/encryption.ts");

test("APP_SECRET wins; otherwise the key in the file is kept, and a missing one is written once", () => {
  expect(appSecret("configured", join(dir, "unused"))).toBe("configured");
  const file = join(dir, "kept");
  writeFileSync(file, "already here\n");
  expect(appSecret(undefined, file)).toBe("already here");
  const fresh = join(dir, "fresh", "app-secret");
  const key = appSecret(undefined, fresh);
  expect(key).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  expect(appSecret(undefined, fresh)).toBe(key);
  expect(readFileSync(fresh, "utf8")).toBe(key);
});

test("processes that generate the key at the same moment all end with the same one", async () => {
  const file = join(dir, "raced", "app-secret");
  const script = `import { appSecret } from ${JSON.stringify(MODULE)}; console.log(appSecret(undefined, ${
    JSON.stringify(file)
  }));`;
  const runs = await Promise.all(
    Array.from(
      { length: 4 },
      () => new Deno.Command(Deno.execPath(), { args: ["eval", script], stdout: "piped", stderr: "piped" }).output(),
    ),
  );
  const keys = runs.map((run) => new TextDecoder().decode(run.success ? run.stdout : run.stderr).trim());
  expect(new Set(keys).size, keys.join("\n")).toBe(1);
  expect(keys[0]).toBe(readFileSync(file, "utf8"));
});
