/**
 * Paying with a second pair of eyes, in Chromium (issue 8): a payer prepares a payment on
 * /account/payment, sees the full cost and confirms; the rule says it needs approval, so it waits.
 * The payer cannot approve it: the page says why and offers no button, and the server refuses the
 * call. An approver, told by email, opens /account/pendingpayments, reviews the payment on its page
 * and approves it; the page shows the new status and the timeline without loading again.
 * PAYMENTS_E2E_SCREENSHOTS=1 keeps a screenshot of each step in /tmp/payments-e2e-*.png.
 */
import type { Page } from "playwright-core";
import { describe, expect } from "vitest";
import { checkLedger } from "../../server/ledger/check.ts";
import { hydrated, newPage, seriousAxeViolations } from "../helpers/browser.ts";
import { joinInBrowser, test } from "../helpers/e2e-fixtures.ts";
import { lastEmailId, okBody, openAccountThroughApi, signInThroughPages, waitForEmail } from "../helpers/e2e-mail.ts";
import { balancesShown, definition, ensureAdministrator, todayUtc, unexpected } from "../helpers/e2e-money.ts";

const ADMIN = { email: "desk@portal.test", password: "desk-password-123" };

async function step(page: Page, name: string): Promise<void> {
  if (Deno.env.get("PAYMENTS_E2E_SCREENSHOTS")) await page.screenshot({ path: `/tmp/payments-e2e-${name}.png` });
}

