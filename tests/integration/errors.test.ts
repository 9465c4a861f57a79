import { beforeAll, describe, expect, test, vi } from "vitest";
import { type TestApp, testApp } from "../helpers/app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
  // A page that fails the way real code fails: an unexpected exception.
  t.app.get("/broken", () => {
    throw new Error("database exploded: secret detail");
  });
});

const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const FACEBOOK = "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";

describe("the error page", () => {
  test("shows a large status, 'Unexpected error occurred' and a way home, and logs the fault", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await t.app.request("/broken", { headers: { "user-agent": FIREFOX } });
    expect(res.status).toBe(500);
    const html = await res.text();
    expect(html).toMatch(/<p class="[^"]*text-8xl[^"]*">500<\/p>/);
    expect(html).toContain("Unexpected error occurred");
    expect(html).toMatch(/<a href="\/"[^>]*>Back To Home Page<\/a>/);
    expect(html).not.toContain("secret detail");
    expect(logged).toHaveBeenCalled();
  });

  test("ships no script: it renders no island", async () => {
    const html = await (await t.app.request("/nowhere")).text();
    expect(html).not.toContain("<script");
  });

  test.each([["Googlebot", GOOGLEBOT], ["a Facebook preview", FACEBOOK]])(
    "is not shown to %s: it gets a plain status and the error is only logged",
    async (_who, ua) => {
      const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
      vi.spyOn(console, "error").mockImplementation(() => {});
      const res = await t.app.request("/nowhere", { headers: { "user-agent": ua } });
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toContain("text/plain");
      expect(await res.text()).toBe("404 Not Found");
      expect(warn).toHaveBeenCalled();

      const broken = await t.app.request("/broken", { headers: { "user-agent": ua } });
      expect(broken.status).toBe(500);
      expect(await broken.text()).toBe("500 Internal Server Error");
    },
  );
});

describe("calls under /api/", () => {
  test("an unknown call answers JSON with error and message", async () => {
    const res = await t.app.request("/api/nothing-here");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: "There is no call GET /api/nothing-here.",
      message: "Not Found",
      request_id: res.headers.get("x-request-id"),
    });
  });

  test("GET /api/health answers ok once the database is migrated", async () => {
    const res = await t.app.request("/api/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      body: {
        ok: true,
        database: { round_trip_ms: expect.any(Number) },
        jobs: { queued: 0, running: 0, failed: 0 },
      },
    });
  });

  test("GET /api/health answers 503 when the migrations have not run", async () => {
    await t.db.$client.execute("ALTER TABLE __drizzle_migrations RENAME TO __drizzle_migrations_away");
    try {
      const res = await t.app.request("/api/health");
      expect(res.status).toBe(503);
      expect((await res.json()).error).toBe("The database is not ready yet.");
    } finally {
      await t.db.$client.execute("ALTER TABLE __drizzle_migrations_away RENAME TO __drizzle_migrations");
    }
  });
});
