import { Hono } from "hono";
import { expect, test } from "vitest";
import { flash, takeFlash } from "../../server/render/flash.ts";

test("several notifications queued in one request all reach the next page, in order", async () => {
  const app = new Hono();
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
