import { test as base } from "vitest";
import { testApp } from "./app.ts";
import { type Admin, createAdmin, type Customer, registerCustomer, TestClock } from "./client.ts";
import { openTestDatabase } from "./db.ts";

/**
 * The sign-in journeys' shared setup, as vitest fixtures (decision 035): a test names what it
 * needs and gets it ready, and whatever was started is closed when the file ends.
 *
 *   import { test } from "../helpers/fixtures.ts";
 *   test("...", async ({ app, customer }) => { ... });
 *
 * - `app`: the file's portal (the real app, its database sessions and a test clock), started for
 *   the first test that names it and shared by every test of the file, as a browser shares a site.
 * - `admin`: the portal's first administrator (POST setup, then the emailed code), one per file:
 *   setup makes exactly one.
 * - `customer`: a new Personal customer for this test, registered, their address confirmed and
 *   signed in past the second factor (registerCustomer).
 * - `unverified`: a new Personal customer who has not opened the emailed link yet, signed in with
 *   the password only.
 * - `startApp(options)`: another portal of the test's own (an empty one, a clock of its own, other
 *   settings), closed when the file ends.
 *
 * A file whose every test needs other settings overrides `app` at its top level:
 *   const test = base.override("app", { scope: "file" }, ({ startApp }) => startApp({ env }));
 */

export interface AppOptions {
  env?: Record<string, string>;
  clock?: TestClock;
}

/**
 * The real app on a fresh database with the real database sessions and a test clock. TRUST_PROXY
 * is on so that each TestClient has its own address (X-Forwarded-For) for per-address limits.
 */
export type SigninApp = Awaited<ReturnType<typeof testApp>> & { clock: TestClock };

export type StartApp = (options?: AppOptions) => Promise<SigninApp>;

export const test = base
  // vitest reads a fixture's needs from its first parameter, which must be a destructuring.
  // deno-lint-ignore no-empty-pattern
  .extend("startApp", { scope: "file" }, ({}, { onCleanup }): StartApp => {
    const closers: (() => Promise<void>)[] = [];
    onCleanup(async () => {
      for (const close of closers) await close();
    });
    return async (options = {}) => {
      const database = await openTestDatabase();
      closers.push(database.close);
      const clock = options.clock ?? new TestClock();
      const started = await testApp({
        sessions: "database",
        now: clock.now,
        env: { TRUST_PROXY: "1", ...options.env },
        database: database.db,
      });
      return { ...started, clock };
    };
  })
  .extend("app", { scope: "file" }, ({ startApp }): Promise<SigninApp> => startApp())
  .extend("admin", { scope: "file" }, ({ app }): Promise<Admin> => createAdmin(app))
  .extend("customer", ({ app }): Promise<Customer> => registerCustomer(app))
  .extend("unverified", ({ app }): Promise<Customer> => registerCustomer(app, { validate: false }));
