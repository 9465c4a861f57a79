/**
 * A personal customer's payments (issue 8 item 6), on a phone: the list shows a payment that was
 * sent and one that failed, each with its status in words, fits 390 px without scrolling sideways,
 * filters by status, and opens a payment's page, which leads back to the list.
 */
import { describe, expect } from "vitest";
import { hydrated, newPage, seriousAxeViolations } from "../helpers/browser.ts";
import { test } from "../helpers/e2e-fixtures.ts";
import { okBody, openAccountThroughApi, signInThroughPages } from "../helpers/e2e-mail.ts";
import { ensureAdministrator, todayUtc, unexpected } from "../helpers/e2e-money.ts";

const ADMIN = { email: "desk.list@portal.test", password: "desk-list-password-1" };

describe("the payments list", () => {
  test("shows a sent and a failed payment with their statuses at 390 px and opens one", async ({ server, db, browser }) => {
    const base = `${server.url}/api`;
    const customer = await newPage(browser);
    const opened = await openAccountThroughApi(customer.page.request, db, server.url, {
      email: `payer-${crypto.randomUUID().slice(0, 6)}@portal.test`,
      password: "payer password 123",
      first: "Pia",
      last: "Payer",
    });
    const desk = await newPage(browser);
    await ensureAdministrator(desk.page.request, server.url, ADMIN);
    await signInThroughPages(desk.page, db, server.url, ADMIN.email, ADMIN.password);
    await okBody(
      "console/receipts",
      await desk.page.request.post(`${base}/console/receipts`, {
        data: {
          amount: "500.00",
          currency: "GBP",
          payer_name: "Pia Payer",
          reference: opened.accountRef,
          received_at: todayUtc(),
        },
      }),
    );
    const recipient = await okBody(
      "account/recipients",
      await customer.page.request.post(`${base}/account/recipients`, {
        data: {
          name: "Jean Dupont",
          type: "person",
          currency: "GBP",
          country: "GB",
          details: { sort_code: "200000", account_number: "55779911" },
        },
      }),
    );
    const pay = async (amount: string, reference: string) => {
      const quote = await okBody(
        "account/payments/quote",
        await customer.page.request.post(`${base}/account/payments/quote`, {
          data: { recipient_id: recipient.id, amount, fixed: "send", sell_currency: "GBP" },
        }),
      );
      const made = await okBody(
        "account/payments",
        await customer.page.request.post(`${base}/account/payments`, { data: { quote_id: quote.id, reference } }),
      );
      return made.id as number;
    };
    const sent = await pay("40.00", "Rent");
    const failed = await pay("25.00", "Books");
    await okBody(
      "console/payouts/submit",
      await desk.page.request.post(`${base}/console/payouts/${sent}/submit`, { data: {} }),
    );
    await okBody(
      "console/payouts/fail",
      await desk.page.request.post(`${base}/console/payouts/${failed}/fail`, {
        data: { reason: "The bank refused the account number." },
      }),
    );
    await desk.context.close();

    const page = customer.page;
    page.setDefaultTimeout(15_000);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/account/payments`);
    await hydrated(page);
    const main = page.locator("main");
    expect(await main.locator("h1").textContent()).toBe("Payments");
    const rows = main.locator("tbody tr[data-payment-id]");
    const sentRow = main.locator(`tr[data-payment-id="${sent}"]`);
    const failedRow = main.locator(`tr[data-payment-id="${failed}"]`);
    // Newest first: the failed payment was made second.
    expect(await rows.evaluateAll((trs) => trs.map((r) => Number(r.getAttribute("data-payment-id"))))).toEqual([
      failed,
      sent,
    ]);
    // On a phone the status is said under the recipient (the status column is left out).
    expect(await sentRow.locator("span[data-status]").filter({ visible: true }).allTextContents()).toEqual(["Sent"]);
    expect(await failedRow.locator("span[data-status]").filter({ visible: true }).allTextContents()).toEqual([
      "Failed",
    ]);
    expect(await sentRow.innerText()).toMatch(/Jean Dupont[\s\S]*Rent[\s\S]*Debited:\s*40\.00 GBP/);
    expect(await failedRow.innerText()).toMatch(/Jean Dupont[\s\S]*Books[\s\S]*Debited:\s*25\.00 GBP/);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // The status filter asks the server for one status.
    await main.getByLabel("Status").selectOption("failed");
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().getAttribute("data-payment-id")).toBe(String(failed));

    await failedRow.getByRole("link", { name: "Jean Dupont" }).click();
    await page.waitForURL(`**/account/pendingpayments/${failed}`);
    await hydrated(page);
    expect(await page.locator("main").innerText()).toContain("The bank refused the account number.");
    await page.locator("main").getByRole("link", { name: "All payments" }).click();
    await page.waitForURL("**/account/payments");
    expect(unexpected(customer.problems)).toEqual([]);
    await customer.context.close();
  });
});
