/**
 * The rate alerts journey in Chromium (issue 10 part 3, decision 038): a customer sets an alert
 * on GBP to EUR beside the rate now, an administrator changes the rates through the console's
 * call (as the money journeys do), and the customer is emailed and, on their next page, shown the
 * notification; the alert says when it fired and at what rate, and the dashboard lists it.
 * RATEALERTS_E2E_SCREENSHOTS=1 keeps a screenshot of each step in /tmp/ratealerts-e2e-*.png.
 */
import type { Page } from "playwright-core";
import { describe, expect, vi } from "vitest";
import { hydrated, newPage, seriousAxeViolations } from "../helpers/browser.ts";
import { test } from "../helpers/e2e-fixtures.ts";
import { lastEmailId, openAccountThroughApi, signInThroughPages, waitForEmail } from "../helpers/e2e-mail.ts";
import { ensureAdministrator, unexpected } from "../helpers/e2e-money.ts";

vi.setConfig({ testTimeout: 90_000 });

const ADMIN = { email: "rates.desk@portal.test", password: "rates-desk-password-1" };

async function step(page: Page, name: string): Promise<void> {
  if (Deno.env.get("RATEALERTS_E2E_SCREENSHOTS")) {
    await page.screenshot({ path: `/tmp/ratealerts-e2e-${name}.png`, fullPage: true });
  }
}

describe("a rate alert", () => {
  test("set by a customer fires when an administrator changes the rate: an email, a notification, and the time it fired", async ({ server, db, browser }) => {
    const { page, problems } = await newPage(browser);
    page.setDefaultTimeout(15_000);
    const customer = { email: "ada.alerts@portal.test", password: "alerts-password-1", first: "Ada", last: "Lovelace" };
    await openAccountThroughApi(page.request, db, server.url, customer);

    await page.goto(`${server.url}/account/ratealerts`);
    await hydrated(page);
    expect(await page.getByText("No alerts yet.").count()).toBe(1);
    // The embedded rates: 1 EUR = 0.879 GBP, so 1 GBP = 1.137656 EUR, shown beside the form.
    const form = page.getByRole("form", { name: "New rate alert" });
    await form.getByLabel("1 unit of").selectOption("GBP");
    await form.getByLabel("In", { exact: true }).selectOption("EUR");
    await expect.poll(() => page.getByRole("status").filter({ hasText: "Now:" }).textContent()).toContain(
      "1 GBP = 1.137656 EUR",
    );
    await form.getByLabel("Tell me when the rate is").selectOption("above");
    await form.getByLabel("Target rate").fill("1.15");
    await step(page, "1-form");
    await form.getByRole("button", { name: "Set alert" }).click();
    const alerts = page.getByRole("list", { name: "Rate alerts" });
    await expect.poll(() => alerts.getByRole("listitem").count()).toBe(1);
    const row = alerts.getByRole("listitem").first();
    expect(await row.textContent()).toContain("1 GBP = 1.15 EUR, at or above");
    expect(await row.textContent()).toContain("Now: 1 GBP = 1.137656 EUR");
    expect(await row.textContent()).toContain("Watching");
    expect(await seriousAxeViolations(page)).toEqual([]);
    await step(page, "2-set");

    // An administrator moves GBP through the console's call: 1 EUR = 0.86 GBP, 1 GBP = 1.162791 EUR.
    const admin = await newPage(browser);
    await ensureAdministrator(admin.page.request, server.url, ADMIN);
    await signInThroughPages(admin.page, db, server.url, ADMIN.email, ADMIN.password);
    const mark = await lastEmailId(db);
    const changed = await admin.page.request.put(`${server.url}/api/console/rates`, {
      data: { base: "EUR", rates: { GBP: "0.86" } },
    });
    expect(changed.status(), await changed.text()).toBe(200);
    await admin.context.close();

    // The email arrives once the check has run...
    const mail = await waitForEmail(db, customer.email, {
      template: "rate-alert-fired",
      after: mark,
      timeoutMs: 20_000,
    });
    expect(mail.subject).toBe("Rate alert: 1 GBP = 1.162791 EUR");
    expect(mail.text).toContain("at or above your target of 1 GBP = 1.15 EUR");

    // ...and the customer's next page shows the notification and when the alert fired.
    await page.reload();
    await hydrated(page);
    const toasts = page.getByRole("region", { name: "Notifications" });
    await expect.poll(() => toasts.textContent()).toContain("Rate alert: 1 GBP = 1.162791 EUR");
    const fired = page.getByRole("list", { name: "Rate alerts" }).getByRole("listitem").first();
    expect(await fired.textContent()).toMatch(/Fired \d{1,2} \w{3} \d{4}, \d\d:\d\d UTC at 1 GBP = 1\.162791 EUR/);
    expect(await fired.getByRole("button", { name: /^Pause/ }).count()).toBe(0);
    await step(page, "3-fired");

    // The dashboard lists it, with the way to the alerts.
    await page.goto(`${server.url}/account`);
    const section = page.getByRole("region", { name: "Rate alerts that fired" });
    expect(await section.textContent()).toContain("1 GBP = 1.162791 EUR");
    expect(await section.getByRole("link", { name: "All rate alerts" }).getAttribute("href")).toBe(
      "/account/ratealerts",
    );
    await step(page, "4-dashboard");

    // Deleting it empties the list.
    await page.goto(`${server.url}/account/ratealerts`);
    await hydrated(page);
    await page.getByRole("button", { name: /^Delete GBP to EUR/ }).click();
    await expect.poll(() => page.getByText("No alerts yet.").count()).toBe(1);
    expect(unexpected(problems)).toEqual([]);
  });

  test("paused and deleted from the keyboard, the keyboard stays on the page: on the button, then on the list", async ({ server, db, browser }) => {
    const { page, problems } = await newPage(browser);
    page.setDefaultTimeout(15_000);
    const customer = { email: "kim.keys@portal.test", password: "alerts-password-2", first: "Kim", last: "Keys" };
    await openAccountThroughApi(page.request, db, server.url, customer);
    await page.goto(`${server.url}/account/ratealerts`);
    await hydrated(page);
    const form = page.getByRole("form", { name: "New rate alert" });
    await form.getByLabel("1 unit of").selectOption("GBP");
    await form.getByLabel("In", { exact: true }).selectOption("EUR");
    await form.getByLabel("Target rate").fill("1.5");
    await form.getByRole("button", { name: "Set alert" }).click();
    const alerts = page.getByRole("list", { name: "Rate alerts" });
    await expect.poll(() => alerts.getByRole("listitem").count()).toBe(1);

    const focused = () =>
      page.evaluate(() => {
        const e = document.activeElement!;
        return `${e.tagName} ${e.getAttribute("aria-label") ?? e.textContent?.trim()}`;
      });
    await page.getByRole("button", { name: /^Pause GBP to EUR/ }).focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => alerts.textContent()).toContain("Paused");
    await expect.poll(focused).toBe("BUTTON Resume GBP to EUR at or above 1.5");
    // Enter again on the same button resumes it.
    await page.keyboard.press("Enter");
    await expect.poll(() => alerts.textContent()).toContain("Watching");
    await expect.poll(focused).toBe("BUTTON Pause GBP to EUR at or above 1.5");

    await page.getByRole("button", { name: /^Delete GBP to EUR/ }).focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByText("No alerts yet.").count()).toBe(1);
    await expect.poll(focused).toBe("H2 Your alerts (0 of 20)");
    expect(unexpected(problems)).toEqual([]);
  });
});
