/**
 * The console's alerts and emails in Chromium (issue 11 items 3 and 4, decision 045): a customer's
 * large payment raises an alert; an administrator sees it counted in the console menu, assigns it
 * to themselves, resolves it with a note and finds it among the resolved ones; then finds an email
 * the portal sent the customer, opens it (its HTML in a sandboxed frame) and sends it again.
 */
import { describe, expect, vi } from "vitest";
import { hydrated, newPage } from "../helpers/browser.ts";
import { test as e2e } from "../helpers/e2e-fixtures.ts";
import { okBody, openAccountThroughApi, signInThroughPages } from "../helpers/e2e-mail.ts";
import { ensureAdministrator, todayUtc, unexpected } from "../helpers/e2e-money.ts";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

const ADMIN = { email: "alerts-desk@portal.test", password: "alerts-desk-password-123" };

// Payments above 100 GBP raise an alert: one the test can make without a fortune.
const test = e2e.override("serverSettings", { scope: "file" }, () => ({ env: { ALERT_PAYMENT_GBP: "100" } }));

describe("the console's alerts and emails", () => {
  test("an administrator resolves the alert a large payment raised, then resends an email", async ({ server, db, browser }) => {
    const base = `${server.url}/api`;
    const owner = await newPage(browser);
    const ownerEmail = `alerted-${crypto.randomUUID().slice(0, 6)}@portal.test`;
    const opened = await openAccountThroughApi(owner.page.request, db, server.url, {
      email: ownerEmail,
      password: "owner password 123",
      first: "Grace",
      last: "Hopper",
    });
    const desk = await newPage(browser);
    const page = desk.page;
    page.setDefaultTimeout(15_000);
    await ensureAdministrator(page.request, server.url, ADMIN);
    await signInThroughPages(page, db, server.url, ADMIN.email, ADMIN.password);
    await okBody(
      "console/receipts",
      await page.request.post(`${base}/console/receipts`, {
        data: {
          amount: "1000.00",
          currency: "GBP",
          payer_name: "Grace Hopper",
          reference: opened.accountRef,
          received_at: todayUtc(),
        },
      }),
    );
    const recipient = await okBody(
      "account/recipients",
      await owner.page.request.post(`${base}/account/recipients`, {
        data: {
          name: "Mary Smith",
          type: "person",
          currency: "GBP",
          country: "GB",
          details: { sort_code: "200000", account_number: "55779911" },
        },
      }),
    );
    const quote = await okBody(
      "account/payments/quote",
      await owner.page.request.post(`${base}/account/payments/quote`, {
        data: { recipient_id: recipient.id, amount: "500.00", fixed: "send", sell_currency: "GBP" },
      }),
    );
    const payment = await okBody(
      "account/payments",
      await owner.page.request.post(`${base}/account/payments`, { data: { quote_id: quote.id, reference: "Car" } }),
    );

    // The menu counts it; the alerts page lists it.
    await page.goto(`${server.url}/console/alerts`);
    await hydrated(page);
    const menu = page.getByRole("navigation", { name: "Console" }).last();
    expect(await menu.getByRole("link", { name: /Alerts \d+ open/ }).count()).toBe(1);
    const badge = menu.locator('[data-count="/console/alerts"]');
    const openInMenu = async () => (await badge.count()) ? Number((await badge.textContent())!.replace(/\D/g, "")) : 0;
    const openBefore = await openInMenu();
    // It names who paid whom, and links to the customer and to the payment's row on the payout desk.
    const row = page.locator("tr", { hasText: "Grace Hopper paid 500.00 GBP to Mary Smith" });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.getByRole("link", { name: `Payment ${payment.id} on the payout desk` }).getAttribute("href"))
      .toBe(`/console/local#payout-${payment.id}`);
    expect(await row.getByRole("link", { name: "The customer" }).getAttribute("href")).toMatch(
      /^\/console\/users\/\d+$/,
    );

    // Assigned to oneself.
    const assign = row.getByRole("form", { name: /Assign alert/ });
    await assign.getByLabel("Administrator").selectOption({ label: ADMIN.email });
    await assign.getByRole("button", { name: "Assign" }).click();
    await expect.poll(() => row.getByText(`Now: ${ADMIN.email}`).count()).toBe(1);

    // Resolved with a note: it leaves the open list and shows among the resolved, with the note.
    await row.getByRole("button", { name: /Resolve alert/ }).click();
    const form = page.getByRole("form", { name: /Resolve alert/ });
    // The keyboard is in the note at once (decision 081), not left on Resolve.
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("TEXTAREA");
    await form.getByRole("button", { name: "Resolve the alert" }).click();
    await expect.poll(() => form.getByRole("alert").textContent()).toContain("Write what was done");
    await form.getByLabel("What was done").fill("Called Grace: buying a car. Fine.");
    await form.getByRole("button", { name: "Resolve the alert" }).click();
    await expect.poll(() => row.count()).toBe(0);
    // The menu counts one open alert less, without a reload.
    await expect.poll(openInMenu).toBe(openBefore - 1);
    await page.getByRole("button", { name: "Resolved", exact: true }).click();
    // Filtered by kind and by who it was given to.
    await page.getByLabel("Kind").selectOption("large_payment");
    await page.getByLabel("Assigned to").selectOption({ label: ADMIN.email });
    const resolved = page.locator("tr", { hasText: "Grace Hopper paid 500.00 GBP to Mary Smith" });
    await expect.poll(() => resolved.count()).toBe(1);
    expect(await resolved.textContent()).toContain("Called Grace: buying a car. Fine.");

    // The large-payment threshold is set here (audited), not by a redeploy.
    await page.getByRole("button", { name: "All", exact: true }).click();
    const threshold = page.getByRole("form", { name: "Large-payment threshold" });
    expect(await threshold.getByLabel("Alert on payments above (GBP)").inputValue()).toBe("100");
    await threshold.getByLabel("Alert on payments above (GBP)").fill("750");
    await threshold.getByRole("button", { name: "Save threshold" }).click();
    await expect.poll(async () => (await page.request.get(`${base}/console/alerts/threshold`)).json())
      .toEqual({ body: { gbp: 750 } });

    // The emails: found by the customer's address, opened, sent again.
    await page.goto(`${server.url}/console/emails`);
    await page.getByLabel("Recipient or subject").fill(ownerEmail);
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/q=/);
    const first = page.getByRole("main").getByRole("row").nth(1).getByRole("link");
    const subject = await first.textContent();
    await first.click();
    await page.waitForURL(/\/console\/emails\/\d+$/);
    await hydrated(page);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(subject);
    const frame = page.locator("iframe");
    expect(await frame.getAttribute("sandbox")).toBe("");
    // The email's own styles apply in the frame (its policy allows them, the console's would not).
    const body = page.frameLocator("iframe").locator("body");
    await expect.poll(() => body.evaluate((b) => getComputedStyle(b).backgroundColor)).not.toBe("rgba(0, 0, 0, 0)");
    expect(await page.frameLocator("iframe").locator("body").textContent()).toContain(subject!.slice(0, 5));
    // The customer is named and linked, not "Customer 12".
    expect(await page.getByRole("main").getByRole("link", { name: "Grace Hopper" }).getAttribute("href"))
      .toMatch(/^\/console\/users\/\d+$/);
    // Sending again asks first.
    await page.getByRole("button", { name: `Send again to ${ownerEmail}` }).click();
    await expect.poll(() => page.getByRole("status").filter({ hasText: "will receive this email again" }).count())
      .toBe(1);
    await page.getByRole("button", { name: "Yes, send it again" }).click();
    const status = page.getByRole("status").filter({ hasText: "Sent again as" });
    await expect.poll(() => status.count()).toBe(1);
    await status.getByRole("link").click();
    await page.waitForURL(/\/console\/emails\/\d+$/);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(subject);

    expect(unexpected(desk.problems)).toEqual([]);
  });
});
