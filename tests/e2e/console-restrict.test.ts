/**
 * Restricting a customer, in Chromium (issue 11 item 1, decision 048): an administrator restricts
 * a customer with a reason on the customer's console page; the customer sees the banner on every
 * page and the convert form refuses; the administrator lifts the restriction with a reason and the
 * customer can convert.
 */
import type { Page } from "playwright-core";
import { describe, expect, vi } from "vitest";
import { RESTRICTED_MESSAGE } from "../../lib/restriction.ts";
import { hydrated, newPage } from "../helpers/browser.ts";
import { test } from "../helpers/e2e-fixtures.ts";
import { openAccountThroughApi, signInThroughPages } from "../helpers/e2e-mail.ts";
import { ensureAdministrator, todayUtc, unexpected } from "../helpers/e2e-money.ts";
import type { RunningServer } from "../helpers/server.ts";

vi.setConfig({ testTimeout: 120_000 });

const ADMIN = { email: "compliance.restrict@portal.test", password: "restrict-admin-1" };
const CUSTOMER = {
  email: "ada.restrict@portal.test",
  password: "restrict-password-1",
  first: "Ada",
  last: "Restricto",
};

async function askQuote(page: Page, server: RunningServer) {
  await page.goto(`${server.url}/account/convert`);
  await hydrated(page);
  const convert = page.getByRole("form", { name: "Convert" });
  await convert.getByLabel("Currency to sell").selectOption("GBP");
  await convert.getByLabel("Currency to receive").selectOption("EUR");
  await convert.getByLabel("Amount to sell").fill("50.00");
  const answered = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/account/conversions/quote");
  await convert.getByRole("button", { name: "Get a quote" }).click();
  return { convert, response: await answered };
}

