import type { Browser } from "playwright-core";
import { describe, expect } from "vitest";
import { test } from "../helpers/e2e-fixtures.ts";
import { createAdminOverHttp, fundedCustomerOverHttp } from "../helpers/http-customer.ts";

/**
 * On a phone the signed-in pages start with their content, the menu folded behind one "Menu" line
 * that the keyboard opens (issue 9); on a wide screen the menu is the sidebar, as before.
 */

let cookies: { name: string; value: string; url: string }[] = [];
/** A second person, who belongs to two accounts with long names; the first is chosen. */
let linked: { cookies: typeof cookies; ref: string; name: string };

const cookiesOf = (session: { cookieHeader(): string }, url: string) =>
  session.cookieHeader().split("; ").map((pair) => {
    const at = pair.indexOf("=");
    return { name: pair.slice(0, at), value: pair.slice(at + 1), url };
  });

test.beforeAll(async ({ server, db }) => {
  const admin = await createAdminOverHttp(server.url, db);
  const customer = await fundedCustomerOverHttp(server.url, db, admin, { funds: { GBP: "100.00" } });
  cookies = cookiesOf(customer.session, server.url);
  const other = await fundedCustomerOverHttp(server.url, db, admin, { funds: { GBP: "100.00" } });
  const names = ["Northwind Trading and Logistics Limited", "Northwind Trading and Logistics Holdings"];
  await db.$client.execute({
    sql: "UPDATE accounts SET name = ? WHERE account_ref = ?",
    args: [names[0], customer.accountRef],
  });
  await db.$client.execute({
    sql: "UPDATE accounts SET name = ? WHERE account_ref = ?",
    args: [names[1], other.accountRef],
  });
  await db.$client.execute({
    sql: `INSERT INTO account_members (account_id, user_id, role, created_at)
          SELECT id, ?, 'viewer', ? FROM accounts WHERE account_ref = ?`,
    args: [other.id, Date.now(), customer.accountRef],
  });
  const chose = await fetch(`${server.url}/api/account/select`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.url, cookie: other.session.cookieHeader() },
    body: JSON.stringify({ account_ref: customer.accountRef }),
  });
  expect(chose.status, await chose.text()).toBe(200);
  linked = { cookies: cookiesOf(other.session, server.url), ref: customer.accountRef, name: names[0] };
}, 120_000);

async function pageOfWidth(browser: Browser, width: number, height: number, signedIn = cookies) {
  const context = await browser.newContext({ viewport: { width, height } });
  await context.addCookies(signedIn);
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

      // The header names the account the page acts on (a short name: on one line).
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
      // Escape folds it again, from its line or from a link inside, and the keyboard stays on "Menu".
      await page.keyboard.press("Escape");
      await expect.poll(() => convert.isVisible()).toBe(false);
      expect(await menu.evaluate((el) => el === document.activeElement)).toBe(true);
      await page.keyboard.press("Enter");
      await expect.poll(() => convert.isVisible()).toBe(true);
      await convert.focus();
      await page.keyboard.press("Escape");
      await expect.poll(() => convert.isVisible()).toBe(false);
      expect(await menu.evaluate((el) => el === document.activeElement)).toBe(true);
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

  test(
    "on a 390 px screen someone with several accounts reads which one they are on, whole, beside Switch account",
    async ({ server, browser }) => {
      const { context, page, problems } = await pageOfWidth(browser, 390, 844, linked.cookies);
      await page.goto(`${server.url}/account/balances`);
      await page.waitForSelector("html[data-hydrated]", { state: "attached" });
      const badge = page.locator(`header [data-current-account="${linked.ref}"]`);
      const name = badge.locator("[data-account-name]");
      // The whole name and the reference are on screen, not cut to "N…" beside the switch.
      expect((await name.textContent())?.trim()).toBe(linked.name);
      expect(await name.evaluate((el) => el.getBoundingClientRect().right <= innerWidth)).toBe(true);
      expect(await name.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
      const ref = badge.locator("[data-account-ref]");
      expect(await ref.isVisible()).toBe(true);
      expect((await ref.textContent())?.trim()).toBe(linked.ref);
      const ends = await ref.evaluate((el) => el.getBoundingClientRect().right);
      expect(ends).toBeLessThanOrEqual(390);
      expect(await badge.getByRole("link", { name: "Switch account" }).isVisible()).toBe(true);
      expect(await page.getByRole("button", { name: "Sign out" }).isVisible()).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      // The content still starts in the first screen.
      const heading = (await page.getByRole("heading", { level: 1, name: "Balances" }).boundingBox())!;
      expect(heading.y + heading.height).toBeLessThan(340);
      if (Deno.env.get("MOBILE_MENU_E2E_SCREENSHOTS")) {
        await page.screenshot({ path: "/tmp/mobile-menu-linked-390.png" });
      }
      // From md up the account shares the header's one line again, a long name ended by an ellipsis.
      await page.setViewportSize({ width: 800, height: 844 });
      const middle = async (locator: typeof badge) => {
        const box = (await locator.boundingBox())!;
        return Math.round(box.y + box.height / 2);
      };
      expect(Math.abs(await middle(name) - await middle(page.getByRole("button", { name: "Sign out" }))))
        .toBeLessThanOrEqual(4);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(800);
      // The reference whole, before "Switch account".
      expect(await ref.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
      const switchLink = (await badge.getByRole("link", { name: "Switch account" }).boundingBox())!;
      expect(await ref.evaluate((el) => el.getBoundingClientRect().right)).toBeLessThanOrEqual(switchLink.x);
      if (Deno.env.get("MOBILE_MENU_E2E_SCREENSHOTS")) {
        await page.screenshot({ path: "/tmp/mobile-menu-linked-800.png" });
      }
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
