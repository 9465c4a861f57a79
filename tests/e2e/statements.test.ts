/**
 * A statement in Chromium (issue 10, decision 037): a funded customer opens /account/reports, asks
 * for a PDF statement of their GBP balance, and the page follows the background job (it polls GET
 * account/jobs/{id} and shows its progress) until the download link appears; the file downloaded is
 * a PDF whose text names the account and its closing balance, and it is listed for 7 days.
 * STATEMENTS_E2E_SCREENSHOTS=1 keeps a screenshot of the page at the end in /tmp/statements-e2e-done.png.
 */
import { readFile } from "node:fs/promises";
import type { Response } from "playwright-core";
import { extractText, getDocumentProxy } from "unpdf";
import { describe, expect, vi } from "vitest";
import { hydrated, newPage, seriousAxeViolations } from "../helpers/browser.ts";
import { test as e2e } from "../helpers/e2e-fixtures.ts";
import { openAccountThroughApi, signInThroughPages } from "../helpers/e2e-mail.ts";
import { ensureAdministrator, todayUtc } from "../helpers/e2e-money.ts";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const ADMIN = { email: "statements-desk@portal.test", password: "desk-password-123" };

// The portal as it runs (main.ts): its job runner makes the statement.
const test = e2e.override(
  "serverSettings",
  { scope: "file" },
  () => ({ script: "main.ts", env: { APP_ENV: "test", APP_SECRET: crypto.randomUUID() } }),
);

describe("a PDF statement", () => {
  test("is asked for on the reports page, followed as it is made, and downloaded", async ({ server, db, browser }) => {
    const { page, context, problems } = await newPage(browser);
    const opened = await openAccountThroughApi(page.request, db, server.url, {
      email: `stella-${crypto.randomUUID().slice(0, 6)}@portal.test`,
      password: "stella password 123",
      first: "Stella",
      last: "Statement",
    });
    const desk = await newPage(browser);
    await ensureAdministrator(desk.page.request, server.url, ADMIN);
    await signInThroughPages(desk.page, db, server.url, ADMIN.email, ADMIN.password);
    const receipt = await desk.page.request.post(`${server.url}/api/console/receipts`, {
      data: {
        amount: "1234.56",
        currency: "GBP",
        payer_name: "Stella Statement",
        reference: opened.accountRef,
        received_at: todayUtc(),
      },
    });
    expect(receipt.status(), await receipt.text()).toBe(201);
    await desk.context.close();

    // Every answer about a job the page asked for: what its progress bar was drawn from.
    const jobAnswers: { status: string; progress: { done: number; total: number } | null }[] = [];
    page.on("response", async (res: Response) => {
      if (/\/api\/account\/jobs\/\d+$/.test(new URL(res.url()).pathname) && res.ok()) {
        jobAnswers.push((await res.json()).body);
      }
    });

    await page.goto(`${server.url}/account/reports`);
    await hydrated(page);
    await expect.poll(() => page.title()).toContain("Reports");
    await page.getByLabel("Currency").selectOption("GBP");
    await page.getByLabel("Format").selectOption("pdf");
    await page.getByLabel("From").fill(todayUtc());
    await page.getByRole("button", { name: "Make the statement" }).click();

    const link = page.getByRole("link", { name: "Download the statement" });
    try {
      await link.waitFor({ timeout: 30_000 });
    } catch (error) {
      await page.screenshot({ path: "/tmp/statements-e2e-waiting.png" });
      throw new Error(`No download link; job answers: ${JSON.stringify(jobAnswers)}; ${problems.join("; ")}`, {
        cause: error,
      });
    }
    // The page followed the job until it succeeded, its progress counting the statement's lines.
    // (The listener reads each answer's body after the page did: wait for it to have read the last.)
    await expect.poll(() => jobAnswers.at(-1)?.status, { timeout: 15_000 }).toBe("succeeded");
    expect(jobAnswers.at(-1)).toMatchObject({ status: "succeeded", progress: { done: 1, total: 1 } });

    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    expect(download.suggestedFilename()).toBe(
      `statement-${opened.accountRef}-GBP-${todayUtc()}-to-${todayUtc()}.pdf`,
    );
    const bytes = new Uint8Array(await readFile((await download.path())!));
    expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe("%PDF-");
    const { text } = await extractText(await getDocumentProxy(bytes), { mergePages: true });
    expect(text).toContain(`Account reference: ${opened.accountRef}`);
    expect(text).toContain(`Closing balance on ${todayUtc()}: 1,234.56 GBP`);

    // The list below keeps it, downloadable, for 7 days.
    const row = page.locator("tr[data-statement-id]").first();
    await expect.poll(() => row.textContent(), { timeout: 15_000 }).toContain("Download statement-");
    if (Deno.env.get("STATEMENTS_E2E_SCREENSHOTS")) {
      await page.screenshot({ path: "/tmp/statements-e2e-done.png", fullPage: true });
    }
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
