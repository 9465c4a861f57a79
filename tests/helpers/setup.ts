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

/**
 * In a DOM (the islands' tests in happy-dom), a `findBy…` or `waitFor` waits up to 5 s for what the
 * screen shows, not Testing Library's 1 s: a test is about what appears, and on a loaded CI machine
 * a click's answer through fetch, TanStack Query and a render took longer than a second.
 */
if (typeof document !== "undefined") {
  const { configure } = await import("@testing-library/react");
  configure({ asyncUtilTimeout: 5_000 });
}
