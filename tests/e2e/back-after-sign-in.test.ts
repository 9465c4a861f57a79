/**
 * The back button after signing in (decision 069): the home page is kept for every visitor
 * (decision 058), and Back brings it out of the browser's HTTP cache or back/forward cache without
 * asking the server. Once this browser has signed in, that page does not offer the Sign in form
 * again: it is loaded anew and shows who is signed in and where to go next.
 */
import { describe, expect, vi } from "vitest";
import { hydrated, newPage } from "../helpers/browser.ts";
import { test } from "../helpers/e2e-fixtures.ts";
import { openAccountThroughApi, signInThroughPages } from "../helpers/e2e-mail.ts";
import { unexpected } from "../helpers/e2e-money.ts";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

describe("the back button after signing in", () => {
  test("Back from the account to the home page shows the signed-in home, not the Sign in form", async ({ server, db, browser }) => {
    const customer = {
      email: `back-${crypto.randomUUID().slice(0, 6)}@portal.test`,
      password: "back-button-password-1",
    };
    const opener = await newPage(browser);
    await openAccountThroughApi(opener.page.request, db, server.url, customer);
    await opener.context.close();

    const { page, problems } = await newPage(browser);
    page.setDefaultTimeout(15_000);
    // Signed in from the home page as a visitor gets it (the kept page), through its Sign in form.
    await signInThroughPages(page, db, server.url, customer.email, customer.password);
    await page.waitForURL(`${server.url}/account`);
    await hydrated(page);

    // Back to the home page (past /second-factor, which sends a signed-in person on to /account).
    for (let i = 0; i < 3 && new URL(page.url()).pathname !== "/"; i++) await page.goBack();
    expect(new URL(page.url()).pathname).toBe("/");
    const main = page.locator("main");
    await expect.poll(() => main.innerText(), { timeout: 15_000 }).toContain(`Signed in as ${customer.email}`);
    expect(await page.getByRole("form", { name: "Sign in" }).count()).toBe(0);
    expect(await main.getByRole("link", { name: "Go to my account" }).count()).toBe(1);
    expect(unexpected(problems)).toEqual([]);
  });
});
