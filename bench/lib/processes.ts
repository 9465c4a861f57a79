/**
 * Child processes of the benchmark: servers started on a free port and stopped for sure, even when
 * a measurement throws or the run is interrupted (every child is registered and killed on exit).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const running = new Set<Deno.ChildProcess>();
const tempDirs = new Set<string>();

/** Kills every child still running and removes the temp directories (on Ctrl-C, and at exit). */
export function killAllChildren(): void {
  for (const child of running) {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }
  running.clear();
  for (const path of tempDirs) rmSync(path, { recursive: true, force: true });
  tempDirs.clear();
}

/** Spawns a child and tracks it until it exits. */
export function spawnTracked(command: Deno.Command): Deno.ChildProcess {
  const child = command.spawn();
  running.add(child);
  child.status.finally(() => running.delete(child));
  return child;
}

/** A free port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

/** A temp directory, removed by the returned function. */
export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(path);
  return {
    path,
    remove: () => {
      rmSync(path, { recursive: true, force: true });
      tempDirs.delete(path);
    },
  };
}

export interface RunningServer {
  name: string;
  url: string;
  pid: number;
  /** Everything the server printed, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  name: string;
  script: string;
  env: Record<string, string>;
  /** Path answered with 200 once the server is ready. */
  readyPath: string;
  /** PORT is set to this (a free port is picked when absent). */
  port?: number;
  /** Extra `deno run` flags, before the script (e.g. --cpu-prof). */
  denoFlags?: string[];
  timeoutMs?: number;
}

/** Starts `deno run -A script` with env (+PORT, HOST=127.0.0.1) and waits until readyPath is 200. */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const port = options.port ?? await freePort();
  const child = spawnTracked(
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", ...(options.denoFlags ?? []), options.script],
      env: { ...options.env, PORT: String(port), HOST: "127.0.0.1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }),
  );
  let log = "";
  const decoder = new TextDecoder();
  for (const stream of [child.stdout, child.stderr]) {
    stream.pipeTo(new WritableStream({ write: (chunk) => void (log += decoder.decode(chunk)) })).catch(() => {});
  }
  let exited = false;
  child.status.then(() => (exited = true));

  const stop = async () => {
    if (!exited) {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      const timer = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch { /* already gone */ }
      }, 5_000);
      await child.status;
      clearTimeout(timer);
    }
  };

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    if (exited) throw new Error(`${options.name} exited before it was ready. Its output:\n${log}`);
    try {
      const res = await fetch(url + options.readyPath);
      await res.body?.cancel();
      if (res.ok) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(
        `${options.name} was not ready within ${(options.timeoutMs ?? 60_000) / 1000} s. Its output:\n${log}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { name: options.name, url, pid: child.pid, output: () => log, stop };
}

/** A portal started by startPortal: also where its database file is (to read it beside the server). */
export interface RunningPortal extends RunningServer {
  /** The database file's path (DATABASE_URL is `file:` + this). */
  databasePath: string;
}

/**
 * The real portal as production runs it: main.ts, NODE_ENV and APP_ENV production, a fresh
 * database file in a temp directory (removed on stop), or another portal's file (`databasePath`:
 * several processes on one file, decision 013). With cpuProfileDir, V8 writes a CPU
 * profile of the whole run there when the portal stops. `env` adds settings (e.g.
 * QUOTE_VALIDITY_SECONDS for the conversions benchmark).
 */
export async function startPortal(
  options: {
    cpuProfileDir?: string;
    env?: Record<string, string>;
    name?: string;
    /** Another portal's database file: this one is a second process on it (kept when this one stops). */
    databasePath?: string;
  } = {},
): Promise<RunningPortal> {
  const dir = options.databasePath ? { path: "", remove() {} } : tempDir("portal-bench-");
  const port = await freePort();
  const databasePath = options.databasePath ?? join(dir.path, "portal.db");
  try {
    const server = await startServer({
      name: options.name ?? "portal (main.ts)",
      script: "main.ts",
      port,
      denoFlags: options.cpuProfileDir ? ["--cpu-prof", `--cpu-prof-dir=${options.cpuProfileDir}`] : [],
      env: {
        NODE_ENV: "production",
        APP_ENV: "production",
        DATABASE_URL: `file:${databasePath}`,
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        // Without it the portal would create data/app-secret in the working copy.
        APP_SECRET: crypto.randomUUID(),
        // Security emails are kept without their codes (decision 057): the bench signs in with the
        // code as sent, kept beside the database file where tests/helpers/mailbox.ts reads it.
        TEST_MAIL_OUTBOX: `${databasePath}.outbox`,
        ...options.env,
      },
      readyPath: "/api/health",
    });
    return {
      ...server,
      databasePath,
      async stop() {
        await server.stop();
        dir.remove();
      },
    };
  } catch (error) {
    dir.remove();
    throw error;
  }
}
