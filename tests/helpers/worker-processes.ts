import { afterAll } from "vitest";
import { outputOf } from "./server.ts";

/** A job runner started as a process of its own, and everything it printed so far. */
export interface WorkerProcess {
  child: Deno.ChildProcess;
  /** Its stdout and stderr, for a failing expectation's message. */
  log(): string;
}

/**
 * The job runners of a crash test (issue 10): `script` (tests/helpers/job-worker.ts and its like)
 * run as processes of their own, so that a test can kill one (SIGKILL, no chance to clean up) and
 * start another on the same database. `env` is theirs (DATABASE_PATH, LEASE_MS...); each also gets
 * APP_ENV=test and RUNNER_NAME, the name it is started with.
 *
 * Call it at the top of the test file: it registers the one afterAll that kills every runner still
 * going when the file ends (a hook registered inside a test never runs, decision 035, and the
 * runners were left behind after every run).
 */
export function workerProcesses(script: string, env: Record<string, string>): (name: string) => WorkerProcess {
  const workers: Deno.ChildProcess[] = [];
  afterAll(async () => {
    for (const child of workers) {
      try {
        child.kill("SIGKILL");
      } catch { /* already ended */ }
      await child.status;
    }
  });
  return (name) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", script],
      env: { ...env, RUNNER_NAME: name, APP_ENV: "test" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    workers.push(child);
    return { child, log: outputOf(child) };
  };
}
