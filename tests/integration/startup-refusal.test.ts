import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";

/**
 * The server process itself refuses a real deployment that kept the test defaults (decision 023):
 * `deno run main.ts` with a public PUBLIC_URL and no Sumsub, bank or mail settings exits with 1 and
 * says why, before it opens the database or listens.
 */
test("main.ts with a public PUBLIC_URL and no real settings exits 1, naming what to set", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "portal-refusal-"));
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "main.ts"],
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "",
        HOME: Deno.env.get("HOME") ?? dataDir,
        DENO_DIR: Deno.env.get("DENO_DIR") ?? "",
        PUBLIC_URL: "https://portal.example.com",
        APP_ENV: "production",
        PORT: "0",
        DATABASE_URL: `file:${join(dataDir, "portal.db")}`,
      },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    // A server that starts instead of refusing would run for ever: it is stopped, and the test fails.
    const stop = setTimeout(() => child.kill("SIGKILL"), 30_000);
    const output = await child.output();
    clearTimeout(stop);
    const said = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
    expect(output.code, said).toBe(1);
    expect(said).toMatch(/The portal will not start/);
    expect(said).toMatch(/IDENTITY_PROVIDER=sandbox/);
    expect(said).toMatch(/ALLOW_TEST_BANK_DETAILS=1/);
    expect(said).toMatch(/MAIL=database/);
    expect(said).not.toMatch(/listening/i);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);
