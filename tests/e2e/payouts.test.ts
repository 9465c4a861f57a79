/**
 * The payout desk in Chromium (issue 8 item 7): a payer prepares a payment that needs approval
 * and an approver approves it (through their calls: tests/e2e/payments.test.ts walks those
 * screens), then an administrator on /console/local sees it in the queue with its customer,
 * recipient, amounts and reference, exports the SEPA file (downloaded: a pain.001 with the payment
 * and the company's account from COMPANY_BANK_* as debtor) and marks the payment arrived when the
 * bank's statement shows it. The payer is emailed when it is sent and when it arrives, and sees it
 * completed on its page; the ledger checks out.
 * PAYOUTS_E2E_SCREENSHOTS=1 keeps a screenshot of each step in /tmp/payouts-e2e-*.png.
 */
import { readFile } from "node:fs/promises";
import type { Page } from "playwright-core";
import { describe, expect } from "vitest";
import { checkLedger } from "../../server/ledger/check.ts";
import { hydrated, newPage, seriousAxeViolations } from "../helpers/browser.ts";
import { joinInBrowser, test as e2e } from "../helpers/e2e-fixtures.ts";
import { lastEmailId, okBody, openAccountThroughApi, signInThroughPages, waitForEmail } from "../helpers/e2e-mail.ts";
import { ensureAdministrator, todayUtc, unexpected } from "../helpers/e2e-money.ts";

const ADMIN = { email: "payout-desk@portal.test", password: "payout-desk-password-123" };
/** The company's account, named as the debtor of every SEPA file. */
const COMPANY_BANK = {
  COMPANY_BANK_NAME: "Commerzbank",
  COMPANY_BANK_ACCOUNT_NAME: "Portal Payments GmbH Kundengeld",
  COMPANY_BANK_IBAN: "DE89370400440532013000",
  COMPANY_BANK_BIC: "COBADEFFXXX",
};

const test = e2e.override("serverSettings", { scope: "file" }, () => ({ env: COMPANY_BANK }));

async function step(page: Page, name: string): Promise<void> {
  if (Deno.env.get("PAYOUTS_E2E_SCREENSHOTS")) await page.screenshot({ path: `/tmp/payouts-e2e-${name}.png` });
}

