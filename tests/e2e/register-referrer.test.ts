/**
 * Where a new customer came from, in Chromium (decision 069): /register is kept for every visitor,
 * so the referring site is what the browser tells the registration form (document.referrer), not
 * the request. A visitor who follows a link on another site to /register and opens an account has
 * that site recorded in their attribution, with the campaign of the link; one who types the address
 * has none.
 */
import { afterAll, describe, expect, vi } from "vitest";
import type { Database } from "../../db/client.ts";
import { hydrated, newPage } from "../helpers/browser.ts";
import { test } from "../helpers/e2e-fixtures.ts";
import { lastEmailId, waitForEmail } from "../helpers/e2e-mail.ts";
import { unexpected } from "../helpers/e2e-money.ts";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

/** Another site (another origin: its own host and port), with a page that links to the portal. */
let partner: Deno.HttpServer<Deno.NetAddr> | undefined;
function partnerSite(portalUrl: string): string {
  partner ??= Deno.serve({ hostname: "localhost", port: 0, onListen() {} }, () =>
    new Response(
      `<!doctype html><html lang="en"><title>Partner blog</title>` +
        `<a href="${portalUrl}/register?utm_source=blog&amp;utm_campaign=winter">Open an account</a></html>`,
      { headers: { "content-type": "text/html; charset=utf-8" } },
    ));
  return `http://localhost:${partner.addr.port}`;
}
afterAll(() => partner?.shutdown());

/** The attribution stored for the customer of this address. */
async function attributionOf(db: Database, email: string) {
  const { rows } = await db.$client.execute({
    sql: "SELECT a.utm_source, a.utm_campaign, a.referrer, a.landing_path FROM attributions a " +
      "JOIN users u ON u.id = a.user_id WHERE u.username = ?",
    args: [email],
  });
  return rows.map((row) => ({ ...row }));
}

describe("a registration's referring site", () => {
  test("a visitor who follows another site's link has that site recorded; one who types the address has none", async ({ server, db, browser }) => {
    const site = partnerSite(server.url);
    // The page is kept: a first visitor's answer is what the next ones get, whatever their Referer.
    const landing = "/register?utm_source=blog&utm_campaign=winter";
    expect((await fetch(`${server.url}${landing}`, { headers: { referer: "https://elsewhere.example/" } })).status)
      .toBe(200);

    for (const arrival of ["link", "typed"] as const) {
      const email = `came-${arrival}-${crypto.randomUUID().slice(0, 6)}@portal.test`;
      const { page, problems } = await newPage(browser);
      page.setDefaultTimeout(15_000);
      if (arrival === "link") {
        await page.goto(`${site}/`);
        await page.getByRole("link", { name: "Open an account" }).click();
        await page.waitForURL(`${server.url}${landing}`);
      } else {
        await page.goto(`${server.url}${landing}`);
      }
      await hydrated(page);
      const form = page.getByRole("form", { name: "Open an account" });
      await form.getByLabel("Email").fill(email);
      await form.getByLabel("Password").fill("came-from-password-1");
      const mark = await lastEmailId(db);
      await form.getByRole("button", { name: "Open an account" }).click();
      await page.waitForURL(`${server.url}/verify`);
      await waitForEmail(db, email, { template: "email-validation", after: mark });
      // The browser tells another site its origin only (the referrer policy of the partner's page,
      // strict-origin-when-cross-origin by default), as it did in the Referer header.
      expect(await attributionOf(db, email)).toEqual([{
        utm_source: "blog",
        utm_campaign: "winter",
        referrer: arrival === "link" ? `${site}/` : null,
        landing_path: landing,
      }]);
      expect(unexpected(problems)).toEqual([]);
      await page.context().close();
    }
  });
});