describe("restricting a customer", () => {
  test("restricted, the customer sees the banner and cannot convert; lifted, they can", async ({ server, db, browser }) => {
    const customer = await newPage(browser);
    customer.page.setDefaultTimeout(20_000);
    const opened = await openAccountThroughApi(customer.page.request, db, server.url, CUSTOMER);
    const admin = await newPage(browser);
    admin.page.setDefaultTimeout(20_000);
    await ensureAdministrator(admin.page.request, server.url, ADMIN);
    await signInThroughPages(admin.page, db, server.url, ADMIN.email, ADMIN.password);
    const receipt = await admin.page.request.post(`${server.url}/api/console/receipts`, {
      data: {
        amount: "200.00",
        currency: "GBP",
        payer_name: "Ada",
        reference: opened.accountRef,
        received_at: todayUtc(),
      },
    });
    expect(receipt.status(), await receipt.text()).toBeLessThan(300);

    // The administrator finds the customer with the list's filters and restricts them with a reason.
    await admin.page.goto(`${server.url}/console/users`);
    await hydrated(admin.page);
    await admin.page.getByLabel("Balance").selectOption("true");
    const listed = admin.page.waitForResponse((r) =>
      new URL(r.url()).pathname === "/api/console/users" && new URL(r.url()).searchParams.get("has_balance") === "true"
    );
    await admin.page.getByRole("button", { name: "Search" }).click();
    expect((await (await listed).json()).body.items.map((c: { id: number }) => c.id)).toContain(opened.id);

    // The customer's name in the list leads to their page.
    await admin.page.getByRole("link", { name: `${CUSTOMER.first} ${CUSTOMER.last}` }).click();
    await admin.page.waitForURL(`${server.url}/console/users/${opened.id}`);
    await hydrated(admin.page);
    // Opened, the question puts the keyboard in its reason, each time (the browser's autofocus
    // did so only once per page); given up (Escape in the reason, or Cancel), it gives the keyboard
    // back to its button, drawn again in its place (decision 081).
    const restrict = admin.page.getByRole("button", { name: "Restrict the customer" });
    const focused = () => admin.page.evaluate(() => document.activeElement?.textContent?.trim());
    const inReason = () => admin.page.evaluate(() => document.activeElement?.id);
    await restrict.click();
    await expect.poll(inReason).toBe("restrict-reason");
    await admin.page.keyboard.press("Escape");
    await expect.poll(focused).toBe("Restrict the customer");
    await restrict.click();
    await expect.poll(inReason).toBe("restrict-reason");
    await admin.page.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(focused).toBe("Restrict the customer");
    await restrict.click();
    await expect.poll(inReason).toBe("restrict-reason");
    await admin.page.getByLabel("Reason").fill("Source of funds under review");
    await admin.page.getByRole("button", { name: "Restrict", exact: true }).click();
    const restricted = admin.page.locator("[data-restriction=on]");
    await expect.poll(() => restricted.textContent()).toContain("Source of funds under review");
    expect(await admin.page.locator("main").textContent()).toContain("Restricted the customer");

    // The customer (signed in when their account opened) still sees their balances, with the banner; the form refuses.
    await customer.page.goto(`${server.url}/account/balances`);
    expect(await customer.page.locator("[data-restricted=banner]").textContent()).toContain(RESTRICTED_MESSAGE);
    const refused = await askQuote(customer.page, server);
    expect(refused.response.status()).toBe(403);
    expect(await customer.page.locator("[data-restricted=form]").textContent()).toBe(RESTRICTED_MESSAGE);
    await expect.poll(() => refused.convert.textContent()).toContain(RESTRICTED_MESSAGE);
    expect(await refused.convert.getByRole("region", { name: "Your quote" }).count()).toBe(0);

    // Lifting asks why, like restricting; sending the reason confirms it. Lifted: no banner, and the conversion goes through.
    await admin.page.getByRole("button", { name: "Lift the restriction" }).click();
    await expect.poll(inReason).toBe("lift-reason");
    await admin.page.getByRole("button", { name: "Confirm lifting" }).click();
    await expect.poll(() => admin.page.locator("#lift-reason-error").textContent()).toContain("Give the reason");
    expect(await admin.page.locator("[data-restriction=on]").count()).toBe(1);
    await admin.page.getByLabel("Reason").fill("Source of funds documented");
    await admin.page.getByRole("button", { name: "Confirm lifting" }).click();
    await expect.poll(() => admin.page.locator("[data-restriction=off]").count()).toBe(1);
    const allowed = await askQuote(customer.page, server);
    expect(allowed.response.status()).toBe(200);
    expect(await customer.page.locator("[data-restricted]").count()).toBe(0);
    const quote = allowed.convert.getByRole("region", { name: "Your quote" });
    await expect.poll(() => quote.isVisible()).toBe(true);
    const done = customer.page.waitForResponse((r) => new URL(r.url()).pathname === "/api/account/conversions");
    await quote.getByRole("button", { name: "Confirm" }).click();
    expect((await done).status()).toBe(201);
    await expect.poll(() => customer.page.getByRole("region", { name: "Conversion receipt" }).isVisible()).toBe(true);

    // From the customer's page, the administrator acts on their behalf: the account's pages, with the mode's banner.
    await admin.page.goto(`${server.url}/console/users/${opened.id}`);
    await hydrated(admin.page);
    await admin.page.getByRole("button", { name: `Act on behalf of ${CUSTOMER.first} ${CUSTOMER.last}` }).click();
    await admin.page.waitForURL(`${server.url}/account`);
    await hydrated(admin.page);
    const banner = admin.page.getByRole("region", { name: "Acting on behalf of a customer" });
    await expect.poll(() => banner.isVisible()).toBe(true);
    expect(await banner.textContent()).toContain(`You are acting on behalf of ${CUSTOMER.first} ${CUSTOMER.last}`);
    await admin.page.request.delete(`${server.url}/api/account/onbehalf`);

    expect(unexpected(customer.problems, [403])).toEqual([]);
    expect(unexpected(admin.problems)).toEqual([]);
    await customer.context.close();
    await admin.context.close();
  });
});