describe("the payout desk", () => {
  test(
    "exports an approved SEPA payment in a file and marks it arrived; the customer sees it and is emailed",
    async ({ server, db, browser }) => {
      const base = `${server.url}/api`;
      // The account: an owner funded by a receipt, a payer and an approver, a recipient in France.
      const owner = await newPage(browser);
      const ownerEmail = `owner-${crypto.randomUUID().slice(0, 6)}@portal.test`;
      const opened = await openAccountThroughApi(owner.page.request, db, server.url, {
        email: ownerEmail,
        password: "owner password 123",
        first: "Otto",
        last: "Owner",
      });
      const desk = await newPage(browser);
      await ensureAdministrator(desk.page.request, server.url, ADMIN);
      await signInThroughPages(desk.page, db, server.url, ADMIN.email, ADMIN.password);
      await okBody(
        "console/receipts",
        await desk.page.request.post(`${base}/console/receipts`, {
          data: {
            amount: "1000.00",
            currency: "EUR",
            payer_name: "Otto Owner",
            reference: opened.accountRef,
            received_at: todayUtc(),
          },
        }),
      );
      const [{ account_id: accountId }] = (await db.$client.execute({
        sql: "SELECT account_id FROM account_members WHERE user_id = ?",
        args: [opened.id],
      })).rows as unknown as { account_id: number }[];
      const payer = await joinInBrowser({ server, db, browser }, {
        accountId,
        role: "payer",
        first: "Pia",
        last: "Payer",
      });
      const approver = await joinInBrowser({ server, db, browser }, {
        accountId,
        role: "approver",
        first: "Anton",
        last: "Approver",
      });
      const recipient = await okBody(
        "account/recipients",
        await owner.page.request.post(`${base}/account/recipients`, {
          data: {
            name: "Jeanne Martin",
            type: "person",
            currency: "EUR",
            country: "FR",
            details: { iban: "FR14 2004 1010 0505 0001 3M02 606", bic: "PSSTFRPPXXX" },
          },
        }),
      );
      await okBody(
        "account/approvals",
        await owner.page.request.put(`${base}/account/approvals`, {
          data: { mode: "all", thresholds: {}, new_recipient: false },
        }),
      );

      // The payer prepares it; it waits for approval; the approver approves it.
      const quote = await okBody(
        "account/payments/quote",
        await payer.page.request.post(`${base}/account/payments/quote`, {
          data: { recipient_id: recipient.id, amount: "250.00", fixed: "receive", sell_currency: "EUR" },
        }),
      );
      const prepared = await okBody(
        "account/payments",
        await payer.page.request.post(`${base}/account/payments`, {
          data: { quote_id: quote.id, reference: "Rent November" },
        }),
      );
      expect(prepared.status).toBe("pending_approval");
      const paymentId = prepared.id as number;
      const approved = await okBody(
        "account/pendingpayments/update",
        await approver.page.request.put(`${base}/account/pendingpayments/update?id=${paymentId}`, { data: {} }),
      );
      expect(approved.status).toBe("approved");

      // The desk: the payment waits on /console/local with whose it is, to whom, how much and why.
      const page = desk.page;
      page.setDefaultTimeout(15_000);
      await page.goto(`${server.url}/console/local`);
      await hydrated(page);
      const row = page.locator(`tr[data-payout-id="${paymentId}"]`);
      const shown = await row.textContent();
      for (const text of ["Otto Owner", opened.accountRef!, "Jeanne Martin (FR)", "FR1420041010050500013M02606"]) {
        expect(shown).toContain(text);
      }
      expect(shown).toContain("250.00");
      expect(shown).toContain("Rent November");
      expect(shown).toContain("by Pia Payer");
      expect(shown).toContain("SEPA payments go out in a SEPA file");
      expect(await row.getByRole("button", { name: /^Submit payment/ }).count(), "SEPA goes in a file").toBe(0);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await step(page, "1-queue");

      // On a phone the Fail… form opens where it can be used: its reason box takes the focus and it
      // is on screen with its button, though the table scrolls sideways; Escape closes it and gives
      // the focus back to the button that opened it.
      const wide = page.viewportSize()!;
      await page.setViewportSize({ width: 390, height: 844 });
      // The reference wraps between its words, not mid-word ("Rent Nove / mber").
      const lines = await row.locator("[data-reference]").evaluate((cell) =>
        ["Rent", "November"].map((word) => {
          const text = cell.firstChild!;
          const range = document.createRange();
          const at = text.textContent!.indexOf(word);
          range.setStart(text, at);
          range.setEnd(text, at + word.length);
          return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
        })
      );
      expect(lines).toEqual([1, 1]);
      const failButton = row.getByRole("button", { name: /^Fail payment/ });
      await failButton.scrollIntoViewIfNeeded();
      await failButton.click();
      const reason = page.getByLabel("Why did the payment fail?");
      await expect.poll(() => reason.evaluate((e) => e === document.activeElement)).toBe(true);
      for (const part of [reason, page.getByRole("button", { name: "Fail the payment" })]) {
        const box = (await part.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(390);
      }
      await step(page, "1-fail-form-phone");
      await page.keyboard.press("Escape");
      await page.locator(`#payout-form-${paymentId}`).waitFor({ state: "detached" });
      expect(await failButton.evaluate((e) => e === document.activeElement)).toBe(true);
      expect(await failButton.getAttribute("aria-expanded")).toBe("false");
      await page.setViewportSize(wide);

      // Export: the file downloads, with the payment and the company's account as the debtor.
      const mark = await lastEmailId(db);
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("button", { name: "Export SEPA file" }).click(),
      ]);
      expect(download.suggestedFilename()).toMatch(/^PAYOUTS-\d{8}-\d+\.xml$/);
      const xml = await readFile(await download.path(), "utf8");
      expect(xml).toContain("urn:iso:std:iso:20022:tech:xsd:pain.001.001.03");
      expect(xml).toContain(`<EndToEndId>PAYMENT-${paymentId}</EndToEndId>`);
      expect(xml).toContain('<InstdAmt Ccy="EUR">250.00</InstdAmt>');
      expect(xml).toContain("<IBAN>FR1420041010050500013M02606</IBAN>");
      expect(xml).toContain("<Nm>Portal Payments GmbH Kundengeld</Nm>");
      expect(xml).toContain("<IBAN>DE89370400440532013000</IBAN>");
      await page.getByText(`${download.suggestedFilename()} is downloading`).waitFor();
      const files = page.getByRole("table", { name: "SEPA files" });
      await files.getByRole("rowheader", { name: download.suggestedFilename().replace(/\.xml$/, "") }).waitFor();
      await row.locator('[data-status="submitted"]').waitFor();
      expect(await row.textContent()).toContain(`PAYMENT-${paymentId}`);
      await step(page, "2-exported");

      // The payer is told it is on its way: alone, or with the approval notice still waiting for the
      // outbox's next round (one email lists a person's notices when several wait).
      const sent = await waitForEmail(db, payer.email, {
        template: ["payment-sent", "payment-updates"],
        containing: "is on its way to their bank",
        after: mark,
      });
      expect(sent.text).toContain("Jeanne Martin");

      // The bank's statement shows it: Arrived. The default queue (to do) no longer lists it.
      const arrivedMark = await lastEmailId(db);
      await row.getByRole("button", { name: `Arrived: payment ${paymentId}, 250.00 EUR to Jeanne Martin` }).click();
      await row.waitFor({ state: "detached" });
      await page.getByLabel("Status").selectOption("completed");
      await row.locator('[data-status="completed"]').waitFor();
      await step(page, "3-arrived");

      // The payer and the owner are emailed; the payer's page shows it completed.
      for (const person of [payer.email, ownerEmail]) {
        const arrived = await waitForEmail(db, person, {
          template: ["payment-arrived", "payment-updates"],
          containing: "reached Jeanne Martin's bank",
          after: arrivedMark,
        });
        expect(arrived.text).toContain("reached Jeanne Martin's bank");
      }
      await payer.page.goto(`${server.url}/account/pendingpayments/${paymentId}`);
      await hydrated(payer.page);
      await payer.page.locator('[data-status="completed"]').waitFor();
      await step(payer.page, "4-customer");

      const report = await checkLedger(db);
      expect(report.violations).toEqual([]);
      expect(unexpected(desk.problems)).toEqual([]);
      expect(unexpected(payer.problems)).toEqual([]);
      for (const c of [owner.context, desk.context, payer.context, approver.context]) await c.close();
    },
    180_000,
  );
});
