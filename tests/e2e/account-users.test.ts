/**
 * Account users and linked accounts in Chromium (decision 028): an owner invites a payer from
 * /account/users, the payer registers through the emailed link and lands on the business account;
 * a person with a personal and a business account chooses on /account-select and switches between
 * them from the header and from /account/linked-accounts.
 * ACCOUNTS_E2E_SCREENSHOTS=1 keeps a screenshot of each screen in /tmp/accounts-e2e-*.png.
 */
import type { Page } from "playwright-core";
import { describe, expect } from "vitest";
import { hydrated, newPage } from "../helpers/browser.ts";
import { openBusinessThroughApi } from "../helpers/e2e-business.ts";
import { type E2e, test } from "../helpers/e2e-fixtures.ts";
import {
  lastEmailId,
  okBody,
  openAccountThroughApi,
  personalProfile,
  signInThroughPages,
  waitForEmail,
} from "../helpers/e2e-mail.ts";
import { ensureAdministrator, todayUtc, unexpected } from "../helpers/e2e-money.ts";

const ADMIN = { email: "compliance@portal.test", password: "compliance-password-1" };
const OWNER = { email: "grace@acme.test", password: "owner-password-1" };

/** The business account every test works with: opened in beforeAll, its owner's page signed in. */
let owner: { page: Page; accountRef: string };

test.beforeAll(async ({ server, db, browser }) => {
  const { page } = await newPage(browser);
  owner = { page, accountRef: await openBusinessThroughApi({ server, db, browser }, page.request, OWNER, ADMIN) };
}, 120_000);

const path = (page: Page) => new URL(page.url()).pathname;

/** With ACCOUNTS_E2E_SCREENSHOTS set, a screenshot of the screen, to look at. */
async function step(page: Page, name: string): Promise<void> {
  if (Deno.env.get("ACCOUNTS_E2E_SCREENSHOTS")) {
    await page.screenshot({ path: `/tmp/accounts-e2e-${name}.png`, fullPage: true });
  }
}

/** The link of the newest invitation emailed to an address after `mark`. */
async function invitationLink({ db }: Pick<E2e, "db">, email: string, mark: number): Promise<string> {
  const mail = await waitForEmail(db, email, { template: "account-invitation", after: mark });
  const link = /https?:\/\/\S+/.exec(mail.text)?.[0];
  if (!link) throw new Error(`No link in the invitation:\n${mail.text}`);
  return link;
}

/** The account the header says the page acts on. */
const headerAccount = (page: Page) =>
  page.getByRole("banner").locator("[data-current-account]").getAttribute("data-current-account");

