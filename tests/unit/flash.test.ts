import { Hono } from "hono";
import { expect, test } from "vitest";
import { flash, takeFlash } from "../../server/render/flash.ts";
import type { AppEnv } from "../../server/env.ts";

test("several notifications queued in one request all reach the next page, in order", async () => {
  const app = new Hono<AppEnv>();
  app.get("/save", (c) => {
    flash(c, { title: "Saved" });
    flash(c, { title: "Emailed", color: "info" });
    return c.redirect("/next");
  });
  app.get("/next", (c) => c.json(takeFlash(c).map((n) => n.title)));

  const saved = await app.request("/save");
  // A browser keeps the last value set for a cookie.
  const cookie = saved.headers.getSetCookie().findLast((h) => h.startsWith("flash="))!.split(";")[0];
  const next = await app.request("/next", { headers: { cookie } });
  expect(await next.json()).toEqual(["Saved", "Emailed"]);
  expect(next.headers.getSetCookie().some((h) => h.startsWith("flash=;"))).toBe(true);
});

test("in production the notification's cookie goes over HTTPS only, as the session's does", async () => {
  const cookieOf = async (appEnv: string) => {
    const app = new Hono<AppEnv>();
    app.use((c, next) => {
      c.set("config", { appEnv } as AppEnv["Variables"]["config"]);
      return next();
    });
    app.get("/save", (c) => {
      flash(c, { title: "Saved" });
      return c.redirect("/next");
    });
    return (await app.request("/save")).headers.getSetCookie().find((h) => h.startsWith("flash="))!;
  };
  expect(await cookieOf("production")).toMatch(/; Secure/);
  expect(await cookieOf("test")).not.toMatch(/; Secure/);
});
