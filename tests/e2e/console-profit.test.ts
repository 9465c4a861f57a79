/**
 * The profit report in Chromium (issue 11, item 7): after a customer converts pounds to euros, an
 * administrator opens Profit reports from the console's menu, sees the conversion's fee and markup
 * in today's row, splits by partner (under "No partner": nobody introduced her), and downloads the
 * CSV, whose row (read with a CSV library) is the one the page shows.
 */
import { parse } from "csv-parse/sync";
import { readFileSync } from "node:fs";
import { describe, expect, vi } from "vitest";
import { test } from "../helpers/e2e-fixtures.ts";
import { newPage, seriousAxeViolations } from "../helpers/browser.ts";
import { openAccountThroughApi, signInThroughPages } from "../helpers/e2e-mail.ts";
import { ensureAdministrator, todayUtc, unexpected } from "../helpers/e2e-money.ts";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const ADMIN = { email: "finance@portal.test", password: "finance-password-1" };
const CUSTOMER = { email: "ada.profit@portal.test", password: "profit-password-1", first: "Ada", last: "Lovelace" };

describe("profit reports", () => {
  test("after a conversion the administrator sees its fee and markup and downloads the CSV", async ({ server, db, browser }) => {
    const customer = await newPage(browser);
    const ada = await openAccountThroughApi(customer.page.request, db, server.url, CUSTOMER);

    const admin = await newPage(browser);
    const { page, problems } = admin;
    page.setDefaultTimeout(15_000);
    await ensureAdministrator(page.request, server.url, ADMIN);
    await signInThroughPages(page, db, server.url, ADMIN.email, ADMIN.password);
    const recorded = await page.request.post(`${server.url}/api/console/receipts`, {
      data: {
        amount: "500.00",
        currency: "GBP",
        payer_name: "Ada Lovelace",
        reference: ada.accountRef,
        received_at: todayUtc(),
      },
    });
    expect(recorded.status(), await recorded.text()).toBe(201);

    // Ada converts 200.00 GBP to euros.
    const quoted = await customer.page.request.post(`${server.url}/api/account/conversions/quote`, {
      data: { sell_currency: "GBP", buy_currency: "EUR", amount: "200.00", fixed: "sell" },
    });
    expect(quoted.status(), await quoted.text()).toBe(200);
    const quote = (await quoted.json()).body as { id: string; fee: string };
    const shown = await customer.page.request.get(`${server.url}/api/quote?sell=GBP&buy=EUR&amount=200.00&fixed=sell`);
    const { markup } = (await shown.json()).body as { markup: string };
    const converted = await customer.page.request.post(`${server.url}/api/account/conversions`, {
      data: { quote_id: quote.id },
    });
    expect(converted.status(), await converted.text()).toBe(201);
    await customer.context.close();
    const total = (Number(markup) + Number(quote.fee)).toFixed(2);
    // The default plan charges a fee and a markup on this amount: both figures are there to see.
    expect(Number(markup)).toBeGreaterThan(0);
    expect(Number(quote.fee)).toBeGreaterThan(0);

    await page.goto(`${server.url}/console/users`);
    await page.getByRole("link", { name: "Profit reports" }).first().click();
    await page.waitForURL(`${server.url}/console/profitReports`);
    const row = page.locator(`tr[data-row="${todayUtc()} GBP"]`);
    const cells = async () => (await row.locator("td").allTextContents()).map((t) => t.trim());
    expect(await cells()).toEqual([todayUtc(), "GBP", markup, quote.fee, total]);
    expect(await page.locator('figure[data-chart="GBP"] svg rect').count()).toBeGreaterThan(0);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // By partner: no partner introduced this customer.
    await page.getByLabel("Split by").selectOption("partner");
    await page.getByRole("button", { name: "Show" }).click();
    await page.waitForURL(/by=partner/);
    expect(await cells()).toEqual([todayUtc(), "GBP", "No partner", markup, quote.fee, total]);

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download CSV" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^profit-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}-day\.csv$/);
    const csv: Record<string, string>[] = parse(readFileSync((await download.path())!, "utf8"), { columns: true });
    expect(csv).toEqual([
      { period: todayUtc(), currency: "GBP", partner: "No partner", markup, fees: quote.fee, total },
    ]);
    expect(unexpected(problems)).toEqual([]);
    await admin.context.close();
  });
});
