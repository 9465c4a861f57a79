import { readdirSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { makeUser, testApp } from "../helpers/app.ts";

/**
 * What a browser or a proxy may keep (issue 14, finding 7; decision 023): nothing of a signed-in
 * page and nothing of any call (no-store); public pages for visitors and the built assets keep
 * their own caching.
 */

describe("Cache-Control", () => {
  test("every /api answer is no-store: signed in or not, success or failure, known call or not", async () => {
    const t = await testApp();
    const visitor = await Promise.all([
      t.app.request("/api/health"),
      t.app.request("/api/account/whoami"),
      t.app.request("/api/no-such-call"),
      t.app.request("/api/auth/login", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "http://localhost" },
        body: "{}",
      }),
    ]);
    expect(visitor.map((r) => r.status)).toEqual([200, 401, 404, 422]);
    for (const res of visitor) expect(res.headers.get("cache-control"), res.url).toBe("no-store");

    t.signIn(makeUser());
    const whoami = await t.app.request("/api/account/whoami");
    expect(whoami.status).toBe(200);
    expect(whoami.headers.get("cache-control")).toBe("no-store");
  });

  test("signed-in pages are no-store, the public home page among them", async () => {
    const t = await testApp();
    t.signIn(makeUser());
    for (const path of ["/account", "/account/security", "/", "/calculator", "/no-such-page"]) {
      const res = await t.app.request(path);
      expect(res.headers.get("cache-control"), path).toBe("no-store");
    }
  });

  test("a visitor's public pages and the built assets keep their own caching", async () => {
    const t = await testApp();
    for (const path of ["/", "/calculator"]) {
      const res = await t.app.request(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control") ?? "", path).not.toMatch(/no-store/);
    }
    const asset = readdirSync("dist/assets").find((name) => name.endsWith(".css"))!;
    const res = await t.app.request(`/assets/${asset}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect((await t.app.request("/favicon.svg")).headers.get("cache-control")).toBe("public, max-age=86400");
  });
});
