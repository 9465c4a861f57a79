/**
 * An administrator acting on behalf of a customer, in Chromium: from the console's customer list to
 * the customer's screens with the banner naming them, across reloads and a new sign-in, and back,
 * with both ends in the audit log.
 */
import type { Page } from "playwright-core";
import { expect, vi } from "vitest";
import { ON_BEHALF_CLEAR_DELAY_MS } from "../../lib/constants.ts";
import { hydrated, newPage } from "../helpers/browser.ts";
import { test } from "../helpers/e2e-fixtures.ts";
import { codeIn, lastEmailId, openAccountThroughApi, signInThroughPages, waitForEmail } from "../helpers/e2e-mail.ts";

// The first test also starts the portal and the browser (the file's fixtures): more than the
// e2e project's 30 s leaves for it on a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

const ADMIN = { email: "operator@portal.test", password: "operator-password-1" };
const CUSTOMER = { email: "Ada.Customer@portal.test", password: "customer-password-1", first: "Ada", last: "Customer" };

const path = (page: Page) => new URL(page.url()).pathname;

/** The banner an administrator sees while acting on behalf of a customer. */
const bannerOf = (page: Page) => page.getByRole("region", { name: "Acting on behalf of a customer" });

async function expectBanner(page: Page, text: string) {
  await hydrated(page);
  const banner = bannerOf(page);
  await expect.poll(() => banner.isVisible()).toBe(true);
  expect(await banner.getByRole("paragraph").first().textContent()).toContain(text);
}

