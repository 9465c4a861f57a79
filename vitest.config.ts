import { defineConfig } from "vitest/config";

/**
 * Three projects: "unit" (logic, server routes through app.request, islands in happy-dom), "hrana"
 * (the integration tests again, their databases reached over libSQL's Hrana protocol as Turso would
 * be: decision 014) and "e2e" (a real server and Debian's Chromium through playwright-core).
 * "integration" (the server's tests of "unit", sharing their worker's modules) and "hrana-mocking"
 * are twins that tests/run.ts runs with "unit" and "hrana" (decision 063). It prints the closing count.
 */

/**
 * The files that replace a module (vi.mock). A mock applies only to a module its process has not
 * imported yet, so these run isolated, each in a process of its own ("unit", "hrana-mocking"); the
 * other integration tests share their worker's modules (isolate: false), which spares importing
 * the portal again for each file (about a third of the unit project's CPU time).
 */
const MOCKING = [
  "tests/integration/signin-equal-answers.test.ts",
  "tests/integration/signin-lockout.test.ts",
  "tests/integration/signin-parallel.test.ts",
];

/**
 * Whether the server's tests share their worker's modules (decision 063). tests/run.ts runs a
 * project that went silent again with each file isolated (TEST_ISOLATE_FILES=1): a shared worker has
 * hung between files, waiting on its channel with vitest, which one process per file never did.
 */
const SHARED_WORKER = process.env.TEST_ISOLATE_FILES !== "1";

/** What the "hrana" projects leave to the local file. */
const NOT_OVER_HRANA = [
  // These test the local file itself (its client, several processes on it, and the ledger's
  // property test, which opens files of its own) or the test Hrana server itself.
  "tests/integration/hrana-server.test.ts",
  "tests/integration/local-client.test.ts",
  "tests/integration/database-processes.test.ts",
  "tests/integration/ledger-property.test.ts",
  // Their runners are processes of their own on the file.
  "tests/integration/jobs-crash.test.ts",
  "tests/integration/jobs-shutdown.test.ts",
  // The HTTP surface, rendering and sign-in's answers: they reach the database through the
  // same reads and writes the storage tests above already run over Hrana, and twice would
  // cost CI minutes for no new path (decision 014, amended).
  "tests/integration/body-limits-server.test.ts",
  "tests/integration/body-limits.test.ts",
  "tests/integration/cache-control.test.ts",
  "tests/integration/compression.test.ts",
  "tests/integration/contract-refusals.test.ts",
  "tests/integration/contracts.test.ts",
  "tests/integration/errors.test.ts",
  "tests/integration/ids.test.ts",
  "tests/integration/js-budget.test.ts",
  "tests/integration/json-bodies.test.ts",
  "tests/integration/mail.test.tsx",
  "tests/integration/page-cache.test.tsx",
  "tests/integration/pages.test.ts",
  "tests/integration/payments-pages.test.ts",
  "tests/integration/render.test.tsx",
  "tests/integration/security.test.ts",
  "tests/integration/startup-refusal.test.ts",
  "tests/integration/console-invisible.test.ts",
  "tests/integration/identity-*.test.ts",
  "tests/integration/signin-admin.test.ts",
  "tests/integration/signin-equal-answers.test.ts",
  "tests/integration/signin-forgot.test.ts",
  "tests/integration/signin-lockout.test.ts",
  "tests/integration/signin-login.test.ts",
  "tests/integration/signin-logout.test.ts",
  "tests/integration/signin-onboarding.test.ts",
  "tests/integration/signin-security.test.ts",
  "tests/integration/totp-reauth.test.ts",
  // The portal as a process of its own on a file, stopped, backed up and restored.
  "tests/integration/shutdown.test.ts",
  "tests/integration/backup.test.ts",
  "tests/integration/money-crash.test.ts",
];

export default defineConfig({
  cacheDir: "node_modules/.vite",
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          // Isolated, each file with fresh modules: the islands' tests keep client state in modules
          // (stores, the query client), and the files that mock a module need it fresh (MOCKING).
          include: ["tests/unit/**/*.test.{ts,tsx}", ...MOCKING],
          setupFiles: ["tests/helpers/setup.ts", "tests/helpers/setup-screens.ts"],
          pool: "forks",
          // A test's time is not what it checks: the integration tests sign people up (Argon2 at
          // 19 MiB each) and start processes, which on a loaded CI machine can take past vitest's
          // default 5 s. Timing budgets are the benchmarks' (deno task bench).
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          // The server's tests, each with its own database and app: they share their worker's
          // modules (decision 063), the portal imported once per worker instead of once per file.
          include: ["tests/integration/**/*.test.{ts,tsx}"],
          exclude: MOCKING,
          setupFiles: ["tests/helpers/setup.ts"],
          pool: "forks",
          isolate: !SHARED_WORKER,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: "hrana",
          include: ["tests/integration/**/*.test.{ts,tsx}"],
          exclude: [...NOT_OVER_HRANA, ...MOCKING],
          isolate: !SHARED_WORKER,
          env: { TEST_DATABASE: "hrana" },
          setupFiles: ["tests/helpers/setup.ts"],
          pool: "forks",
          // Every statement is an HTTP round trip here: the concurrency tests take seconds.
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: "hrana-mocking",
          include: MOCKING,
          exclude: NOT_OVER_HRANA,
          env: { TEST_DATABASE: "hrana" },
          setupFiles: ["tests/helpers/setup.ts"],
          pool: "forks",
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["tests/e2e/**/*.test.ts"],
          setupFiles: ["tests/helpers/setup.ts"],
          pool: "forks",
          // One browser and one server at a time: the machine has two cores.
          fileParallelism: false,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
