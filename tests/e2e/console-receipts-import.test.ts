/**
 * Issue 11 item 10 in Chromium (decision 046): an administrator imports the bank's statement file
 * on /console/receipts and reads what became of each entry; the customer whose account_ref the
 * payer quoted sees the money on their balances. The file is the Federation of Finnish Financial
 * Services' published camt.053.001.02 sample (tests/fixtures/iso20022/README.md), copied here with
 * one payer's text naming the customer's account_ref.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../helpers/e2e-fixtures.ts";
import { hydrated, newPage, seriousAxeViolations } from "../helpers/browser.ts";
import { openAccountThroughApi, signInThroughPages } from "../helpers/e2e-mail.ts";
import { availableShown, ensureAdministrator, unexpected } from "../helpers/e2e-money.ts";
import { fixture } from "../unit/bank-files-xsd.ts";

const ADMIN = { email: "reconciliation@portal.test", password: "reconciliation-password-1" };
const CUSTOMER = { email: "virtanen@portal.test", password: "virtanen-password-1", first: "Anna", last: "Virtanen" };

describe("importing the bank's statement file", () => {
  test("an administrator uploads the file and sees each entry's result; the customer's balance shows the money", async ({ server, db, browser }) => {
    const signup = await newPage(browser);
    const customer = await openAccountThroughApi(signup.page.request, db, server.url, CUSTOMER);
    const accountRef = customer.accountRef!;
    const statement = fixture("camt.053.001.02-fffs-sample.xml")
      .replace("<Ustrd>INVOICE US20291092</Ustrd>", `<Ustrd>INVOICE ${accountRef}</Ustrd>`);
    const file = join(mkdtempSync(join(tmpdir(), "camt-")), "statement-2010-10-29.xml");
    writeFileSync(file, statement);

    const admin = await newPage(browser);
    admin.page.setDefaultTimeout(15_000);
    await ensureAdministrator(admin.page.request, server.url, ADMIN);
    await signInThroughPages(admin.page, db, server.url, ADMIN.email, ADMIN.password);
    await admin.page.goto(`${server.url}/console/receipts`);
    await hydrated(admin.page);
    const form = admin.page.getByRole("form", { name: "Import the bank's statement" });

    // Nothing chosen: the form says what it needs, without a request.
    await form.getByRole("button", { name: "Import the statement" }).click();
    await expect.poll(() => form.getByText("Choose the statement file the bank sent").count()).toBeGreaterThan(0);

    await form.getByLabel("Statement file").setInputFiles(file);
    await form.getByRole("button", { name: "Import the statement" }).click();
    const entries = form.getByRole("table", { name: "The statement's entries" });
    await expect.poll(() => entries.locator("tbody tr").count()).toBe(10);
    const credited = entries.getByRole("row").filter({ hasText: "091029ACCTSTMTARCH06" });
    expect(await credited.textContent()).toContain(`Credited (${accountRef})`);
    expect(await credited.textContent()).toContain("2120.00 EUR");
    expect(await entries.getByRole("row").filter({ hasText: "Debit: ignored" }).count()).toBe(4);
    expect(await entries.getByRole("row").filter({ hasText: "Unmatched: waits for allocation" }).count()).toBe(5);
    const counts = form.locator("dl");
    expect(await counts.textContent()).toContain("Credited1");
    expect(await counts.textContent()).toContain("Debits ignored4");
    // The receipts list below took the new receipts.
    const list = admin.page.getByRole("table", { name: "Receipts" });
    await expect.poll(() => list.getByRole("row").filter({ hasText: `Credited to ${accountRef}` }).count()).toBe(1);
    expect(await seriousAxeViolations(admin.page)).toEqual([]);

    // The same file again: every credit already imported, nothing credited twice.
    await form.getByLabel("Statement file").setInputFiles(file);
    await form.getByRole("button", { name: "Import the statement" }).click();
    await expect.poll(() => entries.getByRole("row").filter({ hasText: "Already imported: skipped" }).count())
      .toBe(6);
    expect(await counts.textContent()).toContain("Credited0");
    expect(unexpected(admin.problems)).toEqual([]);
    await admin.context.close();

    // The customer, still signed in from signing up, sees the money once.
    await signup.page.goto(`${server.url}/account/balances`);
    await hydrated(signup.page);
    expect(await availableShown(signup.page, "EUR")).toBe(2120);
    expect(unexpected(signup.problems)).toEqual([]);
    await signup.context.close();
  });
});
