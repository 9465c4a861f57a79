import { afterEach, beforeEach, vi } from "vitest";

/**
 * console.error during a test fails it: an error a user would never see in a log is still an error.
 * A test that expects one spies on console.error itself.
 */
let errors: unknown[][] = [];
beforeEach(() => {
  errors = [];
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    errors.push(args);
  });
});
afterEach(() => {
  const seen = errors;
  vi.restoreAllMocks();
  if (seen.length) {
    throw new Error(
      `console.error was called during the test:\n${seen.map((a) => a.map(String).join(" ")).join("\n")}`,
    );
  }
});
