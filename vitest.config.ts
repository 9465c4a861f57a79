import { defineConfig } from "vitest/config";

/**
 * Two projects: "unit" (logic, server routes through app.request, islands in happy-dom) and "e2e"
 * (a real server and Debian's Chromium through playwright-core). tests/run.ts runs both and prints
 * the closing count.
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
