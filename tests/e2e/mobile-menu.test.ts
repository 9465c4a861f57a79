import type { Browser } from "playwright-core";
import { describe, expect } from "vitest";
import { test } from "../helpers/e2e-fixtures.ts";
import { createAdminOverHttp, fundedCustomerOverHttp } from "../helpers/http-customer.ts";

/**
 * On a phone the signed-in pages start with their content, the menu folded behind one "Menu" line
 * that the keyboard opens (issue 9); on a wide screen the menu is the sidebar, as before.
 */

let cookies: { name: string; value: string; url: string }[] = [];

test.beforeAll(async ({ server, db }) => {
  const admin = await createAdminOverHttp(server.url, db);
  const customer = await fundedCustomerOverHttp(server.url, db, admin, { funds: { GBP: "100.00" } });
  cookies = customer.session.cookieHeader().split("; ").map((pair) => {
    const at = pair.indexOf("=");
    return { name: pair.slice(0, at), value: pair.slice(at + 1), url: server.url };
  });
}, 120_000);

async function pageOfWidth(browser: Browser, width: number, height: number) {
  const context = await browser.newContext({ viewport: { width, height } });
  await context.addCookies(cookies);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  return { context, page, problems };
}

describe("the menu of the signed-in pages", () => {
  test(
    "on a 390 px screen the content starts in the first screen, the menu one keyboard press away",
    async ({ server, browser }) => {
      const { context, page, problems } = await pageOfWidth(browser, 390, 844);
      await page.goto(`${server.url}/account/balances`);
      await page.waitForSelector("html[data-hydrated]", { state: "attached" });

      const heading = page.getByRole("heading", { level: 1, name: "Balances" });
      const box = (await heading.boundingBox())!;
      expect(box.y + box.height).toBeLessThan(300);
      const table = (await page.getByRole("table").boundingBox())!;
      expect(table.y).toBeLessThan(844);

      // The header names the account the page acts on, whole or ended by an ellipsis, on one line.
      const name = page.locator("header [data-current-account] [data-account-name]");
      expect(await name.isVisible()).toBe(true);
      const whole = await page.locator("header [data-current-account] [title]").getAttribute("title");
      expect(whole).toBeTruthy();
      expect((await name.textContent())?.trim()).toBe(whole);
      const shown = (await page.locator("header [data-current-account] [title]").boundingBox())!;
      expect(shown.width).toBeGreaterThan(40);
      expect(shown.height).toBeLessThan(30);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

      const menu = page.locator("summary", { hasText: "Menu" });
      expect(await menu.isVisible()).toBe(true);
      expect(await menu.textContent()).toContain("Balances");
      const convert = page.getByRole("navigation", { name: "Account" }).getByRole("link", { name: "Convert" });
      expect(await convert.count()).toBe(0);

      await menu.focus();
      await page.keyboard.press("Enter");
      await expect.poll(() => convert.isVisible()).toBe(true);
      // The header has no room for the account on a phone: the opened menu says which it is.
      const accountRef = await page.locator("[data-current-account]").getAttribute("data-current-account");
      const named = page.locator("[data-menu-account]");
      expect(await named.isVisible()).toBe(true);
      expect(await named.textContent()).toContain(accountRef);
      await convert.click();
      await page.waitForURL(`${server.url}/account/convert`);
      expect(problems).toEqual([]);
      await context.close();
    },
    60_000,
  );

  test("on a wide screen the menu is the sidebar, with no menu button", async ({ server, browser }) => {
    const { context, page, problems } = await pageOfWidth(browser, 1280, 800);
    await page.goto(`${server.url}/account/balances`);
    const nav = page.getByRole("navigation", { name: "Account" });
    expect(await nav.getByRole("link", { name: "Convert" }).isVisible()).toBe(true);
    expect(await page.locator("summary", { hasText: "Menu" }).isVisible()).toBe(false);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
