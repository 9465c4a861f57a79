/**
 * "Convert now" through sign-in (decision 068), in Chromium: a visitor prices a pair and an amount on
 * /calculator, presses its link (named "Sign in to convert" while nobody is signed in), signs in
 * with the emailed second factor, and lands on /account/convert with the same pair and amount in
 * the form, ready for a quote: the calculator is not typed twice.
 */
import { describe, expect, vi } from "vitest";
import { hydrated, newPage } from "../helpers/browser.ts";
import { test } from "../helpers/e2e-fixtures.ts";
import { lastEmailId, openAccountThroughApi, signInThroughPages, waitForEmail } from "../helpers/e2e-mail.ts";
import { definition, ensureAdministrator, todayUtc, unexpected } from "../helpers/e2e-money.ts";

vi.setConfig({ testTimeout: 90_000 });

const ADMIN = { email: "treasury.convert-now@portal.test", password: "convert-now-admin-1" };
const CUSTOMER = {
  email: "ada.convert-now@portal.test",
  password: "convert-now-password-1",
  first: "Ada",
  last: "King",
};

describe("the calculator's Convert now, for a visitor not signed in", () => {
  test("carries the pair and the amount through sign-in to the convert form", async ({ server, db, browser }) => {
    // A verified customer with 500.00 GBP, signed up in a context of its own: the visitor's browser
    // below has no session.
    const setup = await newPage(browser);
    const opened = await openAccountThroughApi(setup.page.request, db, server.url, CUSTOMER);
    await setup.context.close();
    const admin = await newPage(browser);
    await ensureAdministrator(admin.page.request, server.url, ADMIN);
    await signInThroughPages(admin.page, db, server.url, ADMIN.email, ADMIN.password);
    const receipt = await admin.page.request.post(`${server.url}/api/console/receipts`, {
      data: {
        amount: "500.00",
        currency: "GBP",
        payer_name: "Ada King",
        reference: opened.accountRef,
        received_at: todayUtc(),
      },
    });
    expect(receipt.status(), await receipt.text()).toBeLessThan(300);
    await admin.context.close();

    const { page, context, problems } = await newPage(browser);
    page.setDefaultTimeout(15_000);
    await page.goto(`${server.url}/calculator`);
    await hydrated(page);
    const calculator = page.getByRole("form", { name: "Currency calculator" });
    await calculator.getByLabel("Currency to send").selectOption("GBP");
    await calculator.getByLabel("Currency to receive").selectOption("USD");
    await calculator.getByLabel("You send").fill("120.00");
    const link = calculator.getByRole("link", { name: "Sign in to convert" });
    await expect.poll(() => link.getAttribute("href")).toBe(
      "/account/convert?sell=GBP&buy=USD&fixed=sell&amount=120.00",
    );
    await link.click();

    // Sent to sign in; the convert page with its query is remembered for after it.
    await page.waitForURL(`${server.url}/#sign-in`);
    await hydrated(page);
    const signIn = page.getByRole("form", { name: "Sign in" });
    await signIn.getByLabel("Email").fill(CUSTOMER.email);
    await signIn.getByLabel("Password").fill(CUSTOMER.password);
    const mark = await lastEmailId(db);
    await signIn.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${server.url}/second-factor`);
    await hydrated(page);
    const mail = await waitForEmail(db, CUSTOMER.email, { template: "second-factor-code", after: mark });
    const code = /\b\d{6}\b/.exec(mail.text)?.[0];
    expect(code, mail.text).toBeTruthy();
    const challenge = page.getByRole("form", { name: "Second factor" });
    await challenge.getByLabel("Code").fill(code!);
    await challenge.getByRole("button", { name: "Continue" }).click();

    await page.waitForURL((url) => url.pathname === "/account/convert");
    expect(new URL(page.url()).search).toBe("?sell=GBP&buy=USD&fixed=sell&amount=120.00");
    await hydrated(page);
    const convert = page.getByRole("form", { name: "Convert" });
    expect(await convert.getByLabel("Currency to sell").inputValue()).toBe("GBP");
    expect(await convert.getByLabel("Currency to receive").inputValue()).toBe("USD");
    expect(await convert.getByLabel("Amount to sell").inputValue()).toBe("120.00");
    expect(await convert.textContent()).toContain("Available: 500.00 GBP");

    // Ready as it is: the quote is for what the calculator priced.
    await convert.getByRole("button", { name: "Get a quote" }).click();
    const quote = convert.getByRole("region", { name: "Your quote" });
    await expect.poll(() => quote.isVisible()).toBe(true);
    expect(await definition(quote, "You sell")).toBe("120.00 GBP");
    expect(await definition(quote, "You receive")).toMatch(/^[\d,]+\.\d\d USD$/);
    expect(unexpected(problems)).toEqual([]);
    await context.close();
  });
});
