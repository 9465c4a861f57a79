/**
 * A customer's first conversion, without stumbles (issue 15, items 5 and 7), in Chromium: on
 * /account/convert the quote shows the full price (the mid-market rate, our rate, the markup in
 * money, the fee), an amount to sell above the balance is refused while it is typed (and nothing is
 * asked of the server), and a confirmed conversion leaves a receipt with a link to its movement.
 * Then "Skip to content" is the first thing the keyboard reaches and jumps past the menus.
 * FIRST_HOUR_E2E_SCREENSHOTS=1 keeps a screenshot of each step in /tmp/first-hour-*.png.
 */
import type { Page, Request } from "playwright-core";
import { describe, expect, vi } from "vitest";
import { hydrated, newPage, seriousAxeViolations } from "../helpers/browser.ts";
import { test } from "../helpers/e2e-fixtures.ts";
import { openAccountThroughApi, signInThroughPages } from "../helpers/e2e-mail.ts";
import { definition, ensureAdministrator, todayUtc, unexpected } from "../helpers/e2e-money.ts";

vi.setConfig({ testTimeout: 90_000 });

const ADMIN = { email: "treasury.first-hour@portal.test", password: "first-hour-admin-1" };
const CUSTOMER = { email: "ada.first-hour@portal.test", password: "first-hour-password-1", first: "Ada", last: "King" };

async function step(page: Page, name: string): Promise<void> {
  if (Deno.env.get("FIRST_HOUR_E2E_SCREENSHOTS")) {
    await page.screenshot({ path: `/tmp/first-hour-${name}.png`, fullPage: true });
  }
}

/** The quote requests the page sends from now on. */
function quoteRequests(page: Page): Request[] {
  const sent: Request[] = [];
  page.on("request", (r) => {
    if (r.method() === "POST" && new URL(r.url()).pathname === "/api/account/conversions/quote") sent.push(r);
  });
  return sent;
}

