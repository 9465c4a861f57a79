/**
 * A download link followed in a window whose page shows an account the person has since switched
 * away from in another window (decision 075): Chromium downloads no file of the other account and
 * saves no refusal as a file; the page is loaded again for the account now worked on, saying why,
 * as an island's call after such a switch does.
 */
import { describe, expect } from "vitest";
import { hydrated, newPage } from "../helpers/browser.ts";
import { test } from "../helpers/e2e-fixtures.ts";
import { okBody, openAccountThroughApi } from "../helpers/e2e-mail.ts";
import { todayUtc, unexpected } from "../helpers/e2e-money.ts";

describe("a download link on a page of the account switched away from in another window", () => {
  test(
    "downloads nothing and loads the page again for the account now worked on, saying why",
    async ({ server, db, browser }) => {
      const base = server.url;
      const owner = await newPage(browser);
      const olga = await openAccountThroughApi(owner.page.request, db, base, {
        email: `olga-${crypto.randomUUID().slice(0, 6)}@portal.test`,
        password: "owner password 123",
        first: "Olga",
        last: "Owner",
      });
      const [{ account_id: olgasAccount }] = (await db.$client.execute({
        sql: "SELECT account_id FROM account_members WHERE user_id = ?",
        args: [olga.id],
      })).rows as unknown as { account_id: number }[];
      // A statement of Olga's account, ready, listed on its reports page.
      const now = Date.now();
      await db.$client.execute({
        sql: `INSERT INTO statements (account_id, requested_by, currency, period_from, period_to, closing_at,
                format, content, file_name, line_count, size_bytes, created_at, ready_at, expires_at)
              VALUES (?, ?, NULL, ?, ?, ?, 'csv', ?, ?, 0, 5, ?, ?, ?)`,
        args: [
          olgasAccount,
          olga.id,
          todayUtc(),
          todayUtc(),
          now,
          new TextEncoder().encode("a,b\n"),
          `statement-${olga.accountRef}.csv`,
          now,
          now,
          now + 7 * 24 * 3600 * 1000,
        ],
      });

      // Ada has her personal account and is a viewer of Olga's; this window shows Olga's.
      const ada = await newPage(browser);
      const own = await openAccountThroughApi(ada.page.request, db, base, {
        email: `ada-${crypto.randomUUID().slice(0, 6)}@portal.test`,
        password: "viewer password 123",
        first: "Ada",
        last: "Lovelace",
      });
      await db.$client.execute({
        sql: "INSERT INTO account_members (account_id, user_id, role, created_at) VALUES (?, ?, 'viewer', ?)",
        args: [olgasAccount, own.id, now],
      });
      const { page, context, problems } = ada;
      page.setDefaultTimeout(15_000);
      const downloads: string[] = [];
      page.on("download", (download) => downloads.push(download.suggestedFilename()));
      const selectIn = async (ref: string | null) => {
        // Another window of the same browser chooses the account: the session's choice changes.
        const other = await context.newPage();
        await okBody(
          "account/select",
          await other.request.post(`${base}/api/account/select`, { data: { account_ref: ref } }),
        );
        await other.close();
      };
      const header = page.getByRole("banner").locator("[data-current-account]");
      const toasts = page.getByRole("region", { name: "Notifications" });
      const told = () =>
        toasts.getByText(`You switched to Ada Lovelace (${own.accountRef}) in another window`, { exact: false });

      // The transactions page of Olga's account, then a switch elsewhere, then its "Download CSV".
      await selectIn(olga.accountRef);
      await page.goto(`${base}/account/transactions?currency=GBP`);
      await hydrated(page);
      expect(await header.getAttribute("data-current-account")).toBe(olga.accountRef);
      await selectIn(own.accountRef);
      await page.getByRole("link", { name: "Download CSV" }).click();
      await expect.poll(() => told().isVisible()).toBe(true);
      expect(page.url()).toBe(`${base}/account/transactions?currency=GBP`);
      expect(await header.getAttribute("data-current-account")).toBe(own.accountRef);

      // The same for a statement listed on the reports page.
      await selectIn(olga.accountRef);
      await page.goto(`${base}/account/reports`);
      await hydrated(page);
      expect(await header.getAttribute("data-current-account")).toBe(olga.accountRef);
      await selectIn(own.accountRef);
      await page.getByRole("link", { name: `Download statement-${olga.accountRef}.csv` }).click();
      await expect.poll(() => told().isVisible()).toBe(true);
      expect(page.url()).toBe(`${base}/account/reports`);
      expect(await header.getAttribute("data-current-account")).toBe(own.accountRef);
      expect(downloads).toEqual([]);

      // On the account the page shows, the link downloads that account's file, and the page stays.
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.goto(`${base}/account/transactions`).then(() => hydrated(page)).then(() =>
          page.getByRole("link", { name: "Download CSV" }).click()
        ),
      ]);
      expect(download.suggestedFilename()).toBe(`transactions-${own.accountRef}.csv`);
      expect(page.url()).toBe(`${base}/account/transactions`);
      expect(unexpected(problems)).toEqual([]);
      await context.close();
      await owner.context.close();
    },
    180_000,
  );
});
