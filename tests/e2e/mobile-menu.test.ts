import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { openDatabase } from "../../db/client.ts";
import { launchChromium } from "../helpers/browser.ts";
import { createAdminOverHttp, fundedCustomerOverHttp } from "../helpers/http-customer.ts";
import { type RunningServer, startServer } from "../helpers/server.ts";

/**
 * On a phone the signed-in pages start with their content, the menu folded behind one "Menu" line
 * that the keyboard opens (issue 9); on a wide screen the menu is the sidebar, as before.
 */

let server: RunningServer;
let browser: Browser;
let cookies: { name: string; value: string; url: string }[] = [];

beforeAll(async () => {
  server = await startServer();
  browser = await launchChromium();
  const mailbox = await openDatabase({ url: `file:${server.dataDir}/portal.db` });
  try {
    const admin = await createAdminOverHttp(server.url, mailbox);
    const customer = await fundedCustomerOverHttp(server.url, mailbox, admin, { funds: { GBP: "100.00" } });
    cookies = customer.session.cookieHeader().split("; ").map((pair) => {
      const at = pair.indexOf("=");
      return { name: pair.slice(0, at), value: pair.slice(at + 1), url: server.url };
    });
  } finally {
    mailbox.$client.close();
  }
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function pageOfWidth(width: number, height: number) {
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
  test("on a 390 px screen the content starts in the first screen, the menu one keyboard press away", async () => {
    const { context, page, problems } = await pageOfWidth(390, 844);
    await page.goto(`${server.url}/account/balances`);
    await page.waitForSelector("html[data-hydrated]", { state: "attached" });

    const heading = page.getByRole("heading", { level: 1, name: "Balances" });
    const box = (await heading.boundingBox())!;
    expect(box.y + box.height).toBeLessThan(300);
    const table = (await page.getByRole("table").boundingBox())!;
    expect(table.y).toBeLessThan(844);

    const menu = page.locator("summary", { hasText: "Menu" });
    expect(await menu.isVisible()).toBe(true);
    expect(await menu.textContent()).toContain("Balances");
    const convert = page.getByRole("navigation", { name: "Account" }).getByRole("link", { name: "Convert" });
    expect(await convert.count()).toBe(0);

    await menu.focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => convert.isVisible()).toBe(true);
    await convert.click();
    await page.waitForURL(`${server.url}/account/convert`);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  test("on a wide screen the menu is the sidebar, with no menu button", async () => {
    const { context, page, problems } = await pageOfWidth(1280, 800);
    await page.goto(`${server.url}/account/balances`);
    const nav = page.getByRole("navigation", { name: "Account" });
    expect(await nav.getByRole("link", { name: "Convert" }).isVisible()).toBe(true);
    expect(await page.locator("summary", { hasText: "Menu" }).isVisible()).toBe(false);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
