/**
 * A customer's first hour without stumbles (issue 15, decision 039), in Chromium: a mistyped
 * second-factor code keeps the page with the tries left; the validation email's 6-digit code on
 * /verify; a reset link that no longer works offers a new one; the home page knows a signed-in
 * customer; changing the password.
 */
import type { Page } from "playwright-core";
import { describe, expect, vi } from "vitest";
import { hydrated, newPage } from "../helpers/browser.ts";
import { type E2e, test } from "../helpers/e2e-fixtures.ts";
import { lastEmailId, linkIn, openAccountThroughApi, signInThroughPages, waitForEmail } from "../helpers/e2e-mail.ts";

// The first test also starts the portal and the browser (the file's fixtures): more than the
// e2e project's 30 s leaves for it on a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

/** A password is checked with Argon2: up to a second on a busy machine, past expect.poll's default. */
const CHECKED = { timeout: 10_000 };

const path = (page: Page) => new URL(page.url()).pathname;

/** The page's problems, less the console's line for each refusal the journey expects. */
function unexpected(problems: string[], expectedStatuses: number[] = []): string[] {
  return problems.filter((p) =>
    !expectedStatuses.some((status) =>
      p.startsWith("console.error: Failed to load resource") && p.includes(`status of ${status}`)
    )
  );
}

/** A customer with an open account, made through the API in a context of its own, then closed. */
async function existingCustomer({ server, db, browser }: E2e, email: string, password: string) {
  const setup = await newPage(browser);
  await openAccountThroughApi(setup.page.request, db, server.url, { email, password });
  await setup.context.close();
}

