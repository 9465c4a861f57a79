/**
 * The console's customer list keeps its search in the address: an operator who searches, opens a
 * customer and comes Back finds the same search and its results, not every customer; the address
 * of a search can be reloaded or shared.
 */
import { describe, expect, vi } from "vitest";
import { hydrated, newPage } from "../helpers/browser.ts";
import { test } from "../helpers/e2e-fixtures.ts";
import { openAccountThroughApi, signInThroughPages } from "../helpers/e2e-mail.ts";
import { ensureAdministrator } from "../helpers/e2e-money.ts";

vi.setConfig({ testTimeout: 120_000 });

const ADMIN = { email: "ops.list@portal.test", password: "list-admin-pass-1" };
const GRACE = { email: "grace.listed@portal.test", password: "listed-password-1", first: "Grace", last: "Listedhop" };
const ALAN = { email: "alan.listed@portal.test", password: "listed-password-2", first: "Alan", last: "Listedtur" };

describe("the customer list", () => {
  test("Back from a customer's page shows the same search; its address reloads it", async ({ server, db, browser }) => {
    const grace = await openAccountThroughApi((await newPage(browser)).page.request, db, server.url, GRACE);
    await openAccountThroughApi((await newPage(browser)).page.request, db, server.url, ALAN);
    const { page, problems } = await newPage(browser);
    page.setDefaultTimeout(20_000);
    await ensureAdministrator(page.request, server.url, ADMIN);
    await signInThroughPages(page, db, server.url, ADMIN.email, ADMIN.password);

    await page.goto(`${server.url}/console/users`);
    await hydrated(page);
    await page.getByLabel("Search customers").fill("listedhop");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => page.locator("main").textContent()).toContain("1 customer matches");

    await page.getByRole("link", { name: "Grace Listedhop" }).click();
    await page.waitForURL(`${server.url}/console/users/${grace.id}`);
    await page.goBack();
    await hydrated(page);
    expect(await page.getByLabel("Search customers").inputValue()).toBe("listedhop");
    await expect.poll(() => page.locator("main").textContent()).toContain("1 customer matches");
    expect(await page.locator("main").textContent()).not.toContain("Alan Listedtur");

    // The address is the search: reloaded, the server renders the same list.
    expect(new URL(page.url()).searchParams.get("q")).toBe("listedhop");
    await page.reload();
    await hydrated(page);
    expect(await page.locator("main").textContent()).toContain("1 customer matches");
    expect(problems).toEqual([]);
  });
});
