import { beforeAll, describe, expect, test } from "vitest";
import { documentedAt, isConsoleCall } from "../../server/http/openapi.ts";
import { REGISTERED_CALLS } from "../../server/http/route.ts";
import { makeAdmin, makeUser, type TestApp, testApp } from "../helpers/app.ts";

/**
 * The OpenAPI document (decision 042): every call the app answers under /api/ is in it, described
 * from its own contract, and it is served to anyone, cacheable, and browsable outside production.
 * The console does not reveal itself (decisions 004, 074): the public document leaves its calls
 * out, and only an administrator reads the whole document, at /api/console/openapi.json.
 */

type Operation = {
  summary: string;
  parameters: { name: string; in: string; required: boolean }[];
  requestBody?: {
    content: { "application/json": { schema: { properties: Record<string, unknown>; required?: string[] } } };
  };
  responses: Record<string, { content?: { "application/json": { schema: Record<string, unknown> } } }>;
  security: unknown[];
  "x-guards": string[];
};
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

let t: TestApp;
/** What anyone gets: every call but the console's. */
let publicDocument: Document;
/** What an administrator gets: every call. */
let document: Document;

beforeAll(async () => {
  t = await testApp();
  const res = await t.app.request("/api/openapi.json");
  expect(res.status).toBe(200);
  publicDocument = await res.json();
  t.signIn(makeAdmin());
  const whole = await t.app.request("/api/console/openapi.json");
  t.signIn(null);
  expect(whole.status).toBe(200);
  document = await whole.json();
});

/** The console's calls as the router has them ("POST /api/console/receipts/import"). */
const consoleCalls = () =>
  [...REGISTERED_CALLS].filter(isConsoleCall).map((call) => `${call.method} /api${call.path}`).sort();

/** The calls of the app's routes (the Hono router itself, not the contracts) missing from a document. */
function missingCalls(doc: Document): string[] {
  const calls = t.app.routes.filter((r) => r.path.startsWith("/api/") && r.method !== "ALL");
  return [...new Set(calls.map((r) => `${r.method} ${r.path}`))].filter((call) => {
    const [method, path] = call.split(" ");
    const at = documentedAt({ method: method as "GET", path: path.slice("/api".length) });
    return !doc.paths[at.path]?.[at.method];
  }).sort();
}