test("an administrator acting on behalf of a customer and clearing it", async ({ server, db, browser }) => {
  // The customer, with an open account, through the API (the sign-in tests cover these pages).
  const customerBrowser = await newPage(browser);
  const customer = await openAccountThroughApi(customerBrowser.page.request, db, server.url, CUSTOMER);
  await customerBrowser.context.close();
  const username = CUSTOMER.email.toLowerCase();
  const who = `${CUSTOMER.first} ${CUSTOMER.last} (${username})`;

  const opened = await newPage(browser);
  const { context, page, problems } = opened;
  // A step that hangs fails with its own message, well inside the test's 30 s.
  page.setDefaultTimeout(10_000);
  const setup = await page.request.post(`${server.url}/api/setup`, { data: ADMIN });
  expect(setup.status()).toBe(200);

  await signInThroughPages(page, db, server.url, ADMIN.email, ADMIN.password);
  expect(path(page)).toBe("/console/users");
  await hydrated(page);
  expect(await bannerOf(page).count()).toBe(0);

  const rowOf = () => page.getByRole("row").filter({ hasText: username });
  const row = rowOf();
  await expect.poll(() => row.count()).toBe(1);
  await row.getByRole("button", { name: `Act on behalf of ${CUSTOMER.first} ${CUSTOMER.last}` }).click();
  await page.waitForURL(`${server.url}/account`);
  await expectBanner(page, `You are acting on behalf of ${who}`);
  // The customer's dashboard, not the console's.
  expect(await page.getByRole("heading", { level: 1, name: `Hello, ${CUSTOMER.first} ${CUSTOMER.last}` }).isVisible())
    .toBe(true);

  await page.getByRole("navigation", { name: "Account" }).getByRole("link", { name: "Balances" }).click();
  await page.waitForURL(`${server.url}/account/balances`);
  await expectBanner(page, `You are acting on behalf of ${who}`);

  await page.goto(`${server.url}/console/users`);
  await expectBanner(page, `You are acting on behalf of ${who}`);
  expect(await row.textContent()).toContain("(acting on behalf)");

  await page.reload();
  await expectBanner(page, `You are acting on behalf of ${who}`);

  // A new session keeps the mode (SPEC.md section 4: on-behalf state persists across sessions).
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(`${server.url}/`);
  await hydrated(page);
  expect(await bannerOf(page).count()).toBe(0);
  await page.getByRole("form", { name: "Sign in" }).getByLabel("Email").fill(ADMIN.email);
  await page.getByRole("form", { name: "Sign in" }).getByLabel("Password").fill(ADMIN.password);
  const mark = await lastEmailId(db);
  // The second-factor page must load once and stay put while the code is typed: every load of
  // /second-factor from the click on, until the console opens, is counted.
  let loads = 0;
  const count = (frame: import("playwright-core").Frame) => {
    if (frame === page.mainFrame() && new URL(frame.url()).pathname === "/second-factor") loads++;
  };
  page.on("framenavigated", count);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${server.url}/second-factor`);
  await hydrated(page);
  // The mode starts only after the second factor, so this page has no banner, and nothing on it
  // asks account/onbehalf (whose 403 sent the browser back to /second-factor, over and over).
  expect(await bannerOf(page).count(), "the on-behalf banner is shown before the second factor").toBe(0);
  const code = codeIn((await waitForEmail(db, ADMIN.email, { template: "second-factor-code", after: mark })).text)!;
  const challenge = page.getByRole("form", { name: "Second factor" });
  await challenge.getByLabel("Code").fill(code);
  await challenge.getByRole("button", { name: "Continue" }).click();
  await page.waitForURL(`${server.url}/console/users`);
  page.off("framenavigated", count);
  expect(loads, "/second-factor reloads itself while the administrator is in on-behalf mode").toBe(1);
  await expectBanner(page, `You are acting on behalf of ${who}`);

  // Stop, from the customer's dashboard: "Leaving…" for about 1.5 s, then the console, no banner.
  await page.goto(`${server.url}/account`);
  await expectBanner(page, `You are acting on behalf of ${who}`);
  const stop = bannerOf(page).getByRole("button", { name: "Stop acting on behalf" });
  const clickedAt = Date.now();
  await stop.click();
  await expect.poll(() => bannerOf(page).getByRole("button", { name: "Leaving…" }).isVisible()).toBe(true);
  await page.waitForURL(`${server.url}/console/users`);
  const elapsed = Date.now() - clickedAt;
  expect(elapsed).toBeGreaterThanOrEqual(ON_BEHALF_CLEAR_DELAY_MS - 100);
  expect(elapsed).toBeLessThan(ON_BEHALF_CLEAR_DELAY_MS + 5_000);
  await hydrated(page);
  expect(await bannerOf(page).count()).toBe(0);
  expect(await rowOf().textContent()).not.toContain("(acting on behalf)");
  await page.reload();
  await hydrated(page);
  expect(await bannerOf(page).count()).toBe(0);
  // The customer's screens are closed to the administrator again.
  await page.goto(`${server.url}/account`);
  expect(path(page)).toBe("/console/users");

  // Both ends are in the audit log, with who acted and for whom.
  const whoami = await page.request.get(`${server.url}/api/account/whoami`);
  const adminId = (await whoami.json()).body.id as number;
  const audit = await page.request.get(`${server.url}/api/console/audit`);
  expect(audit.status()).toBe(200);
  const entries = (await audit.json()).body as {
    action: string;
    actor: { id: number };
    subject_id: number | null;
  }[];
  const onBehalf = entries.filter((e) => e.action.startsWith("on-behalf."));
  // Newest first: the end, then the start.
  expect(onBehalf.map((e) => e.action)).toEqual(["on-behalf.end", "on-behalf.start"]);
  for (const entry of onBehalf) {
    expect(entry.actor.id).toBe(adminId);
    expect(entry.subject_id).toBe(customer.id);
  }
  // And filtered by the customer.
  const theirs = await page.request.get(`${server.url}/api/console/audit?customer=${customer.id}`);
  const theirActions = ((await theirs.json()).body as { action: string }[]).map((e) => e.action);
  expect(theirActions).toEqual(expect.arrayContaining(["on-behalf.start", "on-behalf.end"]));

  // (While /second-factor loops, each of its banner checks logs a 403 here.)
  expect(problems).toEqual([]);
  await context.close();
});
