/**
 * The console's administrators in Chromium (issue 11 item 2, decision 044): an administrator
 * invites another from /console/admins, the invitee chooses a password from the emailed link and
 * signs in with the second factor, the first administrator sees them listed as active with their
 * last sign-in. With two active, the next invitation waits: its inviter can only withdraw it, the
 * other approves it and its link is emailed then. Finally the first disables the invitee after a
 * confirmation: the invitee's next page is not the console.
 */
import type { Page } from "playwright-core";
import { describe, expect } from "vitest";
import { hydrated, newPage } from "../helpers/browser.ts";
import { test } from "../helpers/e2e-fixtures.ts";
import { lastEmailId, linkIn, signInThroughPages, waitForEmail } from "../helpers/e2e-mail.ts";
import { ensureAdministrator, unexpected } from "../helpers/e2e-money.ts";

const ADMIN = { email: "operations@portal.test", password: "operations-password-1" };
const INVITEE = { name: "Katherine Johnson", email: "katherine@portal.test", password: "invitee-password-1" };
/** Asked for once two administrators are active: it waits for the one who did not ask. */
const THIRD = { name: "Dorothy Vaughan", email: "dorothy@portal.test" };

/** The row of the administrators table that names this email. */
const rowOf = (page: Page, email: string) =>
  page.getByRole("table", { name: "Administrators" }).locator("tbody tr").filter({ hasText: email });

describe("administrators", () => {
  test(
    "an administrator invites another, who sets a password from the link and signs in; then is disabled",
    async ({ server, db, browser }) => {
      const first = await newPage(browser);
      await ensureAdministrator(first.page.request, server.url, ADMIN);
      await signInThroughPages(first.page, db, server.url, ADMIN.email, ADMIN.password);

      await first.page.goto(`${server.url}/console/admins`);
      await hydrated(first.page);
      const main = first.page.locator("main");
      expect(await main.getByRole("heading", { name: "Administrators" }).count()).toBe(1);
      expect(await main.textContent()).not.toContain("Coming soon");

      // The invitation.
      const mark = await lastEmailId(db);
      const form = first.page.getByRole("form", { name: "Invite an administrator" });
      await form.getByLabel("Name").fill(INVITEE.name);
      await form.getByLabel("Email").fill(INVITEE.email);
      await form.getByRole("button", { name: "Send the invitation" }).click();
      await expect.poll(() => rowOf(first.page, INVITEE.email).count()).toBe(1);
      expect(await rowOf(first.page, INVITEE.email).textContent()).toContain("Invited");
      expect(await rowOf(first.page, INVITEE.email).textContent()).toContain(INVITEE.name);

      // The invitee opens the emailed link in their own browser and chooses a password.
      const mail = await waitForEmail(db, INVITEE.email, { template: "administrator-invitation", after: mark });
      const link = linkIn(mail.text);
      if (!link) throw new Error(`No link in the invitation:\n${mail.text}`);
      const invitee = await newPage(browser);
      await invitee.page.goto(link);
      await hydrated(invitee.page);
      expect(await invitee.page.getByRole("heading", { level: 1 }).textContent()).toBe("Choose your password");
      const reset = invitee.page.getByRole("form", { name: "Choose a new password" });
      await reset.getByLabel("New password", { exact: true }).fill(INVITEE.password);
      await reset.getByLabel("New password again").fill(INVITEE.password);
      await reset.getByRole("button", { name: "Change my password" }).click();
      await invitee.page.waitForURL(`${server.url}/`);

      // They sign in with the password and the emailed second-factor code, and reach the console.
      await signInThroughPages(invitee.page, db, server.url, INVITEE.email, INVITEE.password);
      expect(new URL(invitee.page.url()).pathname).toMatch(/^\/console\//);

      // The first administrator sees them active, with a last sign-in.
      await first.page.reload();
      await hydrated(first.page);
      const row = rowOf(first.page, INVITEE.email);
      await expect.poll(() => row.count()).toBe(1);
      const shown = await row.textContent();
      expect(shown).toContain("Active");
      expect(shown).toContain("Emailed code");
      expect(shown).not.toContain("Never");

      // Two administrators are active now: a new invitation waits for the one who did not ask.
      const asked = await lastEmailId(db);
      await form.getByLabel("Name").fill(THIRD.name);
      await form.getByLabel("Email").fill(THIRD.email);
      await form.getByRole("button", { name: "Send the invitation" }).click();
      const third = rowOf(first.page, THIRD.email);
      await expect.poll(() => third.textContent()).toContain("Waiting for approval");
      expect(await third.getByRole("button", { name: `Approve ${THIRD.name}` }).count()).toBe(0);
      expect(await third.getByRole("button", { name: `Withdraw the invitation of ${THIRD.name}` }).count()).toBe(1);

      await invitee.page.goto(`${server.url}/console/admins`);
      await hydrated(invitee.page);
      const theirs = rowOf(invitee.page, THIRD.email);
      expect(await theirs.textContent()).toContain(`asked by ${ADMIN.email}`);
      await theirs.getByRole("button", { name: `Approve ${THIRD.name}` }).click();
      await expect.poll(() => theirs.textContent()).toContain("Invited");
      await waitForEmail(db, THIRD.email, { template: "administrator-invitation", after: asked });

      // Disabling asks first, then signs them out.
      await row.getByRole("button", { name: `Disable ${INVITEE.name}` }).click();
      await row.getByRole("button", { name: "Yes, disable" }).click();
      await expect.poll(() => row.textContent()).toContain("Disabled");
      expect(await row.getByRole("button").count()).toBe(0);

      // The invitee's next page is not the console: their session ended.
      const next = await invitee.page.goto(`${server.url}/console/admins`);
      expect(next?.status()).toBe(404);

      expect(unexpected(first.problems)).toEqual([]);
    },
    120_000,
  );
});
