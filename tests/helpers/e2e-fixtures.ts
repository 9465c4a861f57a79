import type { Browser } from "playwright-core";
import { test as base } from "vitest";
import type { Database } from "../../db/client.ts";
import { launchChromium, newPage } from "./browser.ts";
import { joinAccountThroughApi, openServerDatabase } from "./e2e-mail.ts";
import { type RunningServer, startServer } from "./server.ts";

/**
 * The end-to-end files' shared setup, as vitest fixtures of the file (decision 035): a portal on a
 * fresh database, that database opened beside it, and Debian's Chromium, each started for the first
 * test that names it and closed when the file ends (the database before the server).
 *
 *   import { test } from "../helpers/e2e-fixtures.ts";
 *   test("...", async ({ server, db, browser }) => { ... });
 *
 * - `server`: the portal as its own process (tests/e2e/fixture-server.tsx unless the file's
 *   `serverSettings` say otherwise).
 * - `db`: the portal's database file, opened beside it to read what a person would receive
 *   (tests/helpers/e2e-mail.ts); the server stays the only writer.
 * - `browser`: Chromium (tests/helpers/browser.ts); each test opens its own pages with newPage.
 *
 * The fixtures start inside the file's first test that names them, under its timeout: a file that
 * keeps the e2e project's 30 s raises it (vi.setConfig), as the beforeAll it replaces had 60 s.
 *
 * A file whose portal needs another script or settings overrides `serverSettings` at its top:
 *   const test = e2e.override("serverSettings", { scope: "file" }, () => ({ script: "main.ts", env }));
 */

/** The three, for a file's own helper that needs them: `async function open({ server, db }: E2e, ...)`. */
export interface E2e {
  server: RunningServer;
  db: Database;
  browser: Browser;
}

export interface ServerSettings {
  /** The server script; tests/e2e/fixture-server.tsx when absent. */
  script?: string;
  env?: Record<string, string>;
}

export const test = base
  // vitest reads a fixture's needs from its first parameter, which must be a destructuring.
  // deno-lint-ignore no-empty-pattern
  .extend("serverSettings", { scope: "file" }, ({}): ServerSettings => ({}))
  .extend("server", { scope: "file" }, async ({ serverSettings }, { onCleanup }): Promise<RunningServer> => {
    const server = await startServer(serverSettings.script, serverSettings.env);
    onCleanup(() => server.stop());
    return server;
  })
  .extend("db", { scope: "file" }, async ({ server }, { onCleanup }): Promise<Database> => {
    const db = await openServerDatabase(server);
    onCleanup(() => db.$client.close());
    return db;
  })
  // deno-lint-ignore no-empty-pattern
  .extend("browser", { scope: "file" }, async ({}, { onCleanup }): Promise<Browser> => {
    const browser = await launchChromium();
    onCleanup(() => browser.close());
    return browser;
  });

/**
 * Someone who joins an account with a role (joinAccountThroughApi), in a browser context of their
 * own that stays signed in: their page, and who they are.
 */
export async function joinInBrowser(
  { server, db, browser }: E2e,
  member: { accountId: number; role: string; first: string; last: string },
) {
  const person = await newPage(browser);
  return { ...person, ...await joinAccountThroughApi(person.page.request, db, server.url, member) };
}
