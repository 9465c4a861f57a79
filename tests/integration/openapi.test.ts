import { beforeAll, describe, expect, test } from "vitest";
import { documentedAt } from "../../server/http/openapi.ts";
import { REGISTERED_CALLS } from "../../server/http/route.ts";
import { type TestApp, testApp } from "../helpers/app.ts";

/**
 * The OpenAPI document (decision 042): every call the app answers under /api/ is in it, described
 * from its own contract, and it is served to anyone, cacheable, and browsable outside production.
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
let document: Document;

beforeAll(async () => {
  t = await testApp();
  const res = await t.app.request("/api/openapi.json");
  expect(res.status).toBe(200);
  document = await res.json();
});

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
    expect((await production.app.request("/api/openapi.json")).status).toBe(200);
  });
});
