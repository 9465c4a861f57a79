import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RunningServer {
  url: string;
  dataDir: string;
  process: Deno.ChildProcess;
  stop(): Promise<void>;
  /** Everything the server printed so far, for failure messages. */
  output(): string;
  /** Everything the server printed, once its output has closed (after it exited). */
  outputAtEnd(): Promise<string>;
}

/**
 * Everything a child spawned with piped stdout and stderr prints, kept as it comes: the answer
 * reads it so far (for a failing expectation's message). The two streams are kept a whole line at a
 * time, so that a line one of them writes in two pieces is never cut by the other's; `atEnd` is
 * everything, once both streams have closed (a process's status can come before its last output).
 */
export function outputOf(child: Deno.ChildProcess): (() => string) & { atEnd: Promise<string> } {
  let log = "";
  const partial = ["", ""];
  const closed = [child.stdout, child.stderr].map((stream, i) => {
    const decoder = new TextDecoder();
    return stream.pipeTo(
      new WritableStream({
        write(chunk) {
          const text = partial[i] + decoder.decode(chunk, { stream: true });
          const end = text.lastIndexOf("\n") + 1;
          log += text.slice(0, end);
          partial[i] = text.slice(end);
        },
      }),
    ).catch(() => {});
  });
  const output = () => log + partial.join("");
  return Object.assign(output, { atEnd: Promise.all(closed).then(output) });
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

/**
 * Starts a server script as its own process on a free port and a fresh database file, and waits
 * until GET /api/health answers.
 */
export async function startServer(
  script = "tests/e2e/fixture-server.tsx",
  env: Record<string, string> = {},
): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "portal-e2e-"));
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script],
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: `file:${join(dataDir, "portal.db")}`,
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      APP_ENV: "test",
      NODE_ENV: "production",
      ...env,
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = outputOf(child);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  let exited = false;
  child.status.then(() => (exited = true));
  for (;;) {
    if (exited) {
      rmSync(dataDir, { recursive: true, force: true });
      throw new Error(`The server exited before it was healthy. Its output:\n${output()}`);
    }
    try {
      const res = await fetch(`${url}/api/health`);
      await res.body?.cancel();
      if (res.ok) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      await child.status;
      rmSync(dataDir, { recursive: true, force: true });
      throw new Error(`The server did not become healthy in 30 s. Its output:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    dataDir,
    process: child,
    output,
    outputAtEnd: () => output.atEnd,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      // A server that does not stop within 5 s is killed: a test run never leaves one behind.
      const stopped = await Promise.race([
        child.status.then(() => true),
        new Promise((r) => setTimeout(() => r(false), 5000)),
      ]);
      if (!stopped) {
        try {
          child.kill("SIGKILL");
        } catch { /* gone meanwhile */ }
        await child.status;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
