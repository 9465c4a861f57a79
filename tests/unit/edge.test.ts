import { describe, expect, test } from "vitest";
import { edgeProblems } from "../../server/edge.ts";

/** What deploy.ts refuses to start without (decision 043). */
describe("the settings an instance on Deno Deploy needs", () => {
  const ready = {
    DATABASE_URL: "libsql://portal-acme.turso.io",
    DATABASE_AUTH_TOKEN: "token",
    APP_SECRET: "k".repeat(32),
  };

  test("a Turso database with its token and an APP_SECRET of 32 characters or more: none", () => {
    expect(edgeProblems(ready)).toEqual([]);
    expect(edgeProblems({ ...ready, DATABASE_URL: "https://portal-acme.turso.io" })).toEqual([]);
  });

  test("a local file, no database, no token, no or a short APP_SECRET: each named", () => {
    expect(edgeProblems({ ...ready, DATABASE_URL: "file:data/portal.db" })).toEqual([
      expect.stringContaining("DATABASE_URL is file:"),
    ]);
    expect(edgeProblems({ ...ready, DATABASE_URL: undefined })).toEqual([
      expect.stringContaining("DATABASE_URL is not set"),
    ]);
    expect(edgeProblems({ ...ready, DATABASE_AUTH_TOKEN: "" })).toEqual([
      expect.stringContaining("DATABASE_AUTH_TOKEN is not set"),
    ]);
    expect(edgeProblems({ ...ready, APP_SECRET: undefined })).toEqual([
      expect.stringContaining("APP_SECRET is not set"),
    ]);
    expect(edgeProblems({ ...ready, APP_SECRET: "short" })).toEqual([
      "APP_SECRET must have at least 32 characters.",
    ]);
  });
});
