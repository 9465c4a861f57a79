import { Hono } from "hono";
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { z } from "zod";
import { defineCall } from "../../lib/contracts/define.ts";
import { ErrorPage } from "../../routes/pages/ErrorPage.tsx";
import { loadConfig } from "../../server/config.ts";
import type { AppEnv } from "../../server/env.ts";
import { errorHandlers } from "../../server/http/errors.tsx";
import { REGISTERED_CALLS, route } from "../../server/http/route.ts";
import { type TestApp, testApp } from "../helpers/app.ts";

const ROOT = resolve(import.meta.dirname!, "../..");
const callOf = (method: string, path: string) => `${method} ${path}`;

let t: TestApp;
/** Each call (method and path under /api) of each route file, by the file's path. */
const fileOfCall = new Map<string, string>();

beforeAll(async () => {
  t = await testApp();
  for (const name of readdirSync(join(ROOT, "routes/api")).filter((n) => /\.tsx?$/.test(n))) {
    const file = `routes/api/${name}`;
    const module = await import(join(ROOT, file));
    for (const group of Object.values(module).filter((v): v is Hono => v instanceof Hono)) {
      // Every group of calls is mounted under /api/ (app.ts).
      for (const r of group.routes) if (r.method !== "ALL") fileOfCall.set(callOf(r.method, `/api${r.path}`), file);
    }
  }
});

/** Every call the app answers under /api/: its routes other than middleware. */
function appCalls(): string[] {
  const calls = t.app.routes.filter((r) => r.path.startsWith("/api/") && r.method !== "ALL");
  return [...new Set(calls.map((r) => callOf(r.method, r.path)))].sort();
}

const contracted = () => new Set([...REGISTERED_CALLS].map((c) => callOf(c.method, `/api${c.path}`)));

describe("every call is on a contract", () => {
  test("every call the app answers under /api/ was registered through route() with its contract", () => {
    const calls = appCalls();
    expect(calls.length).toBeGreaterThan(10);
    const withContract = contracted();
    const without = calls.filter((call) => !withContract.has(call));
    expect(
      without,
      `Calls without a contract (register them with route() from a contract in lib/contracts/):\n  ${
        without.map((call) => `${call} (${fileOfCall.get(call) ?? "unknown file"})`).join("\n  ")
      }\n`,
    ).toEqual([]);
  });
});

describe("an answer that drifts from its contract", () => {
  const ratesProbe = defineCall({
    method: "GET",
    path: "/probe/rates",
    summary: "A probe whose handler answers a rate as a number where the contract says a decimal string.",
    guards: [],
    answer: z.object({ base: z.string(), rates: z.record(z.string(), z.string()) }),
  });

  /** An app with one call, in the given environment, answering what its contract does not allow. */
  function appWithDriftingCall(
    appEnv: "test" | "production",
    answer: () => unknown = () => ({ base: "EUR", rates: { USD: 1.1 } }),
  ) {
    const config = loadConfig({ APP_ENV: appEnv, PUBLIC_URL: "http://localhost" });
    const calls = new Hono<AppEnv>();
    route(calls, ratesProbe, answer as never);
    REGISTERED_CALLS.delete(ratesProbe);
    const app = new Hono<AppEnv>();
    app.use(async (c, next) => {
      c.set("config", config);
      c.set("user", null);
      await next();
    });
    app.route("/api", calls);
    app.onError(errorHandlers(ErrorPage).onError);
    return app;
  }

  test("fails the call in tests, naming the contract and what does not match", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await appWithDriftingCall("test").request("/api/probe/rates");
    expect(res.status).toBe(500);
    expect(logged).toHaveBeenCalledTimes(1);
    const error = String(logged.mock.calls[0][0]);
    expect(error).toContain("The answer of GET /api/probe/rates does not match its contract");
    expect(error).toContain("rates.USD");
  });

  test("fails the call in tests when it carries a field the contract does not name", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await appWithDriftingCall("test", () => ({ base: "EUR", rates: {}, created_by: 7 })).request(
      "/api/probe/rates",
    );
    expect(res.status).toBe(500);
    expect(String(logged.mock.calls[0][0])).toContain(
      "The answer of GET /api/probe/rates does not match its contract: created_by: not in the contract",
    );
  });

  test("is sent as it is in production, where answers are not parsed again (decision 011)", async () => {
    const res = await appWithDriftingCall("production").request("/api/probe/rates");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ body: { base: "EUR", rates: { USD: 1.1 } } });
  });
});
