import { defineConfig } from "vitest/config";

/**
 * Three projects: "unit" (logic, server routes through app.request, islands in happy-dom), "hrana"
 * (the integration tests again, their databases reached over libSQL's Hrana protocol as Turso would
 * be: decision 014) and "e2e" (a real server and Debian's Chromium through playwright-core).
 * tests/run.ts runs them all and prints the closing count.
 */
export default defineConfig({
  cacheDir: "node_modules/.vite",
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.{ts,tsx}", "tests/integration/**/*.test.{ts,tsx}"],
          setupFiles: ["tests/helpers/setup.ts"],
          pool: "forks",
        },
      },
      {
        extends: true,
        test: {
          name: "hrana",
          include: ["tests/integration/**/*.test.{ts,tsx}"],
          // These test the local file itself (its client, several processes on it, and the ledger's
          // property test, which opens files of its own) or the test Hrana server itself.
          exclude: [
            "tests/integration/hrana-server.test.ts",
            "tests/integration/local-client.test.ts",
            "tests/integration/database-processes.test.ts",
            "tests/integration/ledger-property.test.ts",
            // Their runners are processes of their own on the file.
            "tests/integration/jobs-crash.test.ts",
            "tests/integration/jobs-shutdown.test.ts",
            // The portal as a process of its own on a file, stopped, backed up and restored.
            "tests/integration/shutdown.test.ts",
            "tests/integration/backup.test.ts",
          ],
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