describe("account users", () => {
  test(
    "an owner invites a payer, who registers through the emailed link and lands on the business account",
    async ({ server, db, browser }) => {
      const { page } = owner;
      page.setDefaultTimeout(10_000);
      const payerEmail = "priya.payer@acme.test";

      await page.goto(`${server.url}/account/users`);
      await hydrated(page);
      expect(await headerAccount(page)).toBe(owner.accountRef);
      const mark = await lastEmailId(db);
      const form = page.getByRole("form", { name: "Invite someone" });
      await form.getByLabel("Email").fill(payerEmail);
      await form.getByLabel("Role").selectOption("payer");
      await form.getByRole("button", { name: "Send the invitation" }).click();
      const waiting = page.getByRole("row").filter({ hasText: payerEmail });
      await expect.poll(() => waiting.count()).toBe(1);
      await step(page, "users");
      expect(await waiting.textContent()).toContain("payer");

      // The payer opens the emailed link in a browser of their own.
      const link = await invitationLink({ db }, payerEmail, mark);
      expect(link.startsWith(`${server.url}/invite?token=`)).toBe(true);
      const payer = await newPage(browser);
      const p = payer.page;
      p.setDefaultTimeout(10_000);
      await p.goto(link);
      await hydrated(p);
      expect(await p.getByRole("heading", { level: 1 }).textContent()).toBe("Join Acme Trading Ltd");
      await step(p, "invite");
      const register = p.getByRole("form", { name: "Create your login" });
      expect(await register.getByLabel("Email").inputValue()).toBe(payerEmail);
      await register.getByLabel("Password", { exact: true }).fill("payer-password-1");
      await register.getByLabel("Password again").fill("payer-password-1");
      const codeMark = await lastEmailId(db);
      await register.getByRole("button", { name: "Create my login" }).click();
      await p.waitForURL(`${server.url}/second-factor`);
      await hydrated(p);
      const codeMail = await waitForEmail(db, payerEmail, { template: "second-factor-code", after: codeMark });
      const code = /\b\d{6}\b/.exec(codeMail.text)![0];
      const challenge = p.getByRole("form", { name: "Second factor" });
      await challenge.getByLabel("Code").fill(code);
      await challenge.getByRole("button", { name: "Continue" }).click();
      // Like everyone, a profile and an identity check come before the account.
      await p.waitForURL(`${server.url}/register-personal`);
      await okBody(
        "profile",
        await p.request.post(`${server.url}/api/account/profile`, { data: personalProfile("Priya", "Payer") }),
      );
      await okBody("sandbox", await p.request.post(`${server.url}/api/sumsub/sandbox`, { data: { answer: "GREEN" } }));
      await okBody("confirm", await p.request.get(`${server.url}/api/sumsub/confirm`));
      await p.goto(`${server.url}/auth`);
      await p.waitForURL(`${server.url}/account`);
      await hydrated(p);
      expect(await headerAccount(p)).toBe(owner.accountRef);
      expect(await p.getByRole("banner").textContent()).toContain("Acme Trading Ltd");
      // A payer is offered what a payer does, and no account of their own was opened.
      expect(await p.getByRole("navigation", { name: "Account" }).getByRole("link", { name: "Convert" }).count()).toBe(
        1,
      );
      expect(await p.getByRole("banner").getByRole("link", { name: "Switch account" }).count()).toBe(0);
      expect(unexpected(payer.problems)).toEqual([]);

      // The owner sees the payer among the users, and the invitation is no longer waiting.
      await page.reload();
      await hydrated(page);
      const member = page.getByRole("row").filter({ hasText: payerEmail });
      await expect.poll(() => member.count()).toBe(1);
      expect(await member.getByRole("cell").nth(1).textContent()).toBe("payer");
      await payer.context.close();
    },
    120_000,
  );

  test("the owner changes the payer's role from the list", async ({ server, db }) => {
    const { page } = owner;
    await page.goto(`${server.url}/account/users`);
    await hydrated(page);
    await page.getByRole("button", { name: "Change the role of Priya Payer" }).click();
    const form = page.getByRole("form", { name: "Change the role of Priya Payer" });
    await form.getByLabel("Role").selectOption("approver");
    await step(page, "role");
    await form.getByRole("button", { name: "Save role" }).click();
    const row = page.getByRole("row").filter({ hasText: "priya.payer@acme.test" });
    await expect.poll(async () => await row.getByRole("cell").nth(1).textContent()).toBe("approver");
    const mail = await waitForEmail(db, "priya.payer@acme.test", { template: "account-access-changed" });
    expect(mail.subject).toBe("Your role on Acme Trading Ltd is now approver");
  });

  test(
    "on a 390 px phone every action of the users, invitations and payments waiting is on screen, no table scrolls",
    async ({ server, db, browser }) => {
      const { page } = owner;
      const wide = page.viewportSize();
      await page.setViewportSize({ width: 390, height: 844 });
      try {
        const base = server.url;
        await okBody(
          "account/users",
          await page.request.post(`${base}/api/account/users`, {
            data: { email: "victor.viewer@acme.test", role: "viewer" },
          }),
        );
        /** Whether the element is wholly on the screen's width, and no table's box scrolls sideways. */
        const onScreen = async (name: string) => {
          const target = page.getByRole("main").getByRole(/^Review/.test(name) ? "link" : "button", { name });
          expect(await target.isVisible(), name).toBe(true);
          const box = (await target.boundingBox())!;
          expect(box.x, name).toBeGreaterThanOrEqual(0);
          expect(box.x + box.width, name).toBeLessThanOrEqual(390);
        };
        const tablesFit = () =>
          page.evaluate(() =>
            [...document.querySelectorAll("main table")].every((t) => {
              const box = t.parentElement!;
              return box.scrollWidth <= box.clientWidth;
            })
          );

        await page.goto(`${base}/account/users`);
        await hydrated(page);
        await onScreen("Change the role of Priya Payer");
        await onScreen("Remove Priya Payer");
        await onScreen("Withdraw the invitation to victor.viewer@acme.test");
        expect(await tablesFit()).toBe(true);
        // What the hidden columns said is under the name.
        const member = page.getByRole("row").filter({ hasText: "priya.payer@acme.test" });
        expect(await member.getByRole("rowheader").textContent()).toContain("approver · joined");
        await page.getByRole("button", { name: "Change the role of Priya Payer" }).click();
        const role = page.getByRole("form", { name: "Change the role of Priya Payer" }).getByLabel("Role");
        const chooser = (await role.boundingBox())!;
        expect(chooser.x).toBeGreaterThanOrEqual(0);
        expect(chooser.x + chooser.width).toBeLessThanOrEqual(390);
        await step(page, "users-390");

        // A payment waiting for approval, as the owner sees it on the payments waiting.
        const desk = await newPage(browser);
        await ensureAdministrator(desk.page.request, base, ADMIN);
        await signInThroughPages(desk.page, db, base, ADMIN.email, ADMIN.password);
        await okBody(
          "console/receipts",
          await desk.page.request.post(`${base}/api/console/receipts`, {
            data: {
              amount: "1000.00",
              currency: "GBP",
              payer_name: "Acme Trading Ltd",
              reference: owner.accountRef,
              received_at: todayUtc(),
            },
          }),
        );
        await desk.context.close();
        const recipient = await okBody<{ id: number }>(
          "account/recipients",
          await page.request.post(`${base}/api/account/recipients`, {
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
          await page.request.put(`${base}/api/account/approvals`, {
            data: { mode: "all", thresholds: {}, new_recipient: false },
          }),
        );
        const quote = await okBody<{ id: string }>(
          "account/payments/quote",
          await page.request.post(`${base}/api/account/payments/quote`, {
            data: {
              recipient_id: recipient.id,
              amount: "100.00",
              fixed: "send",
              priority: false,
              sell_currency: "GBP",
            },
          }),
        );
        await okBody(
          "account/payments",
          await page.request.post(`${base}/api/account/payments`, { data: { quote_id: quote.id, reference: "Inv 9" } }),
        );
        await page.goto(`${base}/account/pendingpayments`);
        await hydrated(page);
        await onScreen("Review the payment to Jean Dupont");
        const debited = page.getByRole("main").locator("[data-phone-debited]");
        expect(await debited.isVisible()).toBe(true);
        expect(await debited.textContent()).toContain("100.00 GBP");
        expect(await tablesFit()).toBe(true);
        await step(page, "pending-390");
      } finally {
        if (wide) await page.setViewportSize(wide);
      }
    },
    120_000,
  );
});

describe("linked accounts", () => {
  test(
    "a person with a personal and a business account chooses one and switches between them",
    async ({ server, db, browser }) => {
      const person = { email: "ada@home.test", password: "person-password-1", first: "Ada", last: "Lovelace" };
      const signup = await newPage(browser);
      const personal = await openAccountThroughApi(signup.page.request, db, server.url, person);
      await signup.context.close();
      const mark = await lastEmailId(db);
      await okBody(
        "invite",
        await owner.page.request.post(`${server.url}/api/account/users`, {
          data: { email: person.email, role: "viewer" },
        }),
      );
      const link = await invitationLink({ db }, person.email, mark);

      const { page, context, problems } = await newPage(browser);
      page.setDefaultTimeout(10_000);
      // Opened signed out: sign in, and /auth brings them back to the invitation to accept it.
      await page.goto(link);
      await hydrated(page);
      expect(await page.getByRole("link", { name: "Sign in" }).count()).toBe(1);
      await signInThroughPages(page, db, server.url, person.email, person.password);
      await page.waitForURL((url) => url.pathname === "/invite");
      await hydrated(page);
      await step(page, "accept");
      await page.getByRole("button", { name: "Accept and join Acme Trading Ltd" }).click();
      await page.waitForURL(`${server.url}/account`);
      await hydrated(page);
      expect(await headerAccount(page)).toBe(owner.accountRef);

      // A new sign-in chooses again.
      await context.clearCookies();
      await signInThroughPages(page, db, server.url, person.email, person.password);
      await page.waitForURL(`${server.url}/account-select`);
      await hydrated(page);
      await page.getByRole("button", { name: `Work on this account: Ada Lovelace (${personal.accountRef})` }).click();
      await page.waitForURL(`${server.url}/account`);
      await hydrated(page);
      expect(await headerAccount(page)).toBe(personal.accountRef);
      expect(await page.getByRole("navigation", { name: "Account" }).getByRole("link", { name: "Convert" }).count())
        .toBe(
          1,
        );

      // From the header to the business account, where a viewer is offered no conversion.
      await page.getByRole("banner").getByRole("link", { name: "Switch account" }).click();
      await page.waitForURL(`${server.url}/account-select`);
      await hydrated(page);
      expect(await page.getByText("Current account").count()).toBe(1);
      await step(page, "select");
      await page.getByRole("button", { name: `Work on this account: Acme Trading Ltd (${owner.accountRef})` }).click();
      await page.waitForURL(`${server.url}/account`);
      await hydrated(page);
      expect(await headerAccount(page)).toBe(owner.accountRef);
      expect(await page.getByRole("navigation", { name: "Account" }).getByRole("link", { name: "Convert" }).count())
        .toBe(
          0,
        );
      await page.goto(`${server.url}/account/convert`);
      expect(await page.getByText("you cannot convert").count()).toBe(1);
      await step(page, "convert-viewer");

      // And back from /account/linked-accounts.
      await page.goto(`${server.url}/account/linked-accounts`);
      await hydrated(page);
      await step(page, "linked");
      const current = page.getByRole("listitem").filter({ hasText: "Current account" });
      expect(await current.textContent()).toContain(owner.accountRef);
      await page.getByRole("button", { name: `Switch to this account: Ada Lovelace (${personal.accountRef})` }).click();
      await page.waitForURL(`${server.url}/account`);
      await hydrated(page);
      expect(await headerAccount(page)).toBe(personal.accountRef);
      expect(path(page)).toBe("/account");

      // Removed from the business account while one of its pages is open: the session falls back to
      // the personal account, and the page says they lost the business one, not that they switched.
      await page.goto(`${server.url}/account-select`);
      await hydrated(page);
      await page.getByRole("button", { name: `Work on this account: Acme Trading Ltd (${owner.accountRef})` }).click();
      await page.waitForURL(`${server.url}/account`);
      await page.goto(`${server.url}/account/transactions?currency=GBP`);
      await hydrated(page);
      expect(await headerAccount(page)).toBe(owner.accountRef);
      const users = await okBody<{ id: number; email: string }[]>(
        "account/users",
        await owner.page.request.get(`${server.url}/api/account/users`),
      );
      const member = users.find((u) => u.email === person.email)!;
      await okBody("remove", await owner.page.request.delete(`${server.url}/api/account/users/${member.id}`));
      await page.getByRole("link", { name: "Download CSV" }).click();
      const toasts = page.getByRole("region", { name: "Notifications" });
      const told = toasts.getByText(`You are no longer a user of Acme Trading Ltd (${owner.accountRef})`, {
        exact: false,
      });
      await expect.poll(() => told.isVisible()).toBe(true);
      expect(await toasts.getByText("in another window", { exact: false }).count()).toBe(0);
      expect(await headerAccount(page)).toBe(personal.accountRef);
      expect(unexpected(problems)).toEqual([]);
      await context.close();
    },
    120_000,
  );
});