describe("a payment that needs approval", () => {
  test(
    "the payer prepares it, cannot approve it, and an approver approves it on its page",
    async ({ server, db, browser }) => {
      // The account: an owner funded by the payout desk's receipt, a payer and an approver, a recipient.
      const owner = await newPage(browser);
      const opened = await openAccountThroughApi(owner.page.request, db, server.url, {
        email: `owner-${crypto.randomUUID().slice(0, 6)}@portal.test`,
        password: "owner password 123",
        first: "Olga",
        last: "Owner",
      });
      const desk = await newPage(browser);
      await ensureAdministrator(desk.page.request, server.url, ADMIN);
      await signInThroughPages(desk.page, db, server.url, ADMIN.email, ADMIN.password);
      await okBody(
        "console/receipts",
        await desk.page.request.post(`${server.url}/api/console/receipts`, {
          data: {
            amount: "1000.00",
            currency: "GBP",
            payer_name: "Olga Owner",
            reference: opened.accountRef,
            received_at: todayUtc(),
          },
        }),
      );
      await desk.context.close();
      const [{ account_id: accountId }] = (await db.$client.execute({
        sql: "SELECT account_id FROM account_members WHERE user_id = ?",
        args: [opened.id],
      })).rows as unknown as { account_id: number }[];
      const payer = await joinInBrowser({ server, db, browser }, {
        accountId,
        role: "payer",
        first: "Paula",
        last: "Payer",
      });
      const approver = await joinInBrowser({ server, db, browser }, {
        accountId,
        role: "approver",
        first: "Arthur",
        last: "Approver",
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
      await okBody(
        "account/approvals",
        await owner.page.request.put(`${server.url}/api/account/approvals`, {
          data: { mode: "all", thresholds: {}, new_recipient: false },
        }),
      );

      // The payer: the form, the full cost, confirm.
      const { page } = payer;
      page.setDefaultTimeout(15_000);
      await page.goto(`${server.url}/account/payment`);
      await hydrated(page);
      const form = page.getByRole("form", { name: "Make a payment" });
      expect(await form.getByLabel("Recipient", { exact: true }).inputValue()).not.toBe("");
      await form.getByLabel("Balance to pay from").selectOption("GBP");
      await form.getByLabel("Amount you send (GBP), fee included").fill("100.00");
      await form.getByLabel("Reference for the recipient").fill("Invoice 42");
      await form.getByRole("button", { name: "See the full cost" }).click();
      const cost = form.getByRole("region", { name: "The full cost" });
      await cost.waitFor();
      expect(await definition(cost, "Total debited")).toBe("100.00 GBP");
      expect(await definition(cost, "Transfer fee (regular, included)")).toBe("1.00 GBP");
      expect(await definition(cost, "Mid-market rate")).toMatch(/^1 GBP = \d+\.\d+ EUR$/);
      expect(await definition(cost, "Our rate")).toMatch(/^1 GBP = \d+\.\d+ EUR$/);
      expect(await definition(cost, "Our markup on the rate (included)")).toMatch(/^\d+\.\d\d GBP$/);
      expect(await definition(cost, "The recipient gets")).toMatch(/^\d+\.\d\d EUR$/);
      expect(await definition(cost, "Expected to arrive")).toMatch(/SEPA transfer/);
      // Every value ends on the same right edge, the arrival's (narrower, to wrap) too.
      const rightEdges = await cost.locator("dd").evaluateAll((dds) =>
        dds.map((dd) => Math.round(dd.getBoundingClientRect().right))
      );
      expect(new Set(rightEdges).size, `right edges ${rightEdges.join(", ")}`).toBe(1);
      // On a phone each rate stays on one line ("1 GBP = / 1.137656 / EUR" is hard to read), and
      // the page does not scroll sideways for it.
      const wide = page.viewportSize();
      await page.setViewportSize({ width: 390, height: 844 });
      await step(page, "1-full-cost-390");
      for (const term of ["Mid-market rate", "Our rate"]) {
        const rate = cost.locator("dt").filter({ hasText: new RegExp(`^${term}$`) }).locator(
          "xpath=following-sibling::dd[1]",
        );
        // The lines its text takes (the cell itself stretches to its row's height).
        const lines = await rate.evaluate((dd) => {
          const text = document.createRange();
          text.selectNodeContents(dd);
          return new Set([...text.getClientRects()].map((r) => Math.round(r.top))).size;
        });
        expect(lines, `${term} at 390 px`).toBe(1);
      }
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth))
        .toBe(true);
      if (wide) await page.setViewportSize(wide);
      await step(page, "1-full-cost");
      const mark = await lastEmailId(db);
      await cost.getByRole("button", { name: "Confirm and pay" }).click();
      await page.getByRole("heading", { name: "Your payment is waiting for approval" }).waitFor();
      // The money is held at once, shown beside the form without a page load.
      await expect.poll(async () => (await balancesShown(page)).GBP).toEqual({ available: "900.00", held: "100.00" });
      await step(page, "2-waiting");

      // The approver is told by email, with the payment's page.
      const told = await waitForEmail(db, approver.email, { template: "payment-approval-needed", after: mark });
      const link = /https?:\/\/\S+\/account\/pendingpayments\/(\d+)/.exec(told.text);
      expect(link, told.text).not.toBeNull();
      const paymentId = Number(link![1]);

      // The payer opens it: no Approve, and the reason said; the server refuses it too.
      await page.getByRole("link", { name: "Open the payment" }).click();
      await page.waitForURL(`${server.url}/account/pendingpayments/${paymentId}`);
      await hydrated(page);
      await page.getByText("You prepared this payment: someone else on the account must approve it.").waitFor();
      expect(await page.getByRole("button", { name: "Approve" }).count()).toBe(0);
      const refused = await page.request.put(`${server.url}/api/account/pendingpayments/update?id=${paymentId}`, {
        data: {},
      });
      expect(refused.status(), "a payer approves nothing").toBe(403);
      await step(page, "3-own-payment");

      // The owner may approve, but not a payment of their own: the page says why, the server refuses it.
      const base = `${server.url}/api`;
      const listed = await okBody("account/payments", await owner.page.request.get(`${base}/account/payments`));
      const quote = await okBody(
        "account/payments/quote",
        await owner.page.request.post(`${base}/account/payments/quote`, {
          data: {
            recipient_id: (listed.items as { recipient_id: number }[])[0].recipient_id,
            amount: "10.00",
            fixed: "send",
            sell_currency: "GBP",
          },
        }),
      );
      const own = await okBody(
        "account/payments",
        await owner.page.request.post(`${base}/account/payments`, { data: { quote_id: quote.id, reference: "Own" } }),
      );
      await owner.page.goto(`${server.url}/account/pendingpayments/${own.id}`);
      await hydrated(owner.page);
      await owner.page.getByText("You prepared this payment: someone else on the account must approve it.").waitFor();
      expect(await owner.page.getByRole("button", { name: "Approve" }).count()).toBe(0);
      expect(await owner.page.getByRole("button", { name: "Cancel this payment…" }).count()).toBe(1);
      // By keyboard: the question takes the focus, and Escape gives it back to the button that asked.
      const cancelIt = owner.page.getByRole("button", { name: "Cancel this payment…" });
      await cancelIt.focus();
      await owner.page.keyboard.press("Enter");
      const sure = owner.page.getByRole("button", { name: "Yes, cancel it" });
      await expect.poll(() => sure.evaluate((el) => el === document.activeElement)).toBe(true);
      await owner.page.keyboard.press("Escape");
      await expect.poll(() => cancelIt.evaluate((el) => el === document.activeElement)).toBe(true);
      const selfApproval = await owner.page.request.put(`${base}/account/pendingpayments/update?id=${own.id}`, {
        data: {},
      });
      expect(selfApproval.status()).toBe(403);
      expect((await selfApproval.json()).error).toBe(
        "You prepared this payment: someone else on the account must approve it.",
      );

      // The approver: the pending list, then the payment's page, then Approve.
      const checker = approver.page;
      checker.setDefaultTimeout(15_000);
      await checker.goto(`${server.url}/account/pendingpayments`);
      await hydrated(checker);
      const row = checker.locator(`tr[data-payment-id="${paymentId}"]`);
      expect(await row.textContent()).toContain("Paula Payer");
      await row.getByRole("link", { name: "Review the payment to Jean Dupont" }).click();
      await checker.waitForURL(`${server.url}/account/pendingpayments/${paymentId}`);
      await hydrated(checker);
      expect(await checker.getByText("Prepared by").textContent()).toContain("Paula Payer");
      expect(await seriousAxeViolations(checker)).toEqual([]);
      let loads = 0;
      checker.on("framenavigated", (frame) => frame === checker.mainFrame() && loads++);
      await checker.getByRole("button", { name: "Approve" }).click();
      await checker.locator('[data-status="approved"]').waitFor();
      const timeline = checker.getByRole("list", { name: "Timeline" });
      await expect.poll(async () => await timeline.textContent()).toContain("Approved");
      expect(await timeline.textContent()).toContain("by Arthur Approver");
      expect(loads, "approved without a page load").toBe(0);
      expect(await checker.getByRole("button", { name: "Approve" }).count()).toBe(0);
      await step(checker, "4-approved");

      // The payer's page shows it approved on the next load; the ledger holds the money.
      await page.reload();
      await hydrated(page);
      await page.locator('[data-status="approved"]').waitFor();
      const report = await checkLedger(db);
      expect(report.violations).toEqual([]);
      expect(unexpected(payer.problems, [403])).toEqual([]);
      expect(unexpected(owner.problems, [403])).toEqual([]);
      expect(unexpected(approver.problems)).toEqual([]);
      for (const c of [owner.context, payer.context, approver.context]) await c.close();
    },
    180_000,
  );
});
