/**
 * The link of an "approval needed" email, and of its in-app notification, followed in Chromium while
 * the approver works on their own personal account (decision 060): the payment's page opens on the
 * payment's account, with a notification saying so, and the header names that account. The same for
 * the emailed link of a rate alert of that account that fired. The notification names the account it
 * is about; the back button after a switch shows the account now worked on; the email opened signed
 * out on a phone leads through sign-in and the second factor to the payment, on its account.
 */
import { describe, expect } from "vitest";
import { hydrated, newPage } from "../helpers/browser.ts";
import { test } from "../helpers/e2e-fixtures.ts";
import { lastEmailId, okBody, openAccountThroughApi, signInThroughPages, waitForEmail } from "../helpers/e2e-mail.ts";
import { ensureAdministrator, todayUtc, unexpected } from "../helpers/e2e-money.ts";

const ADMIN = { email: "links-desk@portal.test", password: "desk-password-123" };

describe("a link to a payment of another of the person's accounts", () => {
  test(
    "opens the payment on its account and says the session now works on it",
    async ({ server, db, browser }) => {
      const base = server.url;
      const owner = await newPage(browser);
      const opened = await openAccountThroughApi(owner.page.request, db, base, {
        email: `olga-${crypto.randomUUID().slice(0, 6)}@portal.test`,
        password: "owner password 123",
        first: "Olga",
        last: "Owner",
      });
      const desk = await newPage(browser);
      await ensureAdministrator(desk.page.request, base, ADMIN);
      await signInThroughPages(desk.page, db, base, ADMIN.email, ADMIN.password);
      await okBody(
        "console/receipts",
        await desk.page.request.post(`${base}/api/console/receipts`, {
          data: {
            amount: "1000.00",
            currency: "GBP",
            payer_name: "Olga Owner",
            reference: opened.accountRef,
            received_at: todayUtc(),
          },
        }),
      );
      const [{ account_id: accountId }] = (await db.$client.execute({
        sql: "SELECT account_id FROM account_members WHERE user_id = ?",
        args: [opened.id],
      })).rows as unknown as { account_id: number }[];

      // The approver has a personal account of their own and is an approver of Olga's.
      const approver = await newPage(browser);
      const email = `ada-${crypto.randomUUID().slice(0, 6)}@portal.test`;
      const own = await openAccountThroughApi(approver.page.request, db, base, {
        email,
        password: "approver password 123",
        first: "Ada",
        last: "Lovelace",
      });
      await db.$client.execute({
        sql: "INSERT INTO account_members (account_id, user_id, role, created_at) VALUES (?, ?, 'approver', ?)",
        args: [accountId, own.id, Date.now()],
      });
      await okBody(
        "account/select",
        await approver.page.request.post(`${base}/api/account/select`, { data: { account_ref: own.accountRef } }),
      );

      const recipient = await okBody<{ id: number }>(
        "account/recipients",
        await owner.page.request.post(`${base}/api/account/recipients`, {
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
        await owner.page.request.put(`${base}/api/account/approvals`, {
          data: { mode: "all", thresholds: {}, new_recipient: false },
        }),
      );
      const quote = await okBody<{ id: string }>(
        "account/payments/quote",
        await owner.page.request.post(`${base}/api/account/payments/quote`, {
          data: { recipient_id: recipient.id, amount: "100.00", fixed: "send", priority: false, sell_currency: "GBP" },
        }),
      );
      const mark = await lastEmailId(db);
      await okBody(
        "account/payments",
        await owner.page.request.post(`${base}/api/account/payments`, {
          data: { quote_id: quote.id, reference: "Invoice 42" },
        }),
      );
      const told = await waitForEmail(db, email, { template: "payment-approval-needed", after: mark });
      const link = /https?:\/\/\S+\/account\/pendingpayments\/\d+/.exec(told.text)?.[0];
      expect(link, told.text).toBeDefined();

      // Working on the personal account, the approver's next page shows the notification, whose
      // link is the email's: reached by keyboard (Shift+Tab from its dismiss button; the focus holds
      // the toast) and followed with Enter.
      const { page, problems } = approver;
      page.setDefaultTimeout(15_000);
      await page.goto(`${base}/account`);
      await hydrated(page);
      const toast = page.getByRole("region", { name: "Notifications" }).getByRole("listitem").filter({
        hasText: "A payment needs your approval",
      });
      await toast.getByRole("button", { name: "Dismiss notification" }).focus();
      await page.keyboard.press("Shift+Tab");
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Open the payment");
      expect(`${base}${await page.evaluate(() => document.activeElement?.getAttribute("href"))}`).toBe(link);
      const header = page.getByRole("banner").locator("[data-current-account]");
      expect(await header.getAttribute("data-current-account")).toBe(own.accountRef);
      // Under the personal account's header, the notification says whose payment it is.
      expect(await toast.textContent()).toContain(`On Olga Owner (${opened.accountRef}):`);
      await page.keyboard.press("Enter");
      await page.waitForURL(link!);
      await hydrated(page);
      expect(page.url()).toBe(link);
      expect(await header.getAttribute("data-current-account")).toBe(opened.accountRef);
      const toasts = page.getByRole("region", { name: "Notifications" });
      await expect.poll(() => toasts.getByText("You are now working on Olga Owner.").isVisible()).toBe(true);
      await page.getByRole("heading", { name: /to Jean Dupont/ }).waitFor();
      expect(await page.getByRole("button", { name: "Approve" }).count()).toBe(1);
      if (Deno.env.get("LINKS_E2E_SCREENSHOTS")) await page.screenshot({ path: "/tmp/links-e2e-payment.png" });

      // In a second window the approver switches back to their personal account; Approve in this
      // window, whose page shows Olga's, approves nothing: the page is loaded again and says why.
      const other = await approver.context.newPage();
      await okBody(
        "account/select",
        await other.request.post(`${base}/api/account/select`, { data: { account_ref: own.accountRef } }),
      );
      await other.close();
      await page.getByRole("button", { name: "Approve" }).click();
      await expect.poll(() =>
        toasts.getByText(`You switched to Ada Lovelace (${own.accountRef}) in another window`, { exact: false })
          .isVisible()
      ).toBe(true);
      const paymentId = Number(link!.split("/").pop());
      const [{ status }] =
        (await db.$client.execute({ sql: "SELECT status FROM payments WHERE id = ?", args: [paymentId] }))
          .rows as unknown as { status: string }[];
      expect(status).toBe("pending_approval");
      // The page loaded again stays on the account chosen in the other window: it does not switch
      // back to Olga's as the emailed link did, and says where the payment is.
      await hydrated(page);
      expect(await header.getAttribute("data-current-account")).toBe(own.accountRef);
      expect(await toasts.getByText("You are now working on Olga Owner.").count()).toBe(0);
      const elsewhere = page.getByText(`This payment is on Olga Owner (${opened.accountRef}), not on Ada Lovelace`);
      expect(await elsewhere.isVisible()).toBe(true);
      expect(await page.getByRole("button", { name: "Approve" }).count()).toBe(0);
      if (Deno.env.get("LINKS_E2E_SCREENSHOTS")) await page.screenshot({ path: "/tmp/links-e2e-reloaded.png" });
      // Going back to it is the person's choice: its link switches, as the email's does.
      await page.getByRole("link", { name: "Switch to Olga Owner and open the payment" }).click();
      await page.waitForURL(link!);
      await hydrated(page);
      expect(await header.getAttribute("data-current-account")).toBe(opened.accountRef);
      await expect.poll(() => toasts.getByText("You are now working on Olga Owner.").isVisible()).toBe(true);
      expect(await page.getByRole("button", { name: "Approve" }).count()).toBe(1);

      // Ada had set a rate alert on Olga's account (GBP to EUR at or above 1.15; 1.137656 now). Back
      // on her personal account, the rate crosses it: the email's link opens Olga's alerts, not hers.
      await db.$client.execute({
        sql: `INSERT INTO rate_alerts (account_id, created_by, sell_currency, buy_currency, target_rate, direction,
                created_at) VALUES (?, ?, 'GBP', 'EUR', '1.15', 'above', ?)`,
        args: [accountId, own.id, Date.now()],
      });
      const before = await lastEmailId(db);
      await okBody(
        "console/rates",
        await desk.page.request.put(`${base}/api/console/rates`, { data: { base: "EUR", rates: { GBP: "0.86" } } }),
      );
      const fired = await waitForEmail(db, email, { template: "rate-alert-fired", after: before, timeoutMs: 20_000 });
      const alertLink = /https?:\/\/\S+\/account\/ratealerts\S*/.exec(fired.text)?.[0];
      expect(alertLink, fired.text).toBeDefined();
      await okBody(
        "account/select",
        await page.request.post(`${base}/api/account/select`, { data: { account_ref: own.accountRef } }),
      );
      await page.goto(`${base}/account`);
      await hydrated(page);
      expect(await header.getAttribute("data-current-account")).toBe(own.accountRef);
      await page.goto(alertLink!);
      await hydrated(page);
      expect(page.url()).toBe(`${base}/account/ratealerts`);
      expect(await header.getAttribute("data-current-account")).toBe(opened.accountRef);
      await expect.poll(() => toasts.getByText("You are now working on Olga Owner.").isVisible()).toBe(true);
      const alerts = page.getByRole("list", { name: "Rate alerts" });
      expect(await alerts.getByRole("listitem").first().textContent()).toContain("1 GBP = 1.15 EUR, at or above");

      // The back button after the switch: the dashboard seen on the personal account is loaded again
      // for the account the session now works on, never shown under the header of the one it left.
      await page.goBack();
      await hydrated(page);
      expect(page.url()).toBe(`${base}/account`);
      expect(await header.getAttribute("data-current-account")).toBe(opened.accountRef);

      // The approval email opened signed out, on a phone: sign-in, the second factor, and the payment
      // on Olga's account, though Ada has two accounts and chose none in that browser.
      const phone = await newPage(browser);
      await phone.page.setViewportSize({ width: 390, height: 844 });
      phone.page.setDefaultTimeout(15_000);
      await phone.page.goto(link!);
      await phone.page.waitForURL(`${base}/#sign-in`);
      await signInThroughPages(phone.page, db, base, email, "approver password 123");
      await phone.page.waitForURL(link!);
      await hydrated(phone.page);
      const phoneHeader = phone.page.getByRole("banner").locator("[data-current-account]");
      expect(await phoneHeader.getAttribute("data-current-account")).toBe(opened.accountRef);
      expect(await phoneHeader.isVisible()).toBe(true);
      await phone.page.getByRole("heading", { name: /to Jean Dupont/ }).waitFor();
      expect(await phone.page.getByRole("button", { name: "Approve" }).count()).toBe(1);
      await phone.page.screenshot({ path: "/tmp/explore-phone.png" });
      expect(unexpected(phone.problems)).toEqual([]);
      await phone.context.close();

      // The refused Approve is the browser's one expected failure.
      expect(unexpected(problems, [409])).toEqual([]);
      await desk.context.close();
      await approver.context.close();
      await owner.context.close();
    },
    180_000,
  );
});
