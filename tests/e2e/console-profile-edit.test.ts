/**
 * Support changes a verified customer's address, in Chromium (decision 078): an administrator opens
 * the customer's console page, changes the address in the Profile card with a reason, saves, and
 * sees the new address, who changed it, and the change in the customer's audit trail.
 */
import { describe, expect, vi } from "vitest";
import { hydrated, newPage } from "../helpers/browser.ts";
import { test } from "../helpers/e2e-fixtures.ts";
import { openAccountThroughApi, signInThroughPages } from "../helpers/e2e-mail.ts";
import { ensureAdministrator, unexpected } from "../helpers/e2e-money.ts";
import { waitForEmail } from "../helpers/mailbox.ts";

vi.setConfig({ testTimeout: 120_000 });

const ADMIN = { email: "support.profile@portal.test", password: "profile-admin-1" };
const CUSTOMER = { email: "ada.moved@portal.test", password: "moved-password-1", first: "Ada", last: "Moved" };
const REASON = "Customer moved; proof of address received 2026-11-27";

describe("support changes a verified customer's profile", () => {
  test("the administrator changes the address with a reason and sees it, and its trail entry", async ({ server, db, browser }) => {
    const customer = await newPage(browser);
    const opened = await openAccountThroughApi(customer.page.request, db, server.url, CUSTOMER);
    await customer.context.close();
    const admin = await newPage(browser);
    admin.page.setDefaultTimeout(20_000);
    await ensureAdministrator(admin.page.request, server.url, ADMIN);
    await signInThroughPages(admin.page, db, server.url, ADMIN.email, ADMIN.password);

    await admin.page.goto(`${server.url}/console/users/${opened.id}`);
    await hydrated(admin.page);
    const card = admin.page.locator("section[aria-labelledby=profile-heading]");
    expect(await card.textContent()).toContain("1 Test Street");
    const change = card.getByRole("button", { name: "Change the profile" });
    await change.click();
    const form = admin.page.getByRole("form", { name: `Change the profile of ${CUSTOMER.first} ${CUSTOMER.last}` });
    // The form replaced its button and has the keyboard; Escape closes it and gives the keyboard back.
    await expect.poll(() => form.evaluate((el) => el === document.activeElement)).toBe(true);
    await admin.page.keyboard.press("Escape");
    await expect.poll(() => change.evaluate((el) => el === document.activeElement)).toBe(true);
    await admin.page.keyboard.press("Enter");

    // Without a reason nothing is sent; a postcode left out is refused under its field, nothing changed.
    await form.getByLabel("Address line 1").fill("221B Baker Street");
    await form.getByLabel("Postcode").fill("");
    await form.getByRole("button", { name: "Save the changes" }).click();
    await expect.poll(() => form.locator("#profile-edit-reason-error").textContent()).toContain("Give the reason");
    await form.getByLabel("Reason (kept for the file)").fill(REASON);
    const refused = admin.page.waitForResponse((r) => new URL(r.url()).pathname.endsWith("/profile"));
    await form.getByRole("button", { name: "Save the changes" }).click();
    expect((await refused).status()).toBe(422);
    await expect.poll(() => form.locator("#profile-edit-address-postcode-error").textContent())
      .toBe("Postcode is required.");
    await form.getByLabel("Postcode").fill("NW1 6XE");
    const saved = admin.page.waitForRequest((r) =>
      new URL(r.url()).pathname === `/api/console/users/${opened.id}/profile`
    );
    await form.getByRole("button", { name: "Save the changes" }).click();
    const sent = (await saved).postDataJSON();
    expect(Object.keys(sent.changes)).toEqual(["address"]);

    // The page comes again: the new address, who changed it, and the trail's entry with the reason.
    await expect.poll(() => card.textContent()).toContain("221B Baker Street, London, NW1 6XE");
    expect(await card.textContent()).toContain(`as last changed by ${ADMIN.email}`);
    const trail = admin.page.locator("section[aria-labelledby=audit-heading]");
    expect(await trail.textContent()).toContain("Changed the customer's profile");
    expect(await trail.textContent()).toContain("221B Baker Street");
    expect(await trail.textContent()).toContain(REASON);

    // The customer is told which detail changed.
    const mail = await waitForEmail(db, CUSTOMER.email, { template: "profile-changed" });
    expect(mail.subject).toBe("Your details were changed");

    expect(unexpected(admin.problems, [422])).toEqual([]);
    await admin.context.close();
  });
});
