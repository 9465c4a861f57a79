import { beforeAll, describe, expect, test } from "vitest";
import { redirects } from "../../db/schema.ts";
import { RedirectTable } from "../../server/http/redirects.ts";
import { type TestApp, testApp } from "../helpers/app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
  await t.db.insert(redirects).values([
    { path: "/rates", target: "/calculator", status: 301 },
    { path: "/help", target: "https://help.example.com/portal" },
    { path: "/api/health", target: "/elsewhere" },
  ]);
});

describe("the redirects table", () => {
  test("sends a path to its target on the site", async () => {
    const res = await t.app.request("/rates");
    expect(res.status).toBe(301);
    expect(res.headers.get("location")).toBe("/calculator");
  });

  test("sends an absolute target off the site", async () => {
    const res = await t.app.request("/help");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("https://help.example.com/portal");
  });

  test("never redirects calls", async () => {
    expect((await t.app.request("/api/health")).status).toBe(200);
  });

  test("a path without a row is served as usual", async () => {
    expect((await t.app.request("/calculator")).status).toBe(200);
  });

  test("an operator's new row is followed once the cached table refreshes", async () => {
    let now = 0;
    const table = new RedirectTable(t.db, 5_000, () => now);
    expect(await table.lookup("/promo")).toBeUndefined();
    await t.db.insert(redirects).values({ path: "/promo", target: "/register" });
    now = 4_000;
    expect(await table.lookup("/promo")).toBeUndefined();
    now = 5_001;
    expect(await table.lookup("/promo")).toEqual({ target: "/register", status: 302 });
  });
});
