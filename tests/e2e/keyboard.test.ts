/**
 * Someone who uses only a keyboard and a screen reader, in Chromium: what they hear when a form is
 * refused while their focus is on the field at fault, and where their focus is after a button's
 * action has run (a disabled button drops it to the page's body, and Tab starts again from the top).
 */
import type { Page } from "playwright-core";
import { describe, expect, vi } from "vitest";
import { hydrated, newPage, seriousAxeViolations } from "../helpers/browser.ts";
import { test } from "../helpers/e2e-fixtures.ts";
import { lastEmailId, openAccountThroughApi, signInThroughPages, waitForEmail } from "../helpers/e2e-mail.ts";
import { ensureAdministrator, todayUtc, unexpected } from "../helpers/e2e-money.ts";

vi.setConfig({ testTimeout: 90_000 });

/** The id of the element the keyboard is on ("BODY" when it is nowhere). */
const focused = (page: Page) => page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName);

describe("the second factor by keyboard", () => {
  test("a wrong code sent with Enter from its field is announced, and the focus stays in the field", async ({ server, db, browser }) => {
    const customer = { email: "kim.keyboard@portal.test", password: "keyboard-password-1" };
    const setup = await newPage(browser);
    await openAccountThroughApi(setup.page.request, db, server.url, customer);
    await setup.context.close();

    const { page, problems } = await newPage(browser);
    page.setDefaultTimeout(15_000);
    await page.goto(`${server.url}/`);
    await hydrated(page);
    const signIn = page.getByRole("form", { name: "Sign in" });
    await signIn.getByLabel("Email").fill(customer.email);
    await signIn.getByLabel("Password").fill(customer.password);
    const mark = await lastEmailId(db);
    await signIn.getByLabel("Password").press("Enter");
    await page.waitForURL(`${server.url}/second-factor`);
    await hydrated(page);
    const mail = await waitForEmail(db, customer.email, { template: "second-factor-code", after: mark });
    const code = /\b\d{6}\b/.exec(mail.text)![0];
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");

    const form = page.getByRole("form", { name: "Second factor" });
    const field = form.getByLabel("Code");
    await field.fill(wrong);
    await field.press("Enter");
    const problem = page.locator("#second-factor-code-error");
    await problem.waitFor();
    const said = (await problem.textContent())!;
    expect(said).toContain("That code is not right.");
    // The focus never left the field, so moving it there reads nothing: the form's alert says it.
    expect(await focused(page)).toBe("second-factor-code");
    await expect.poll(() => form.getByRole("alert").textContent()).toContain(said);

    // A second wrong try is said again (the alert empties while the code is being checked).
    await field.press("Enter");
    await expect.poll(() => problem.textContent()).not.toBe(said);
    await expect.poll(() => form.getByRole("alert").textContent()).toContain(await problem.textContent());

    // Asking for a new code with the keyboard: the focus stays on the button once it is sent.
    const resend = page.getByRole("button", { name: "Send me a new code by email" });
    await resend.focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByRole("status").filter({ hasText: "A new code" }).count()).toBe(1);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Send me a new code by email");
    // The browser logs the refused codes (422); nothing else went wrong.
    expect(unexpected(problems, [422])).toEqual([]);
  });
});

/** The administrator of the console's tests (the server is the file's: one is made, then signed in again). */
const admin = { email: "desk.keyboard@portal.test", password: "keyboard-desk-password-1" };

describe("the console's tables on a 390 px phone", () => {
  test("a table wider than the screen takes the keyboard's focus and scrolls with the arrow keys; axe finds nothing serious", async ({ server, db, browser }) => {
    const { page, problems } = await newPage(browser);
    page.setDefaultTimeout(15_000);
    await page.setViewportSize({ width: 390, height: 844 });
    await ensureAdministrator(page.request, server.url, admin);
    await signInThroughPages(page, db, server.url, admin.email, admin.password);
    for (const path of ["/console/admins", "/console/transfer", "/console/audit"]) {
      await page.goto(`${server.url}${path}`);
      await hydrated(page);
      expect(await seriousAxeViolations(page), path).toEqual([]);
    }
    // The administrators' table: no link or button of its own for the only administrator (you).
    await page.goto(`${server.url}/console/admins`);
    await hydrated(page);
    const box = page.getByRole("group", { name: "Administrators" });
    await box.focus();
    expect(await box.evaluate((el) => el.scrollWidth > el.clientWidth), "wider than the phone").toBe(true);
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => box.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });
});

describe("the console's forms opened in place", () => {
  test("a receipt's Allocate and Reverse, and a plan's Assign, put the keyboard in their field; Escape gives it back", async ({ server, db, browser }) => {
    const { page, problems } = await newPage(browser);
    page.setDefaultTimeout(15_000);
    await ensureAdministrator(page.request, server.url, admin);
    await signInThroughPages(page, db, server.url, admin.email, admin.password);
    const recorded = await page.request.post(`${server.url}/api/console/receipts`, {
      data: {
        amount: "12.00",
        currency: "GBP",
        payer_name: "J Smith",
        reference: "NO SUCH ACCOUNT",
        received_at: todayUtc(),
      },
    });
    expect(recorded.status(), await recorded.text()).toBeLessThan(300);

    // The row's button keeps the focus as its form opens below it: the form must take it.
    await page.goto(`${server.url}/console/receipts`);
    await hydrated(page);
    await page.getByRole("button", { name: "Allocate 12.00 GBP from J Smith" }).click();
    const allocate = page.getByRole("form", { name: "Allocate the receipt from J Smith" });
    await expect.poll(() => focused(page)).toBe(await allocate.getByLabel("Account reference").getAttribute("id"));
    // The row's other button swaps the form: the keyboard follows into the new one.
    await page.getByRole("button", { name: "Reverse 12.00 GBP from J Smith" }).click();
    const reverse = page.getByRole("form", { name: "Reverse the receipt from J Smith" });
    await expect.poll(() => focused(page)).toBe(await reverse.getByLabel("Reason").getAttribute("id"));
    await page.keyboard.press("Escape");
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label")))
      .toBe("Reverse 12.00 GBP from J Smith");

    await page.goto(`${server.url}/console/pricingplan`);
    await hydrated(page);
    const assignButton = page.getByRole("button", { name: /^Assign .* to an account$/ }).first();
    const plan = await assignButton.getAttribute("aria-label");
    await assignButton.click();
    const assign = page.getByRole("form", { name: plan! });
    await expect.poll(() => focused(page)).toBe(await assign.getByLabel("Account reference").getAttribute("id"));
    expect(problems).toEqual([]);
  });
});
