/**
 * A bulk email in Chromium (issue 11 item 5, decision 050): an administrator writes one on
 * /console/bulkemails for a small segment (the customers who signed up on one day), previews it
 * with a customer's data, sends it, and watches its progress until it is sent; each customer got
 * one mail through a real SMTP server. And the recipients a crash left in doubt: the administrator
 * is told what sending to them means, confirms, and they are mailed. And a draft with a typo:
 * corrected in the same form, prefilled, then deleted. Each customer's mail is then on the emails
 * screen, as it was sent, linked to its bulk email (decision 061).
 */
import { eq } from "drizzle-orm";
import { describe, expect, vi } from "vitest";
import { bulkEmailRecipients, bulkEmails } from "../../db/schema-bulkemails.ts";
import { users } from "../../db/schema.ts";
import { insertCustomers } from "../helpers/bulk-customers.ts";
import { hydrated, newPage } from "../helpers/browser.ts";
import { test as e2e } from "../helpers/e2e-fixtures.ts";
import { signInThroughPages } from "../helpers/e2e-mail.ts";
import { ensureAdministrator } from "../helpers/e2e-money.ts";
import { startSmtp } from "../helpers/smtp.ts";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const ADMIN = { email: "bulk-desk@portal.test", password: "desk-password-123" };
const DAY = "2019-09-09";

const test = e2e
  // The SMTP server the portal sends to, closed after the portal (fixtures end in reverse order).
  // deno-lint-ignore no-empty-pattern
  .extend("smtp", { scope: "file" }, async ({}, { onCleanup }) => {
    const smtp = await startSmtp();
    onCleanup(() => smtp.close());
    return smtp;
  })
  // The portal as it runs (main.ts): its job runner sends, slowly enough to watch (4 a second).
  .override("serverSettings", { scope: "file" }, ({ smtp }) => ({
    script: "main.ts",
    env: { APP_ENV: "test", APP_SECRET: crypto.randomUUID(), SMTP_URL: smtp.url, BULK_EMAIL_RATE: "4" },
  }));

