/**
 * Partners in Chromium (issue 11 item 6, decision 051): an administrator creates a partner with a
 * revenue share on /console/partners; a visitor follows the partner's link (/register?ref=CODE)
 * and registers with the prefilled code; the partner's page lists the new customer; after the
 * customer converts, /console/referrals shows the partner's commission: their share of the
 * conversion's fee and markup.
 */
import { describe, expect, vi } from "vitest";
import { hydrated, newPage, seriousAxeViolations } from "../helpers/browser.ts";
import { test } from "../helpers/e2e-fixtures.ts";
import { lastEmailId, personalProfile, signInThroughPages, tokenOf, waitForEmail } from "../helpers/e2e-mail.ts";
import { ensureAdministrator, todayUtc, unexpected } from "../helpers/e2e-money.ts";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const ADMIN = { email: "partnerships@portal.test", password: "partnerships-password-1" };
const PARTNER = { name: "Atlantic Introducers", code: `ATL${Date.now().toString(36).toUpperCase()}`, share: "20" };
const CUSTOMER = { email: `referred-${crypto.randomUUID().slice(0, 6)}@portal.test`, password: "referred-password-1" };

/** Minor units of a decimal string with two digits ("12.34" → 1234). */
const pence = (text: string) => Math.round(Number(text) * 100);

describe("partners", () => {
  test("a partner's code brings a customer, listed on the partner's page, whose conversion earns a commission", async ({ server, db, browser }) => {
    const admin = await newPage(browser);
    const { page, problems } = admin;
    page.setDefaultTimeout(15_000);
    await ensureAdministrator(page.request, server.url, ADMIN);
    await signInThroughPages(page, db, server.url, ADMIN.email, ADMIN.password);

    // The administrator creates the partner from the console's menu.
    await page.goto(`${server.url}/console/users`);
    await page.getByRole("link", { name: "Partners" }).first().click();
    await page.waitForURL(`${server.url}/console/partners`);
    await hydrated(page);
    expect(await page.locator("main").textContent()).not.toContain("Coming soon");
    const form = page.getByRole("form", { name: "Create a partner" });
    await form.getByLabel("Name").fill(PARTNER.name);
    await form.getByLabel("Referral code").fill(PARTNER.code.toLowerCase());
    // A share above 100% is refused, naming the field.
    await form.getByLabel("Revenue share (%)").fill("120");
    await form.getByRole("button", { name: "Create the partner" }).click();
    await expect.poll(() => form.getByText("The revenue share is a percentage from 0 to 100").count()).toBeGreaterThan(
      0,
    );
    await form.getByLabel("Revenue share (%)").fill(PARTNER.share);
    await form.getByRole("button", { name: "Create the partner" }).click();
    await page.waitForURL(/\/console\/partners\/\d+$/);
    const partnerPage = page.url();
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(PARTNER.name);
    expect(await page.locator("main").textContent()).toContain(`Referral code ${PARTNER.code}, 20.00%`);

    // A visitor follows the partner's link and registers with the prefilled code.
    const visitor = await newPage(browser);
    const customer = visitor.page;
    customer.setDefaultTimeout(15_000);
    await customer.goto(`${server.url}/register?ref=${PARTNER.code}&utm_source=partner&utm_medium=referral`);
    await hydrated(customer);
    const register = customer.getByRole("form", { name: "Open an account" });
    expect(await register.getByLabel(/Referral code/).inputValue()).toBe(PARTNER.code);
    await register.getByLabel("Email").fill(CUSTOMER.email);
    await register.getByLabel("Password").fill(CUSTOMER.password);
    const mark = await lastEmailId(db);
    await register.getByRole("button", { name: "Open an account" }).click();
    await customer.waitForURL(`${server.url}/verify`);
    // The rest of onboarding through the calls (tests/e2e/signin.test.ts walks its pages).
    const mail = await waitForEmail(db, CUSTOMER.email, { template: "email-validation", after: mark });
    const link = /https?:\/\/\S+/.exec(mail.text)?.[0];
    const api = customer.request;
    const ok = async (res: Promise<{ status(): number; text(): Promise<string>; json(): Promise<unknown> }>) => {
      const answer = await res;
      expect(answer.status(), await answer.text()).toBeLessThan(300);
      return (await answer.json() as { body: Record<string, unknown> }).body;
    };
    await ok(api.post(`${server.url}/api/validation/validate`, { data: { token: tokenOf(link!) } }));
    await ok(api.post(`${server.url}/api/account/profile`, { data: personalProfile("Rui", "Referred") }));
    await ok(api.post(`${server.url}/api/sumsub/sandbox`, { data: { answer: "GREEN" } }));
    const confirmed = await ok(api.get(`${server.url}/api/sumsub/confirm`));
    const accountRef = confirmed.account_ref as string;
    expect(accountRef).toMatch(/^P\d{8}$/);

    // The partner's page lists the customer.
    await page.goto(partnerPage);
    const row = page.locator(`tr[data-customer="${CUSTOMER.email}"]`);
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain(accountRef);
    expect(await row.textContent()).toContain("No");
    expect(await seriousAxeViolations(page)).toEqual([]);

    // The customer is funded and converts 300.00 GBP to euros.
    const recorded = await page.request.post(`${server.url}/api/console/receipts`, {
      data: {
        amount: "1000.00",
        currency: "GBP",
        payer_name: "Rui Referred",
        reference: accountRef,
        received_at: todayUtc(),
      },
    });
    expect(recorded.status(), await recorded.text()).toBe(201);
    const quote = await ok(api.post(`${server.url}/api/account/conversions/quote`, {
      data: { sell_currency: "GBP", buy_currency: "EUR", amount: "300.00", fixed: "sell" },
    }));
    const shown = await ok(api.get(`${server.url}/api/quote?sell=GBP&buy=EUR&amount=300.00&fixed=sell`));
    await ok(api.post(`${server.url}/api/account/conversions`, { data: { quote_id: quote.id } }));
    const income = pence(quote.fee as string) + pence(shown.markup as string);
    expect(income).toBeGreaterThan(0);
    // 20% of the income, rounded half away from zero to the penny.
    const commission = (Math.round(income * 0.2) / 100).toFixed(2);

    // The referrals page shows the commission from the console's menu.
    await page.goto(`${server.url}/console/users`);
    await page.getByRole("link", { name: "Referrals" }).first().click();
    await page.waitForURL(`${server.url}/console/referrals`);
    const line = page.locator(`tr[data-commission="${PARTNER.code} GBP"]`);
    await expect.poll(() => line.count()).toBe(1);
    const cells = (await line.locator("td").allTextContents()).map((t) => t.trim());
    expect(cells).toEqual(["GBP", shown.markup, quote.fee, (income / 100).toFixed(2), "20.00%", commission]);
    const signup = page.locator(`tr[data-referral="${CUSTOMER.email}"]`);
    expect(await signup.textContent()).toContain(PARTNER.code);
    expect(await signup.textContent()).toContain("Yes");
    expect(await seriousAxeViolations(page)).toEqual([]);

    // The refused share was a 422, on purpose.
    expect(unexpected(problems, [422])).toEqual([]);
    expect(unexpected(visitor.problems)).toEqual([]);
  });
});
