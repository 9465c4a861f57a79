import { tmpdir } from "node:os";
import { createServices } from "../../app.ts";
import type { Database } from "../../db/client.ts";
import { loadConfig } from "../../server/config.ts";
import { testOutbox } from "../../server/mail/outbox.ts";
import type { JobDeps } from "../../server/jobs/define.ts";

/** What a test's job runner hands its handlers: the test configuration and the services on `db`. */
export async function testJobDeps(db: Database, env: Record<string, string> = {}): Promise<JobDeps> {
  const config = loadConfig({ APP_ENV: "test", PUBLIC_URL: "http://localhost", ...env });
  const services = await createServices(db, config, {
    secretFile: `${tmpdir()}/portal-test-secret`,
    // The mail as sent, in this process (not beside the configured database file, which is not `db`).
    mailOutbox: testOutbox(db),
  });
  return { config, services };
}

/** A clock a test moves by hand (ms since the epoch). */
export function testClock(start = Date.UTC(2026, 10, 25, 9, 0, 0)) {
  let now = start;
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
  };
}