describe("the first hour", () => {
  test("a mistyped second-factor code keeps the page with the tries left; the right code then signs in", async ({ server, db, browser }) => {
    const email = "typo.code@portal.test";
    const password = "typo-password-1";
    await existingCustomer({ server, db, browser }, email, password);

    const { page, context, problems } = await newPage(browser);
    await page.goto(`${server.url}/`);
    await hydrated(page);
    const signIn = page.getByRole("form", { name: "Sign in" });
    await signIn.getByLabel("Email").fill(email);
    await signIn.getByLabel("Password").fill(password);
    const mark = await lastEmailId(db);
    await signIn.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${server.url}/second-factor`);
    await hydrated(page);
    const mail = await waitForEmail(db, email, { template: "second-factor-code", after: mark });
    const code = /\b\d{6}\b/.exec(mail.text)![0];
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");

    const challenge = page.getByRole("form", { name: "Second factor" });
    await challenge.getByLabel("Code").fill(wrong);
    await challenge.getByRole("button", { name: "Continue" }).click();
    await expect.poll(() => challenge.getByText("That code is not right. 4 tries left.").first().isVisible()).toBe(
      true,
    );
    // Still here, still signed in with the password: no trip home, no "Bad credentials".
    expect(path(page)).toBe("/second-factor");
    expect(await page.getByText("Bad credentials").count()).toBe(0);
    expect(await page.getByRole("form", { name: "Sign in" }).count()).toBe(0);

    await challenge.getByLabel("Code").fill(code);
    await challenge.getByRole("button", { name: "Continue" }).click();
    await page.waitForURL(`${server.url}/account`);
    expect(unexpected(problems, [422])).toEqual([]);
    await context.close();
  });

  test("the 6-digit code from the validation email confirms the address on /verify", async ({ server, db, browser }) => {
    const { page, context, problems } = await newPage(browser);
    const email = "code.typer@portal.test";
    await page.goto(`${server.url}/register`);
    await hydrated(page);
    const form = page.getByRole("form", { name: "Open an account" });
    await form.getByRole("radio", { name: /^Personal/ }).check();
    await form.getByLabel("Email").fill(email);
    await form.getByLabel("Password").fill("code-typer-password-1");
    const mark = await lastEmailId(db);
    await form.getByRole("button", { name: "Open an account" }).click();
    await page.waitForURL(`${server.url}/verify`);
    await hydrated(page);
    // Where the email went, said once.
    await expect.poll(() => page.getByText(`We sent a link and a 6-digit code to ${email}`).isVisible()).toBe(true);
    expect((await page.locator("main").innerText()).split("We sent a link").length - 1).toBe(1);

    const mail = await waitForEmail(db, email, { template: "email-validation", after: mark });
    const code = /^\s*(\d{6})\s*$/m.exec(mail.text)?.[1];
    expect(code, mail.text).toBeTruthy();
    const verify = page.getByRole("form", { name: "Confirm your email address" });
    await verify.getByLabel("Code from the email (or its link)").fill(code!);
    await verify.getByRole("button", { name: "Confirm my email address" }).click();
    await page.waitForURL(`${server.url}/register-personal`);
    expect(unexpected(problems)).toEqual([]);
    await context.close();
  });

  test("a reset link that no longer works says so on /forgot and sends a new one", async ({ server, db, browser }) => {
    const email = "old.link@portal.test";
    const password = "old-link-password-1";
    await existingCustomer({ server, db, browser }, email, password);

    const { page, context, problems } = await newPage(browser);
    const first = await lastEmailId(db);
    expect((await page.request.post(`${server.url}/api/auth/forgot`, { data: { username: email } })).status()).toBe(
      200,
    );
    const oldLink = linkIn((await waitForEmail(db, email, { template: "password-reset", after: first })).text)!;
    // A newer link makes this one stop working, as its hour passing would.
    const second = await lastEmailId(db);
    expect((await page.request.post(`${server.url}/api/auth/forgot`, { data: { username: email } })).status()).toBe(
      200,
    );
    await waitForEmail(db, email, { template: "password-reset", after: second });

    await page.goto(oldLink);
    await hydrated(page);
    expect(path(page)).toBe("/forgot");
    await expect.poll(() => page.getByText("This link has expired or was already used.").isVisible()).toBe(true);
    expect(await page.getByText("Bad credentials").count()).toBe(0);
    const again = page.getByRole("form", { name: "Forgotten password" });
    expect(await again.getByLabel("Email").inputValue()).toBe(email);
    const third = await lastEmailId(db);
    await again.getByRole("button", { name: "Send me a new link" }).click();
    await expect.poll(() => page.getByRole("status").filter({ hasText: "If an account exists" }).isVisible()).toBe(
      true,
    );
    const fresh = linkIn((await waitForEmail(db, email, { template: "password-reset", after: third })).text)!;
    await page.goto(fresh);
    await hydrated(page);
    expect(await page.getByRole("form", { name: "Choose a new password" }).isVisible()).toBe(true);
    expect(unexpected(problems)).toEqual([]);
    await context.close();
  });

  test("a signed-in customer on / sees the way to their account, not the Sign in form", async ({ server, db, browser }) => {
    const { page, context, problems } = await newPage(browser);
    const email = "home.again@portal.test";
    await openAccountThroughApi(page.request, db, server.url, { email, password: "home-again-password-1" });
    await page.goto(`${server.url}/`);
    await hydrated(page);
    expect(await page.getByRole("form", { name: "Sign in" }).count()).toBe(0);
    expect(await page.getByText(`Signed in as ${email}`).isVisible()).toBe(true);
    await page.getByRole("link", { name: "Go to my account" }).click();
    await page.waitForURL(`${server.url}/account`);
    expect(unexpected(problems)).toEqual([]);
    await context.close();
  });

  test("changing the password on /account/security: the old one no longer signs in, the new one does", async ({ server, db, browser }) => {
    const { page, context, problems } = await newPage(browser);
    const email = "new.password@portal.test";
    const oldPassword = "before-password-1";
    const newPassword = "after-password-2";
    await openAccountThroughApi(page.request, db, server.url, { email, password: oldPassword });

    await page.goto(`${server.url}/account/security`);
    await hydrated(page);
    const change = page.getByRole("form", { name: "Change the password" });
    await change.getByLabel("Current password").fill("not my password");
    await change.getByLabel("New password", { exact: true }).fill(newPassword);
    await change.getByLabel("New password again").fill(newPassword);
    await change.getByRole("button", { name: "Change password" }).click();
    await expect.poll(() => change.getByText("That password is not right. 4 tries left.").first().isVisible(), CHECKED)
      .toBe(true);

    await change.getByLabel("Current password").fill(oldPassword);
    await change.getByLabel("New password", { exact: true }).fill(newPassword);
    await change.getByLabel("New password again").fill(newPassword);
    await change.getByRole("button", { name: "Change password" }).click();
    await expect.poll(() => page.getByRole("status").filter({ hasText: "Password changed" }).isVisible(), CHECKED)
      .toBe(true);
    // This session stays.
    expect(path(page)).toBe("/account/security");

    // The header's Sign out (the page also has "Sign out everywhere").
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL(`${server.url}/`);
    await hydrated(page);
    const signIn = page.getByRole("form", { name: "Sign in" });
    await signIn.getByLabel("Email").fill(email);
    await signIn.getByLabel("Password").fill(oldPassword);
    await signIn.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => signIn.getByRole("alert").textContent(), CHECKED).toBe("Invalid credentials");

    await signInThroughPages(page, db, server.url, email, newPassword);
    expect(path(page)).toBe("/account");
    expect(unexpected(problems, [401, 422])).toEqual([]);
    await context.close();
  });
});
