/**
 * The Deno Deploy entry (deploy.ts, decision 043), tried as far as this machine allows: a process
 * with what Deno Deploy grants (network, environment, reading its own files) and not what it does
 * not (writing to the disk, native add-ons, subprocesses), against a database over libSQL's Hrana
 * protocol (the test server of decision 014, standing in for Turso) with an auth token.
 * - It refuses to start without its settings, and on a database that lacks a migration.
 * - `deno task db:migrate` migrates that database (and a second run finds nothing to do).
 * - Then it serves: health, a page with its built assets, and a call that writes.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startHranaServer } from "../helpers/hrana/server.ts";
import { freePort, outputOf } from "../helpers/server.ts";

const ROOT = resolve(import.meta.dirname!, "../..");
/** What Deno Deploy allows a deployment, and nothing more. */
const EDGE_PERMISSIONS = [
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "--deny-write",
  "--deny-ffi",
  "--deny-run",
  "--no-prompt",
];

const dir = mkdtempSync(join(tmpdir(), "portal-edge-"));
const authToken = crypto.randomUUID();
const hrana = startHranaServer({ path: join(dir, "portal.db"), authToken });
let port = 0;
const env = () => ({
  DATABASE_URL: hrana.url,
  DATABASE_AUTH_TOKEN: authToken,
  APP_SECRET: crypto.randomUUID() + crypto.randomUUID(),
  NODE_ENV: "production",
  APP_ENV: "production",
  PORT: String(port),
  HOST: "127.0.0.1",
  PUBLIC_URL: `http://127.0.0.1:${port}`,
  NO_COLOR: "1",
});

beforeAll(async () => {
  port = await freePort();
});
afterAll(async () => {
  await hrana.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs deploy.ts until it exits, or until it answers GET /api/health (then it is left running). */
function startEdge(settings: Record<string, string>) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...EDGE_PERMISSIONS, "deploy.ts"],
    cwd: ROOT,
    env: settings,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  return { child, output: outputOf(child) };
}

async function untilExit(settings: Record<string, string>) {
  const edge = startEdge(settings);
  const status = await edge.child.status;
  // The pipes may still hold the last lines.
  await new Promise((r) => setTimeout(r, 100));
  return { code: status.code, output: edge.output() };
}

test("refuses to start without a remote database, its token and APP_SECRET", async () => {
  const { DATABASE_URL: _url, DATABASE_AUTH_TOKEN: _token, APP_SECRET: _secret, ...rest } = env();
  const refused = await untilExit({ ...rest, DATABASE_URL: `file:${join(dir, "local.db")}` });
  expect(refused.code).not.toBe(0);
  expect(refused.output).toContain("DATABASE_URL is file:");
  expect(refused.output).toContain("DATABASE_AUTH_TOKEN is not set");
  expect(refused.output).toContain("APP_SECRET is not set");
  // Nothing was written beside the file it was given.
  expect(readdirSync(dir).filter((name) => name.startsWith("local"))).toEqual([]);
}, 60_000);

test(
  "refuses a database that lacks a migration; serves once `deno task db:migrate` ran, writing nothing to the disk",
  async () => {
    const settings = env();
    const early = await untilExit(settings);
    expect(early.code).not.toBe(0);
    expect(early.output).toContain("run `deno task db:migrate`");

    const migrate = async () => {
      const run = await new Deno.Command(Deno.execPath(), {
        args: ["task", "db:migrate"],
        cwd: ROOT,
        env: { DATABASE_URL: hrana.url, DATABASE_AUTH_TOKEN: authToken, NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      return { code: run.code, text: new TextDecoder().decode(run.stdout) + new TextDecoder().decode(run.stderr) };
    };
    const first = await migrate();
    expect(first.code, first.text).toBe(0);
    expect(first.text).toMatch(/applied \d+ migrations/);
    const again = await migrate();
    expect(again.text).toMatch(/up to date/);

    const edge = startEdge(settings);
    try {
      const url = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 45_000;
      for (;;) {
        const exited = await Promise.race([edge.child.status.then(() => true), Promise.resolve(false)]);
        if (exited) throw new Error(`deploy.ts exited:\n${edge.output()}`);
        const res = await fetch(`${url}/api/health`).catch(() => null);
        await res?.body?.cancel();
        if (res?.ok) break;
        if (Date.now() > deadline) throw new Error(`deploy.ts did not answer in 45 s:\n${edge.output()}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      // A page, with the built assets served from the deployment's files.
      const page = await fetch(`${url}/calculator`);
      expect(page.status).toBe(200);
      const html = await page.text();
      const asset = /\/assets\/[^"]+\.css/.exec(html)?.[0];
      expect(asset).toBeDefined();
      const css = await fetch(`${url}${asset}`, { headers: { "accept-encoding": "br" } });
      expect(css.status).toBe(200);
      expect(css.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      await css.body?.cancel();
      // A call that writes: through the database, not the disk (which this process may not write).
      const registered = await fetch(`${url}/api/auth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "edge@example.com", password: "edge password 123", type: "Personal" }),
      });
      expect(registered.status, await registered.clone().text()).toBe(200);
      await registered.body?.cancel();
      expect(edge.output()).not.toMatch(/NotCapable|PermissionDenied|Requires (write|ffi|run) access/);
    } finally {
      edge.child.kill("SIGTERM");
      await edge.child.status;
    }
  },
  120_000,
);

test("main.ts with MIGRATE_ON_START=0 refuses a database that lacks a migration instead of migrating it", async () => {
  const file = join(dir, "one-machine.db");
  const run = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    cwd: ROOT,
    env: { ...env(), DATABASE_URL: `file:${file}`, DATABASE_AUTH_TOKEN: "", MIGRATE_ON_START: "0" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  expect(run.code).toBe(1);
  expect(new TextDecoder().decode(run.stderr)).toContain("run `deno task db:migrate` first");
}, 60_000);