describe("the OpenAPI document", () => {
  test("describes every call the app answers under /api/", () => {
    expect(document.openapi).toBe("3.1.0");
    const missing = missingCalls(document);
    expect(missing, `Calls missing from /api/openapi.json:\n  ${missing.join("\n  ")}\n`).toEqual([]);
    expect(Object.keys(document.paths).length).toBeGreaterThan(40);
  });

  test("anyone's leaves out every console call; the administrator's has them", () => {
    expect(consoleCalls().length).toBeGreaterThan(10);
    expect(missingCalls(publicDocument)).toEqual([...new Set(consoleCalls())].sort());
    expect(Object.keys(publicDocument.paths).filter((path) => path.startsWith("/api/console"))).toEqual([]);
    // Not a word of the console anywhere in it: no path, guard or summary that names it.
    expect(JSON.stringify(publicDocument)).not.toMatch(/console|is-admin/i);
    expect(Object.keys(document.paths)).toContain("/api/console/receipts/import");
    expect(Object.keys(publicDocument.paths).length).toBeGreaterThan(40);
  });

  test("a visitor's and a customer's are the public one; the whole one is not found for them", async () => {
    const unknown = await t.app.request("/api/console/no-such-call");
    for (const who of [null, makeUser()]) {
      t.signIn(who);
      const res = await t.app.request("/api/openapi.json");
      expect(await res.json()).toEqual(publicDocument);
      const whole = await t.app.request("/api/console/openapi.json");
      expect(whole.status).toBe(404);
      // Exactly what a call that does not exist answers, but for the path it names.
      expect((await whole.json()).error.replace("openapi.json", "<path>")).toBe(
        (await unknown.clone().json()).error.replace("no-such-call", "<path>"),
      );
    }
    t.signIn(null);
  });

  test("the administrator's is personal: never kept by a cache", async () => {
    t.signIn(makeAdmin());
    const res = await t.app.request("/api/console/openapi.json");
    t.signIn(null);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  test("the check names a call the document leaves out", () => {
    const without = structuredClone(document);
    delete without.paths["/api/account/recipients/{id}"].get;
    expect(missingCalls(without)).toEqual(["GET /api/account/recipients/:id"]);
  });

  test("each call is described from its contract: summary, guards, path parameters, body fields", () => {
    for (const call of REGISTERED_CALLS) {
      const at = documentedAt(call);
      const op = document.paths[at.path][at.method];
      expect(op.summary).toBe(call.summary);
      expect(op["x-guards"]).toEqual([...call.guards]);
      expect(op.security).toEqual(call.guards.length ? [{ session: [] }] : []);
      expect(op.responses[String(call.status ?? 200)]).toBeDefined();
    }
    const recipient = document.paths["/api/account/recipients/{id}"].get;
    expect(recipient.parameters).toContainEqual(expect.objectContaining({ name: "id", in: "path", required: true }));
    const register = document.paths["/api/auth/register"].post;
    const body = register.requestBody!.content["application/json"].schema;
    expect(Object.keys(body.properties)).toContain("email");
    expect(body.required).toContain("email");
    expect(register.responses["422"]).toBeDefined();
    // A success answers inside {"body": …}, with the contract's answer there.
    const quote = document.paths["/api/account/conversions/quote"];
    const answer = Object.values(quote)[0].responses["200"].content!["application/json"].schema;
    expect(answer).toMatchObject({ required: ["body"], properties: { body: { type: "object" } } });
  });

  test("holds OpenAPI's own rules: unique operation ids, every path template's parameter declared", () => {
    const ids = new Set<string>();
    for (const [path, methods] of Object.entries(document.paths)) {
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      for (const op of Object.values(methods) as (Operation & { operationId: string })[]) {
        expect(ids.has(op.operationId), `${op.operationId} twice`).toBe(false);
        ids.add(op.operationId);
        const declared = op.parameters.filter((p) => p.in === "path").map((p) => p.name).sort();
        expect(declared, `${path}`).toEqual(templated);
      }
    }
  });

  test("is public and cacheable, the same for everyone, and revalidated by its ETag", async () => {
    const res = await t.app.request("/api/openapi.json");
    expect(res.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(await res.json()).toEqual(publicDocument);
    const etag = res.headers.get("etag");
    expect(etag).toMatch(/^"[0-9a-f]+"$/);
    const again = await t.app.request("/api/openapi.json", { headers: { "if-none-match": etag! } });
    expect(again.status).toBe(304);
    expect(again.headers.get("cache-control")).toBe("public, max-age=3600");
    // Every other call stays no-store (decision 023).
    expect((await t.app.request("/api/health")).headers.get("cache-control")).toBe("no-store");
  });
});

describe("the calls as a page, for developers", () => {
  test("lists every call with its summary outside production", async () => {
    const res = await t.app.request("/dev/api");
    expect(res.status).toBe(200);
    const page = await res.text();
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
    expect(page).toContain(`${operations.length} calls`);
    expect(page).toContain("/api/account/recipients/{id}");
    expect(page).toContain('href="/api/openapi.json"');
  });

  test("is not served in production", async () => {
    const production = await testApp({ env: { APP_ENV: "production", APP_SECRET: "x".repeat(32) } });
    expect((await production.app.request("/dev/api")).status).toBe(404);
    const res = await production.app.request("/api/openapi.json");
    expect(res.status).toBe(200);
    expect(Object.keys((await res.json()).paths).filter((path) => path.startsWith("/api/console"))).toEqual([]);
    expect((await production.app.request("/api/console/openapi.json")).status).toBe(404);
  });
});
