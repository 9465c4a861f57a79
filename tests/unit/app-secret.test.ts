import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { appSecret, placeKey } from "../../server/auth/encryption.ts";

/**
 * Without APP_SECRET the key is generated once into a file; processes that start together on a
 * fresh machine (two instances, or the server and `deno task admin:create`) must all end with that
 * one key, or what one seals (a registration cookie, a TOTP secret) the other cannot open.
 */

const dir = mkdtempSync(join(tmpdir(), "portal-secret-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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

test("a process that found no key, when another placed one meanwhile, takes that key and leaves it", () => {
  const file = join(dir, "raced", "app-secret");
  mkdirSync(dirname(file), { recursive: true });
  // Both found no file; the first places its key, then the second tries to place its own.
  expect(placeKey(file, "first key")).toBe("first key");
  expect(placeKey(file, "second key")).toBe("first key");
  expect(readFileSync(file, "utf8")).toBe("first key");
  // No draft is left beside it.
  expect(readdirSync(dirname(file))).toEqual(["app-secret"]);
});
