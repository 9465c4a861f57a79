/**
 * The transactions journey in Chromium (issue 10, part 1): a customer with money received in two
 * currencies filters the list by currency and sees only that currency's movement, opens its page
 * (who paid, and what it did to the balance), comes back and downloads the CSV of the filtered
 * list, whose rows (read with a CSV library) are what the page listed.
 */
import { parse } from "csv-parse/sync";
import { readFileSync } from "node:fs";
import { describe, expect, vi } from "vitest";
import { test } from "../helpers/e2e-fixtures.ts";
import { hydrated, newPage, seriousAxeViolations } from "../helpers/browser.ts";
import { openAccountThroughApi, signInThroughPages } from "../helpers/e2e-mail.ts";
import { definition, ensureAdministrator, todayUtc, unexpected } from "../helpers/e2e-money.ts";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const ADMIN = { email: "treasury@portal.test", password: "treasury-password-1" };
const CUSTOMER = {
  email: "ada.transactions@portal.test",
  password: "transactions-password-1",
  first: "Ada",
  last: "Lovelace",
};

describe("a customer's transactions", () => {
  test("filters by currency, opens a movement and downloads the filtered list as CSV", async ({ server, db, browser }) => {
    const { page, context, problems } = await newPage(browser);
    page.setDefaultTimeout(15_000);
    const customer = await openAccountThroughApi(page.request, db, server.url, CUSTOMER);

    // Money arrives in pounds and in euros, recorded by an administrator.
    const admin = await newPage(browser);
    await ensureAdministrator(admin.page.request, server.url, ADMIN);
    await signInThroughPages(admin.page, db, server.url, ADMIN.email, ADMIN.password);
    for (
      const [amount, currency, payer] of [["500.00", "GBP", "Ada Lovelace"], [
        "200.00",
        "EUR",
        "Société Générale, Paris",
      ]]
    ) {
      const recorded = await admin.page.request.post(`${server.url}/api/console/receipts`, {
        data: { amount, currency, payer_name: payer, reference: customer.accountRef, received_at: todayUtc() },
      });
      expect(recorded.status(), await recorded.text()).toBe(201);
    }
    await admin.context.close();

    await page.goto(`${server.url}/account`);
    await page.getByRole("link", { name: "All transactions" }).click();
    await page.waitForURL(`${server.url}/account/transactions`);
    await hydrated(page);
    const rows = page.locator("tr[data-movement]");
    await expect.poll(() => rows.count()).toBe(2);

    // Only euros.
    await page.getByLabel("Currency").selectOption("EUR");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/currency=EUR/);
    await expect.poll(() => rows.count()).toBe(1);
    const row = rows.first();
    expect(await row.textContent()).toContain("+200.00 EUR");
    expect(await row.textContent()).toContain("Société Générale, Paris");
    expect(await row.textContent()).not.toContain("GBP");
    expect(await seriousAxeViolations(page)).toEqual([]);

    // On a phone the amount is in sight, not scrolled off the side of the list.
    await page.setViewportSize({ width: 390, height: 844 });
    const amount = row.locator("td").last();
    const box = (await amount.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await amount.isVisible()).toBe(true);
    await page.setViewportSize({ width: 1280, height: 800 });

    // Its page: who paid, and what it did to the balance.
    await row.getByRole("link", { name: "Money received" }).click();
    await page.waitForURL(/\/account\/transactions\/\d+$/);
    const movement = page.getByRole("region", { name: "Movement" });
    expect(await definition(movement, "Amount")).toBe("+200.00 EUR");
    expect(await definition(page.getByRole("region", { name: "Bank transfer received" }), "Payer")).toBe(
      "Société Générale, Paris",
    );
    await page.goBack();
    await page.waitForURL(/currency=EUR/);

    // The CSV of what the page lists.
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download CSV" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`transactions-${customer.accountRef}.csv`);
    const csv: Record<string, string>[] = parse(readFileSync((await download.path())!, "utf8"), { columns: true });
    expect(csv.map((r) => [r.kind, r.currency, r.amount, r.counterparty])).toEqual([
      ["receipt", "EUR", "200.00", "Société Générale, Paris"],
    ]);
    expect(unexpected(problems)).toEqual([]);
    await context.close();
  });
});
