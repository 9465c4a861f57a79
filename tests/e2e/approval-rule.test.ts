/**
 * The approval rule in Chromium (issue 8, item 3): the owner of a business account sets "payments
 * of 100.00 GBP or more need approval" on /account/users. While only a payer could be asked, the
 * server refuses it and the form says why under the choice; once an approver has joined it is
 * saved. A payer then pays 150.00 GBP and the payment waits on /account/pendingpayments. The
 * section fits a 390 px wide phone without scrolling sideways.
 * APPROVAL_E2E_SCREENSHOTS=1 keeps a screenshot of each step in /tmp/approval-e2e-*.png.
 */
import type { Page } from "playwright-core";
import { describe, expect } from "vitest";
import { hydrated, newPage, seriousAxeViolations } from "../helpers/browser.ts";
import { openBusinessThroughApi } from "../helpers/e2e-business.ts";
import { joinInBrowser, test } from "../helpers/e2e-fixtures.ts";
import { okBody, signInThroughPages } from "../helpers/e2e-mail.ts";
import { todayUtc, unexpected } from "../helpers/e2e-money.ts";

const ADMIN = { email: "approvals.desk@portal.test", password: "approvals-desk-password-1" };
const OWNER = { email: "olga@acme.test", password: "owner-password-1" };

async function step(page: Page, name: string): Promise<void> {
  if (Deno.env.get("APPROVAL_E2E_SCREENSHOTS")) {
    await page.screenshot({ path: `/tmp/approval-e2e-${name}.png`, fullPage: true });
  }
}

describe("the approval rule", () => {
  test(
    "an owner sets payments of 100.00 GBP or more, and a payer's payment of 150.00 GBP waits for approval",
    async ({ server, db, browser }) => {
      const owner = await newPage(browser);
      const accountRef = await openBusinessThroughApi({ server, db, browser }, owner.page.request, OWNER, ADMIN);
      const [{ id: accountId }] = (await db.$client.execute({
        sql: "SELECT id FROM accounts WHERE account_ref = ?",
        args: [accountRef],
      })).rows as unknown as { id: number }[];
      const desk = await newPage(browser);
      await signInThroughPages(desk.page, db, server.url, ADMIN.email, ADMIN.password);
      await okBody(
        "console/receipts",
        await desk.page.request.post(`${server.url}/api/console/receipts`, {
          data: {
            amount: "1000.00",
            currency: "GBP",
            payer_name: "Acme Trading Ltd",
            reference: accountRef,
            received_at: todayUtc(),
          },
        }),
      );
      await desk.context.close();
      const payer = await joinInBrowser({ server, db, browser }, {
        accountId,
        role: "payer",
        first: "Paula",
        last: "Payer",
      });
      await okBody(
        "account/recipients",
        await owner.page.request.post(`${server.url}/api/account/recipients`, {
          data: {
            name: "Jean Dupont",
            type: "person",
            currency: "EUR",
            country: "FR",
            details: { iban: "FR1420041010050500013M02606", bic: "PSSTFRPPXXX" },
          },
        }),
      );

      // The owner, on a phone: the rule as it is, then the form.
      const { page } = owner;
      page.setDefaultTimeout(15_000);
      // A hydration warning of the business owner's page (tests/e2e/hydration.test.ts walks a personal account's).
      const warnings: string[] = [];
      page.on("console", (message) => message.type() === "warning" && warnings.push(message.text()));
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${server.url}/account/users`);
      await hydrated(page);
      const section = page.getByRole("region", { name: "Approval of payments" });
      expect(await section.textContent()).toContain("No payment needs approval");
      const form = section.getByRole("form", { name: "Approval rule" });
      // Keyboard: the choice is a radio group, reached and changed with the arrow keys.
      await form.getByLabel("No payment needs approval").focus();
      await page.keyboard.press("ArrowDown");
      await page.keyboard.press("ArrowDown");
      expect(await form.getByLabel("Payments of an amount or more need approval").isChecked()).toBe(true);
      await form.getByLabel("Amount in GBP").fill("100.00");
      await form.getByRole("button", { name: "Add a currency" }).click();
      expect(await form.getByLabel("Currency 2").inputValue()).not.toBe("GBP");
      const fits = await page.evaluate(() => document.documentElement.scrollWidth <= globalThis.innerWidth);
      expect(fits, "no sideways scroll at 390 px").toBe(true);
      await step(page, "1-form-on-a-phone");
      await form.getByRole("button", { name: /^Remove the \w+ amount$/ }).last().click();

      // Only the payer could be asked to approve the owner's own payments: refused, said under the choice.
      await form.getByRole("button", { name: "Save the rule" }).click();
      const refusal = form.locator("#approval-mode-error");
      await refusal.waitFor();
      expect(await refusal.textContent()).toMatch(
        /^Nobody else on this account could approve the payments of .+\. Invite an approver first\.$/,
      );
      expect(await form.getByLabel("Payments of an amount or more need approval").getAttribute("aria-invalid"))
        .toBe("true");
      expect(await seriousAxeViolations(page)).toEqual([]);
      await step(page, "2-refused");

      // An approver joins; the same form is saved, without a page load.
      const approver = await joinInBrowser({ server, db, browser }, {
        accountId,
        role: "approver",
        first: "Arthur",
        last: "Approver",
      });
      let loads = 0;
      page.on("framenavigated", (frame) => frame === page.mainFrame() && loads++);
      await form.getByRole("button", { name: "Save the rule" }).click();
      await page.getByText("Approval rule saved").waitFor();
      await expect.poll(() => section.textContent()).toContain(
        "A payment of 100.00 GBP or more needs a second person's approval",
      );
      expect(await refusal.count()).toBe(0);
      expect(loads, "saved without a page load").toBe(0);
      await step(page, "3-saved");
      await page.reload();
      await hydrated(page);
      expect(await form.getByLabel("Amount in GBP").inputValue()).toBe("100.00");
      expect(await section.textContent()).toContain("Set by ");

      // The payer pays 150.00 GBP: it waits for approval.
      const p = payer.page;
      p.setDefaultTimeout(15_000);
      await p.goto(`${server.url}/account/payment`);
      await hydrated(p);
      const pay = p.getByRole("form", { name: "Make a payment" });
      await pay.getByLabel("Balance to pay from").selectOption("GBP");
      await pay.getByLabel("Amount you send (GBP), fee included").fill("150.00");
      await pay.getByLabel("Reference for the recipient").fill("Invoice 7");
      await pay.getByRole("button", { name: "See the full cost" }).click();
      const cost = pay.getByRole("region", { name: "The full cost" });
      await cost.waitFor();
      await cost.getByRole("button", { name: "Confirm and pay" }).click();
      await p.getByRole("heading", { name: "Your payment is waiting for approval" }).waitFor();

      // It is on the approver's list of payments waiting.
      const checker = approver.page;
      checker.setDefaultTimeout(15_000);
      await checker.goto(`${server.url}/account/pendingpayments`);
      await hydrated(checker);
      const row = checker.locator("tr[data-payment-id]").filter({ hasText: "Jean Dupont" });
      expect(await row.count()).toBe(1);
      expect(await row.textContent()).toContain("Paula Payer");
      expect(await row.textContent()).toContain("150.00");
      await step(checker, "4-waiting");

      expect(unexpected(owner.problems, [422])).toEqual([]);
      expect(warnings).toEqual([]);
      expect(unexpected(payer.problems)).toEqual([]);
      expect(unexpected(approver.problems)).toEqual([]);
      for (const c of [owner.context, payer.context, approver.context]) await c.close();
    },
    240_000,
  );
});