describe("a bulk email", () => {
  test("is written, previewed with a customer's data, sent to a segment, and followed until sent", async ({ server, db, browser, smtp }) => {
    const people = await insertCustomers(db, 12, {
      prefix: `e2e-${crypto.randomUUID().slice(0, 6)}`,
      createdAt: new Date(`${DAY}T10:00:00Z`),
    });

    const { page, problems } = await newPage(browser);
    await ensureAdministrator(page.request, server.url, ADMIN);
    await signInThroughPages(page, db, server.url, ADMIN.email, ADMIN.password);
    await page.goto(`${server.url}/console/bulkemails`);
    await hydrated(page);
    const form = page.getByRole("form", { name: "New bulk email" });
    await form.getByLabel("Subject").fill("Better rates, {{first_name}}");
    await form.getByLabel("Body").fill("Hello {{name}},\n\nOur euro rates are better this week.");
    await form.getByLabel("Signed up from").fill(DAY);
    await form.getByLabel("Signed up to").fill(DAY);
    await form.getByRole("button", { name: "Save and preview" }).click();
    await page.waitForURL(/\/console\/bulkemails\/\d+$/);
    await hydrated(page);

    // The preview: the first customer of the segment's data in the subject and the body.
    const preview = page.getByRole("region", { name: "Preview of the email" });
    await preview.waitFor();
    expect(await preview.locator("[data-preview-subject]").textContent()).toBe("Better rates, Ada1");
    const frame = page.frameLocator('iframe[title="The email as the customer sees it"]');
    await frame.locator("p", { hasText: "Hello Ada1 Lovelace," }).waitFor();
    // Another customer's data on asking.
    await page.getByLabel("Preview with the data of customer #").fill(String(people[4].id));
    await page.getByRole("button", { name: "Preview", exact: true }).click();
    await frame.locator("p", { hasText: "Hello Ada5 Lovelace," }).waitFor();

    await page.getByRole("button", { name: "Send to 12 customers" }).click();
    // Asked once more, with how many it goes to.
    const confirm = page.getByRole("form", { name: "Confirm the send" });
    expect(await confirm.textContent()).toContain("It goes to 12 customers now");
    await confirm.getByRole("button", { name: "Yes, send it now" }).click();
    // Its progress while it is sent, then done.
    await page.getByRole("progressbar", { name: "Sending progress" }).waitFor({ timeout: 30_000 });
    await page.getByText("12 sent, 0 failed, 0 in doubt, 0 skipped as unsubscribed, of 12.").waitFor({
      timeout: 60_000,
    });
    expect(await page.locator('tr[data-state="sent"]').count()).toBe(12);
    const perRecipient = smtp.perRecipient();
    expect(people.map((p) => perRecipient.get(p.email))).toEqual(people.map(() => 1));
    const bulkEmailPage = page.url();

    // "Did Ada5 get it, and what did it say?": the emails screen finds her mail (decision 061).
    await page.goto(`${server.url}/console/emails`);
    await page.getByLabel("Recipient or subject").fill(people[4].email);
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByText(`1 email for “${people[4].email}”`).waitFor();
    const row = page.locator("tr[data-email]");
    expect(await row.locator("td").nth(3).textContent()).toBe("Sent");
    await row.getByRole("link", { name: "Better rates, Ada5" }).click();
    await page.waitForURL(/\/console\/emails\/\d+$/);
    await page.frameLocator('iframe[title="The email “Better rates, Ada5”"]')
      .locator("p", { hasText: "Hello Ada5 Lovelace," }).waitFor();
    // Not sent again from here: its page says where its sends are decided, and links there.
    expect(await page.getByRole("button", { name: /Send again/ }).count()).toBe(0);
    expect(await page.locator("[data-bulk-mail]").textContent()).toContain("it is not sent again from here");
    await page.locator("[data-bulk-email]").click();
    await page.waitForURL(bulkEmailPage);
    expect(problems).toEqual([]);
  });

  test("with recipients in doubt after a crash is sent to them when the administrator confirms", async ({ server, db, browser, smtp }) => {
    const people = await insertCustomers(db, 3, { prefix: `doubt-${crypto.randomUUID().slice(0, 6)}` });
    const { page, problems } = await newPage(browser);
    await ensureAdministrator(page.request, server.url, ADMIN);
    const [admin] = await db.select({ id: users.id }).from(users).where(eq(users.username, ADMIN.email));
    // As a crash leaves it (decision 050): one recipient sent, two whose mail's answer never came.
    const now = new Date();
    const [email] = await db.insert(bulkEmails).values({
      subject: "Rates news",
      body: "Hello {{name}}",
      segment: {},
      createdBy: admin.id,
      createdAt: now,
      sentBy: admin.id,
      sentAt: now,
      ratePerSecond: 4,
      finishedAt: now,
    }).returning({ id: bulkEmails.id });
    await db.insert(bulkEmailRecipients).values(people.map((p, i) => ({
      bulkEmailId: email.id,
      userId: p.id,
      email: p.email,
      state: i === 0 ? "sent" as const : "in doubt" as const,
      updatedAt: now,
    })));

    await signInThroughPages(page, db, server.url, ADMIN.email, ADMIN.password);
    await page.goto(`${server.url}/console/bulkemails/${email.id}`);
    await hydrated(page);
    const doubt = page.getByRole("region", { name: "Recipients in doubt" });
    expect(await doubt.textContent()).toContain("2 recipients in doubt");
    expect(await page.locator('tr[data-state="in doubt"]').count()).toBe(2);
    await doubt.getByRole("button", { name: "Send to the 2 in-doubt recipients" }).click();
    const confirm = page.getByRole("form", { name: "Confirm sending to the recipients in doubt" });
    expect(await confirm.textContent()).toContain("may already have this email: they will then receive it twice");
    await confirm.getByRole("button", { name: "Yes, send it to them" }).click();
    await page.getByText("3 sent, 0 failed, 0 in doubt, 0 skipped as unsubscribed, of 3.").waitFor({
      timeout: 60_000,
    });
    expect(await doubt.count()).toBe(0);
    const perRecipient = smtp.perRecipient();
    expect(people.map((p) => perRecipient.get(p.email))).toEqual([undefined, 1, 1]);
    expect(problems).toEqual([]);
  });

  test("draft with a typo is corrected in its form, then deleted and gone from the list", async ({ server, db, browser }) => {
    const day = "2019-10-10";
    await insertCustomers(db, 1, {
      prefix: `draft-${crypto.randomUUID().slice(0, 6)}`,
      createdAt: new Date(`${day}T10:00:00Z`),
    });
    const { page, problems } = await newPage(browser);
    await ensureAdministrator(page.request, server.url, ADMIN);
    await signInThroughPages(page, db, server.url, ADMIN.email, ADMIN.password);
    await page.goto(`${server.url}/console/bulkemails`);
    await hydrated(page);
    const form = page.getByRole("form", { name: "New bulk email" });
    await form.getByLabel("Subject").fill("Beter rates");
    await form.getByLabel("Body").fill("Hello {{name}}");
    await form.getByLabel("Signed up from").fill(day);
    await form.getByLabel("Signed up to").fill(day);
    await form.getByRole("button", { name: "Save and preview" }).click();
    await page.waitForURL(/\/console\/bulkemails\/\d+$/);
    await hydrated(page);
    const subject = page.locator("[data-preview-subject]");
    await page.getByText("Beter rates", { exact: true }).and(subject).waitFor();

    await page.getByRole("button", { name: "Edit" }).click();
    const edit = page.getByRole("form", { name: "Edit the draft" });
    // Prefilled with the draft as saved.
    expect(await edit.getByLabel("Subject").inputValue()).toBe("Beter rates");
    expect(await edit.getByLabel("Signed up from").inputValue()).toBe(day);
    await edit.getByLabel("Subject").fill("Better rates");
    await edit.getByRole("button", { name: "Save and preview" }).click();
    // The preview is asked again: the corrected subject, in the heading too.
    await page.getByText("Better rates", { exact: true }).and(subject).waitFor();
    expect(await page.locator("main h1").textContent()).toBe("Better rates");
    expect(await edit.count()).toBe(0);

    const draftPath = new URL(page.url()).pathname;
    await page.getByRole("button", { name: "Delete draft" }).click();
    const confirm = page.getByRole("form", { name: "Confirm the deletion" });
    await confirm.getByRole("button", { name: "Yes, delete it" }).click();
    await page.waitForURL(/\/console\/bulkemails$/);
    await hydrated(page);
    await page.locator("main").getByRole("heading", { name: "Latest bulk emails" }).waitFor();
    expect(await page.locator(`main a[href="${draftPath}"]`).count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