describe("a customer's first conversion", () => {
  test("the quote shows the mid-market rate and the markup; too much is refused while typing; a receipt follows", async ({ server, db, browser }) => {
    const { page, context, problems } = await newPage(browser);
    page.setDefaultTimeout(15_000);
    const opened = await openAccountThroughApi(page.request, db, server.url, CUSTOMER);
    // 250.00 GBP arrives at the company's bank, quoting the account's reference.
    const admin = await newPage(browser);
    await ensureAdministrator(admin.page.request, server.url, ADMIN);
    await signInThroughPages(admin.page, db, server.url, ADMIN.email, ADMIN.password);
    const receipt = await admin.page.request.post(`${server.url}/api/console/receipts`, {
      data: {
        amount: "250.00",
        currency: "GBP",
        payer_name: "Ada King",
        reference: opened.accountRef,
        received_at: todayUtc(),
      },
    });
    expect(receipt.status(), await receipt.text()).toBeLessThan(300);
    await admin.context.close();

    // On a phone: the quote and the receipt must not widen the page either.
    await page.setViewportSize({ width: 360, height: 800 });
    const pageWidth = () => page.evaluate(() => document.documentElement.scrollWidth);
    await page.goto(`${server.url}/account/convert`);
    await hydrated(page);
    // The signed-in layout too: the keyboard's first stop skips the header and the menus.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
    const sent = quoteRequests(page);
    const convert = page.getByRole("form", { name: "Convert" });
    await convert.getByLabel("Currency to sell").selectOption("GBP");
    await convert.getByLabel("Currency to receive").selectOption("EUR");
    expect(await convert.textContent()).toContain("Available: 250.00 GBP");

    // More than the balance: said while typing, before any button.
    const sell = convert.getByLabel("Amount to sell");
    await sell.pressSequentially("300");
    await expect.poll(() => sell.getAttribute("aria-invalid")).toBe("true");
    const error = page.locator(`#${await sell.getAttribute("id")}-error`);
    expect(await error.textContent()).toBe("That is more than your available 250.00 GBP.");
    await step(page, "1-too-much");
    await convert.getByRole("button", { name: "Get a quote" }).click();
    expect(await convert.getByRole("region", { name: "Your quote" }).count()).toBe(0);
    expect(sent).toHaveLength(0);

    // Within the balance: the refusal goes as the amount is corrected.
    await sell.fill("");
    await sell.pressSequentially("100.00");
    await expect.poll(() => sell.getAttribute("aria-invalid")).not.toBe("true");
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/account/conversions/quote");
    await convert.getByRole("button", { name: "Get a quote" }).click();
    const held = (await (await answered).json()).body;
    const quote = convert.getByRole("region", { name: "Your quote" });
    await expect.poll(() => quote.isVisible()).toBe(true);
    expect(await definition(quote, "You sell")).toBe("100.00 GBP");
    expect(await definition(quote, "Mid-market rate")).toBe(`1 GBP = ${held.mid_rate} EUR`);
    expect(await definition(quote, "Our rate")).toBe(`1 GBP = ${held.rate} EUR`);
    const markup = await definition(quote, "Our markup on the rate");
    expect(markup).toBe(`${held.markup} GBP`);
    expect(Number(held.markup)).toBeGreaterThan(0);
    expect(await definition(quote, "Fee")).toBe(`${held.fee} GBP`);
    expect(await definition(quote, "You receive")).toBe(`${held.buy_amount} EUR`);
    await step(page, "2-quote");
    expect(await pageWidth()).toBeLessThanOrEqual(360);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // Confirm: the receipt, and the way to the movement.
    const done = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/account/conversions");
    await quote.getByRole("button", { name: "Confirm" }).click();
    const conversion = (await (await done).json()).body;
    const kept = page.getByRole("region", { name: "Conversion receipt" });
    await expect.poll(() => kept.isVisible()).toBe(true);
    expect(await definition(kept, "Reference")).toBe(`Conversion ${conversion.id}`);
    expect(await definition(kept, "You sold")).toBe("100.00 GBP");
    expect(await definition(kept, "You received")).toBe(`${held.buy_amount} EUR`);
    expect(await definition(kept, "Rate")).toBe(`1 GBP = ${held.rate} EUR`);
    expect(await definition(kept, "Fee (included in what you sold)")).toBe(`${held.fee} GBP`);
    // In the browser's own zone, named.
    expect(await definition(kept, "Time")).toMatch(/^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}:\d{2} \S+$/);
    expect(await kept.getByRole("link", { name: "See the movement" }).getAttribute("href")).toBe(
      `/account/transactions/${conversion.transfer_id}`,
    );
    expect(conversion.transfer_id).toBeGreaterThan(0);
    expect(await convert.textContent()).toContain("Available: 150.00 GBP");
    await step(page, "3-receipt");
    expect(await pageWidth()).toBeLessThanOrEqual(360);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(unexpected(problems)).toEqual([]);
    await context.close();
  });
});

describe("Skip to content", () => {
  // test.for, not test.each: it hands the test its fixtures (decision 035).
  test.for(["/", "/calculator", "/register"])(
    "on %s it is the first stop of the keyboard, shows, and jumps to the page",
    async (path, { server, browser }) => {
      const { page, context } = await newPage(browser);
      await page.goto(`${server.url}${path}`);
      await hydrated(page);
      const skip = page.getByRole("link", { name: "Skip to content" });
      // Out of sight (one pixel, for screen readers) until it has the focus.
      expect((await skip.boundingBox())?.width).toBeLessThanOrEqual(1);
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
      expect((await skip.boundingBox())?.width).toBeGreaterThan(50);
      await page.keyboard.press("Enter");
      await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("MAIN");
      expect(new URL(page.url()).hash).toBe("#main");
      // And a way home, even on the blank layout (the calculator).
      expect(await page.locator('header a[href="/"]').count()).toBeGreaterThan(0);
      await context.close();
    },
  );
});
