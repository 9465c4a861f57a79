import { beforeAll, describe, expect, test } from "vitest";
import { makeAdmin, makeUser, type TestApp, testApp } from "../helpers/app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
  t.app.post("/api/echo", (c) => c.json({ body: "changed" }));
});

describe("secure headers on every page", () => {
  test.each(["/", "/account/reports", "/nowhere", "/api/health"])("%s carries them", async (path) => {
    t.signIn(makeUser());
    const res = await t.app.request(path);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]+'/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
  });

  test("every script of a page carries this response's nonce, and the nonce changes per response", async () => {
    t.signIn(makeAdmin());
    const first = await t.app.request("/console/admins");
    const second = await t.app.request("/console/admins");
    const nonceOf = (res: Response) => /'nonce-([^']+)'/.exec(res.headers.get("content-security-policy")!)![1];
    const html = await first.text();
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    const executable = scripts.filter((s) => !s.includes('type="application/json"'));
    expect(executable.length).toBeGreaterThan(0);
    for (const tag of executable) expect(tag).toContain(`nonce="${nonceOf(first)}"`);
    expect(nonceOf(first)).not.toBe(nonceOf(second));
  });
});

describe("state-changing requests from another origin", () => {
  test("are refused when the Origin is another site", async () => {
    const res = await t.app.request("/api/echo", { method: "POST", headers: { origin: "https://evil.example" } });
    expect(res.status).toBe(403);
    expect((await res.json()).error).toBe("This request came from another site and was refused.");
  });

  test("are refused when the browser says the request is cross-site", async () => {
    const res = await t.app.request("/api/echo", { method: "POST", headers: { "sec-fetch-site": "cross-site" } });
    expect(res.status).toBe(403);
  });

  test("pass from our own pages", async () => {
    const res = await t.app.request("http://localhost/api/echo", {
      method: "POST",
      headers: { origin: "http://localhost", "sec-fetch-site": "same-origin" },
    });
    expect(res.status).toBe(200);
  });

  test("reads from another origin are not refused (they change nothing)", async () => {
    const res = await t.app.request("/api/health", {
      headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
    });
    expect(res.status).toBe(200);
  });
});
