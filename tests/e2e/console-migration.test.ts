/**
 * A customer migration in Chromium (issue 11 item 8, decision 049): an administrator chooses a CSV
 * file on /console/migration, reads the dry run (which line would be created, which refused and
 * why), commits it, and follows the run on its page until the job has created and emailed the
 * customers; one of them opens the emailed link, chooses a password, signs in, and is sent on to
 * give their details, as every new customer is.
 */
import { Buffer } from "node:buffer";
import { describe, expect, vi } from "vitest";
import { hydrated, newPage } from "../helpers/browser.ts";
import { test as e2e } from "../helpers/e2e-fixtures.ts";
import { linkIn, signInThroughPages, waitForEmail } from "../helpers/e2e-mail.ts";
import { ensureAdministrator } from "../helpers/e2e-money.ts";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const ADMIN = { email: "migration-desk@portal.test", password: "desk-password-123" };

// The portal as it runs (main.ts): its job runner commits the migration.
const test = e2e.override(
  "serverSettings",
  { scope: "file" },
  () => ({ script: "main.ts", env: { APP_ENV: "test", APP_SECRET: crypto.randomUUID() } }),
);

describe("a migration file", () => {
  test("is tried as a dry run, committed, followed, and a migrated customer signs in", async ({ server, db, browser }) => {
    const tag = crypto.randomUUID().slice(0, 6);
    const ada = `ada-${tag}@legacy.test`;
    const grace = `grace-${tag}@legacy.test`;
    const csv = [
      "legacy_id,email,type,first_name,last_name,company_name,country,phone",
      `A-${tag},${ada},Personal,Ada,Lovelace,,GB,+44 20 7946 0000`,
      `G-${tag},${grace},Personal,Grace,Hopper,,US,`,
      `X-${tag},broken-${tag}@legacy.test,Corporate,No,One,,GB,`,
    ].join("\n");

    const { page, problems } = await newPage(browser);
    await ensureAdministrator(page.request, server.url, ADMIN);
    await signInThroughPages(page, db, server.url, ADMIN.email, ADMIN.password);
    await page.goto(`${server.url}/console/migration`);
    await hydrated(page);
    await page.getByLabel("Customers file").setInputFiles({
      name: "legacy.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(csv),
    });
    await page.getByRole("button", { name: "Dry run" }).click();

    const dryRun = page.getByRole("region", { name: "Dry run of legacy.csv" });
    await dryRun.waitFor();
    await expect.poll(() => dryRun.locator('[data-count="Would be created"]').textContent()).toBe("2");
    expect(await dryRun.locator('[data-count="Refused"]').textContent()).toBe("1");
    const refused = dryRun.locator('tr[data-outcome="refused"]');
    expect(await refused.textContent()).toContain("type must be Personal or Business.");
    // The dry run created nobody and emailed nobody.
    await expect(waitForEmail(db, ada, { timeoutMs: 500 })).rejects.toThrow();

    await page.getByRole("button", { name: "Commit: create 2 customers" }).click();
    await page.waitForURL(/\/console\/migration\/\d+$/);
    await hydrated(page);
    await page.getByText("Migration done").waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-count="Created"]').textContent()).toBe("2");
    const created = page.locator('tr[data-outcome="created"]');
    expect(await created.count()).toBe(2);
    expect(await created.first().textContent()).toContain("emailed");
    expect(problems).toEqual([]);

    // Ada opens her link, chooses a password, signs in, and is asked for her details.
    const mail = await waitForEmail(db, ada, { template: "migration-welcome" });
    const link = linkIn(mail.text)!;
    expect(link).toMatch(new RegExp(`^${server.url}/forgot\\?token=`));
    const customer = await newPage(browser);
    await customer.page.goto(link);
    await hydrated(customer.page);
    const reset = customer.page.getByRole("form", { name: "Choose a new password" });
    const password = "ada chooses a password";
    await reset.getByLabel("New password", { exact: true }).fill(password);
    await reset.getByLabel("New password again").fill(password);
    await reset.getByRole("button", { name: "Change my password" }).click();
    await customer.page.waitForURL(`${server.url}/`);
    await signInThroughPages(customer.page, db, server.url, ada, password);
    await customer.page.waitForURL(`${server.url}/register-personal`);
    expect(customer.problems).toEqual([]);
  });
});
