/**
 * The sign-in and onboarding journeys, in Chromium, clicked and typed as a person would: setting up
 * the portal, a Personal customer from /register to /account, a Business customer who waits at
 * /processing for an administrator's compliance review, and a forgotten password.
 */
import type { Page } from "playwright-core";
import { describe, expect, vi } from "vitest";
import { hydrated, newPage, seriousAxeViolations } from "../helpers/browser.ts";
import { type E2e, test } from "../helpers/e2e-fixtures.ts";
import { lastEmailId, linkIn, openAccountThroughApi, signInThroughPages, waitForEmail } from "../helpers/e2e-mail.ts";
import { totpAt, totpKeyFromText, totpStepAt } from "../../server/auth/totp.ts";

// The first test also starts the portal and the browser (the file's fixtures): more than the
// e2e project's 30 s leaves for it on a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

const ADMIN = { email: "admin@portal.test", password: "admin-password-1" };
/**
 * A wrong password is answered after one Argon2 check: half a second to a second on a busy
 * two-core machine before the browser renders anything, past expect.poll's default second.
 */
const PASSWORD_CHECKED = { timeout: 10_000 };

/**
 * The page's problems without the console's "Failed to load resource" lines for the HTTP statuses
 * the journey expects (a 401 for a wrong password, a 422 for a refused form, a 403 page).
 */
function unexpected(problems: string[], expectedStatuses: number[] = []): string[] {
  return problems.filter((p) =>
    !expectedStatuses.some((status) =>
      p.startsWith("console.error: Failed to load resource") && p.includes(`status of ${status}`)
    )
  );
}

const path = (page: Page) => new URL(page.url()).pathname;

/** Today's date as the server reads it (UTC), YYYY-MM-DD. */
const today = () => new Date().toISOString().slice(0, 10);

/** Ensures the administrator exists (the setup call, refused with 403 once one does). */
async function ensureAdministrator({ server }: Pick<E2e, "server">, page: Page) {
  const res = await page.request.post(`${server.url}/api/setup`, { data: ADMIN });
  expect([200, 403]).toContain(res.status());
}

/** /register: the account type, email and password, then the button; lands on /verify. */
async function register(
  { server, db }: Pick<E2e, "server" | "db">,
  page: Page,
  type: "Personal" | "Business",
  email: string,
  password: string,
) {
  await page.goto(`${server.url}/register`);
  await hydrated(page);
  const form = page.getByRole("form", { name: "Open an account" });
  await form.getByRole("radio", { name: new RegExp(`^${type}`) }).check();
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Password").fill(password);
  const mark = await lastEmailId(db);
  await form.getByRole("button", { name: "Open an account" }).click();
  await page.waitForURL(`${server.url}/verify`);
  await hydrated(page);
  await expect.poll(() => page.getByText(`We sent a link and a 6-digit code to ${email}`).first().isVisible()).toBe(
    true,
  );
  return mark;
}

/** Opens the emailed validation link in the same browser; lands on the profile form of the type. */
async function openValidationLink(
  { server, db }: Pick<E2e, "server" | "db">,
  page: Page,
  email: string,
  after: number,
  next: string,
) {
  const mail = await waitForEmail(db, email, { template: "email-validation", after });
  const link = linkIn(mail.text);
  expect(link, mail.text).toMatch(new RegExp(`^${server.url}/verify\\?token=`));
  await page.goto(link!);
  await page.waitForURL(`${server.url}${next}`);
  await hydrated(page);
}

/** /identity with the sandbox: it says it is one, and its Approve button leads on. */
async function approveInSandbox({ server }: Pick<E2e, "server">, page: Page) {
  await page.waitForURL(`${server.url}/identity`);
  await hydrated(page);
  const sandbox = page.getByRole("region", { name: /Sandbox identity provider/ });
  await expect.poll(() => sandbox.isVisible()).toBe(true);
  expect(await sandbox.textContent()).toContain("for development and testing only; no real check is made");
  // The page itself says it is a test check (decision 023).
  expect(await page.getByRole("note").filter({ hasText: "Test identity check." }).isVisible()).toBe(true);
  expect(await seriousAxeViolations(page)).toEqual([]);
  await sandbox.getByRole("button", { name: "Approve (GREEN)" }).click();
}

async function signOut({ server }: Pick<E2e, "server">, page: Page) {
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(`${server.url}/`);
  await hydrated(page);
}

describe("sign-in journeys", () => {
  test("/setup on an empty database", async ({ server, browser }) => {
    const { page, context, problems } = await newPage(browser);
    const first = await page.goto(`${server.url}/setup`);
    expect(first?.status()).toBe(200);
    await hydrated(page);
    const form = page.getByRole("form", { name: "Create the administrator" });
    expect(await form.isVisible()).toBe(true);
    expect(await form.textContent()).toContain("No administrator exists yet.");

    await form.getByLabel("Administrator's email").fill(ADMIN.email);
    await form.getByLabel("Password", { exact: true }).fill(ADMIN.password);
    await form.getByLabel("Password again").fill(ADMIN.password);
    await form.getByRole("button", { name: "Create the administrator" }).click();
    await page.waitForURL(`${server.url}/`);
    await hydrated(page);

    const again = await page.goto(`${server.url}/setup`);
    expect(again?.status()).toBe(403);
    await hydrated(page);
    expect(await page.getByText("Setup is done: an administrator exists.").isVisible()).toBe(true);
    expect(await page.getByRole("form", { name: "Create the administrator" }).count()).toBe(0);

    // And the call says the same to anyone who tries it directly.
    const call = await page.request.post(`${server.url}/api/setup`, {
      data: { email: "late@portal.test", password: "another-password" },
    });
    expect(call.status()).toBe(403);
    expect((await call.json()).error).toBe("Setup is already done.");

    expect(unexpected(problems, [403])).toEqual([]);
    await context.close();
  });

  test("a Personal customer from /register to /account", async ({ server, db, browser }) => {
    const { page, context, problems } = await newPage(browser);
    const email = "personal.customer@portal.test";
    const password = "personal-password-1";

    const mark = await register({ server, db }, page, "Personal", email, password);
    await openValidationLink({ server, db }, page, email, mark, "/register-personal");
    await hydrated(page);
    // The longest form, drawn by the islands' kit: nothing serious for axe.
    expect(await seriousAxeViolations(page)).toEqual([]);

    // The profile form, every required field by its label.
    await page.getByLabel("First name").fill("Ada");
    await page.getByLabel("Last name").fill("Lovelace");
    await page.getByLabel("Date of birth").fill("1990-05-15");
    await page.getByLabel("Phone number").fill("+44 20 7946 0000");
    await page.getByLabel("Passport number").fill("123456789");
    await page.getByLabel("Address line 1").fill("1 Test Street");
    await page.getByLabel("Town or city").fill("London");
    await page.getByLabel("Postcode").fill("SW1A 1AA");
    await page.getByLabel("Country", { exact: true }).selectOption("GB");
    await page.getByLabel("Employment status").selectOption("Employed");
    await page.getByLabel("Job title").fill("Engineer");
    await page.getByLabel("Expected annual amount you'll send").fill("20000");
    await page.getByLabel("Main source of funds").selectOption("Salary");
    await page.getByLabel("Salary", { exact: true }).check();
    await page.getByLabel("Family support").check();
    await page.getByLabel("This account is for my personal use").check();
    await page.getByRole("button", { name: "Save and continue" }).click();

    await approveInSandbox({ server }, page);
    await page.waitForURL(`${server.url}/account`);
    await hydrated(page);
    // The dashboard greets the customer, with the account opened at once.
    expect(await page.getByRole("heading", { level: 1, name: "Hello, Ada Lovelace" }).isVisible()).toBe(true);

    // Its reference came by email, and it is on the account page.
    const opened = await waitForEmail(db, email, { template: "account-opened" });
    const accountRef = /\bP\d{8}\b/.exec(opened.text)?.[0];
    expect(accountRef, opened.text).toBeTruthy();
    expect(await page.locator("body").innerText()).toContain(accountRef!);

    await signOut({ server }, page);

    // A wrong password: 'Invalid credentials', and no code is sent.
    const signIn = page.getByRole("form", { name: "Sign in" });
    await signIn.getByLabel("Email").fill(email);
    await signIn.getByLabel("Password").fill("not-the-password");
    const beforeWrong = await lastEmailId(db);
    await signIn.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => signIn.getByRole("alert").textContent(), PASSWORD_CHECKED).toBe("Invalid credentials");
    // SPEC.md section 8: the failure is also a toast.
    const toasts = page.getByRole("region", { name: "Notifications" });
    await expect.poll(() => toasts.getByText("Invalid credentials", { exact: true }).isVisible()).toBe(true);
    expect(path(page)).toBe("/");
    expect(await lastEmailId(db)).toBe(beforeWrong);

    // The right one, then the emailed code.
    await signInThroughPages(page, db, server.url, email, password);
    expect(path(page)).toBe("/account");
    await hydrated(page);
    expect(await page.getByRole("heading", { level: 1, name: "Hello, Ada Lovelace" }).isVisible()).toBe(true);

    expect(unexpected(problems, [401])).toEqual([]);
    await context.close();
  });

  test("a Business customer stops at /processing until an administrator opens the account", async ({ server, db, browser }) => {
    const customer = await newPage(browser);
    const { page } = customer;
    const email = "business.customer@portal.test";
    const password = "business-password-1";
    const company = "Acme Trading Ltd";

    const mark = await register({ server, db }, page, "Business", email, password);
    await openValidationLink({ server, db }, page, email, mark, "/register-business");

    await page.getByLabel("Company name").fill(company);
    await page.getByLabel("Company registration number").fill("01234567");
    await page.getByLabel("Date of incorporation").fill("2015-03-01");
    await page.getByLabel("Country of incorporation").selectOption("GB");
    await page.getByLabel("Nature of business").fill("Wholesale of coffee");
    await page.getByLabel("Annual turnover").fill("250000");
    await page.getByLabel("First name").fill("Grace");
    await page.getByLabel("Last name").fill("Hopper");
    await page.getByLabel("Date of birth").fill("1980-12-09");
    await page.getByLabel("Phone number").fill("+44 20 7946 0001");
    await page.getByLabel("Address line 1").fill("2 Market Street");
    await page.getByLabel("Town or city").fill("Manchester");
    await page.getByLabel("Postcode").fill("M1 1AA");
    await page.getByLabel("Country", { exact: true }).selectOption("GB");
    await page.getByLabel("Ultimate beneficial owner full name").fill("Grace Hopper");
    await page.getByLabel("Director full name").fill("Alan Turing");
    await page.getByLabel("Paying suppliers").check();
    await page.getByRole("button", { name: "Save and continue" }).click();

    await approveInSandbox({ server }, page);
    await page.waitForURL(`${server.url}/processing`);
    await hydrated(page);
    expect(await page.getByRole("heading", { level: 1, name: "We are reviewing your application" }).isVisible()).toBe(
      true,
    );
    // The account's screens wait for the review.
    await page.goto(`${server.url}/account`);
    expect(path(page)).toBe("/processing");

    // The administrator, in a browser of their own.
    const admin = await newPage(browser);
    await ensureAdministrator({ server }, admin.page);
    await signInThroughPages(admin.page, db, server.url, ADMIN.email, ADMIN.password);
    expect(path(admin.page)).toBe("/console/users");
    await hydrated(admin.page);

    const row = admin.page.getByRole("row").filter({ hasText: email });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain(company);
    await row.getByRole("button", { name: `Open account for ${company}` }).click();
    const review = admin.page.getByRole("form", { name: `Compliance review for ${company}` });
    await review.getByLabel("Compliance review done").check();
    await review.getByRole("button", { name: "Open the account" }).click();
    // Each message once, under its field: the answer's error is the amount's, not repeated in the alert.
    const amountProblem = review.getByText("Amount is required when setting compliance.");
    await expect.poll(() => amountProblem.count()).toBe(1);
    expect(await review.getByRole("alert").textContent()).toBe("");
    // The date's own message sits under the date (SPEC.md section 5's wording, doubled "when" included).
    expect(await review.getByText("Date is required when when setting compliance.").isVisible()).toBe(true);
    expect(await review.getByLabel("Approved annual volume").getAttribute("aria-invalid")).toBe("true");

    await review.getByLabel("Approved annual volume").fill("50000");
    await review.getByLabel("Review date").fill(today());
    await review.getByRole("button", { name: "Open the account" }).click();
    await expect.poll(() => admin.page.getByText("Account opened", { exact: true }).isVisible()).toBe(true);
    await expect.poll(() => review.count()).toBe(0);
    // The row's Account column now shows the reference (a B, eight digits).
    const accountCell = (await row.getByRole("cell").nth(3).textContent()) ?? "";
    const accountRef = /^B\d{8}$/.exec(accountCell.trim())?.[0];
    expect(accountRef, accountCell).toBeTruthy();
    const opened = await waitForEmail(db, email, { template: "account-opened" });
    expect(opened.text).toContain(accountRef);

    // The customer reloads the waiting page and is sent to the account.
    await page.reload();
    await page.waitForURL(`${server.url}/account`);
    await hydrated(page);
    expect(await page.getByRole("heading", { level: 1, name: /^Hello, / }).isVisible()).toBe(true);
    expect(await page.locator("body").innerText()).toContain(accountRef);

    expect(unexpected(customer.problems)).toEqual([]);
    expect(unexpected(admin.problems, [422])).toEqual([]);
    await admin.context.close();
    await customer.context.close();
  });

  test("forgot and reset", async ({ server, db, browser }) => {
    const email = "forgetful@portal.test";
    const oldPassword = "old-password-1";
    const newPassword = "new-password-2";
    // The customer exists already (the API shortcut; the register pages are covered above).
    const setup = await newPage(browser);
    await openAccountThroughApi(setup.page.request, db, server.url, {
      email,
      password: oldPassword,
      first: "Fred",
      last: "Forgetful",
    });
    await setup.context.close();

    const { page, context, problems } = await newPage(browser);
    await page.goto(`${server.url}/`);
    await hydrated(page);
    await page.getByRole("link", { name: "Forgotten password?" }).click();
    await page.waitForURL(`${server.url}/forgot`);
    await hydrated(page);
    const mark = await lastEmailId(db);
    await page.getByRole("form", { name: "Forgotten password" }).getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Send me a link" }).click();
    const message =
      `If an account exists for ${email}, we have sent a link to reset the password. It is valid for one hour.`;
    await expect.poll(() => page.getByRole("status").filter({ hasText: "If an account exists" }).textContent()).toBe(
      message,
    );

    // An unknown address gets the very same message.
    await page.getByRole("button", { name: "Use another address" }).click();
    await page.getByRole("form", { name: "Forgotten password" }).getByLabel("Email").fill("nobody@portal.test");
    await page.getByRole("button", { name: "Send me a link" }).click();
    await expect.poll(() => page.getByRole("status").filter({ hasText: "If an account exists" }).textContent()).toBe(
      message.replace(email, "nobody@portal.test"),
    );

    const mail = await waitForEmail(db, email, { template: "password-reset", after: mark });
    const link = linkIn(mail.text);
    expect(link, mail.text).toMatch(new RegExp(`^${server.url}/forgot\\?token=`));
    await page.goto(link!);
    await hydrated(page);
    const reset = page.getByRole("form", { name: "Choose a new password" });
    expect(await reset.textContent()).toContain(email);
    await reset.getByLabel("New password", { exact: true }).fill(newPassword);
    await reset.getByLabel("New password again").fill(newPassword);
    await reset.getByRole("button", { name: "Change my password" }).click();
    await page.waitForURL(`${server.url}/`);
    await hydrated(page);
    await waitForEmail(db, email, { template: "password-changed", after: mark });
    const toasts = page.getByRole("region", { name: "Notifications" });
    await expect.poll(() => toasts.getByText("Password changed", { exact: false }).first().isVisible()).toBe(true);

    // The old password no longer works.
    const signIn = page.getByRole("form", { name: "Sign in" });
    await signIn.getByLabel("Email").fill(email);
    await signIn.getByLabel("Password").fill(oldPassword);
    await signIn.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => signIn.getByRole("alert").textContent(), PASSWORD_CHECKED).toBe("Invalid credentials");
    expect(path(page)).toBe("/");

    // The new one does, with the emailed code.
    await signInThroughPages(page, db, server.url, email, newPassword);
    expect(path(page)).toBe("/account");

    expect(unexpected(problems, [401])).toEqual([]);
    await context.close();
  });
  test("an address that has an account: the same /verify, the owner gets a notice, nobody is signed in", async ({ server, db, browser }) => {
    const { page, context, problems } = await newPage(browser);
    const email = "already.here@portal.test";
    await openAccountThroughApi(page.request, db, server.url, { email, password: "first-password-1" });
    await context.clearCookies();

    const mark = await register({ server, db }, page, "Business", email, "another-password-2");
    const notice = await waitForEmail(db, email, { template: "registration-attempt", after: mark });
    expect(notice.text).toMatch(/tried to open an account with this address/);
    // Nobody is signed in here: the header offers to sign in, and /auth goes home.
    await page.goto(`${server.url}/auth`);
    await page.waitForURL(`${server.url}/`);
    expect(unexpected(problems)).toEqual([]);
    await context.close();
  });

  test("the link opened on a phone: both the phone and the browser that registered are told to sign in (decision 077)", async ({ server, db, browser }) => {
    const laptop = await newPage(browser);
    const email = `on-a-phone-${crypto.randomUUID().slice(0, 8)}@portal.test`;
    const password = "laptop-password-1";
    const mark = await register({ server, db }, laptop.page, "Personal", email, password);
    const mail = await waitForEmail(db, email, { template: "email-validation", after: mark });
    const code = /\b\d{6}\b/.exec(mail.text)![0];

    // The phone, where nobody is signed in: confirmed, and sent to the sign-in form with a notice.
    const phone = await newPage(browser);
    await phone.page.goto(linkIn(mail.text)!);
    await phone.page.waitForURL(`${server.url}/`);
    await hydrated(phone.page);
    const notices = (page: Page) => page.getByRole("region", { name: "Notifications" });
    await expect.poll(() => notices(phone.page).getByText("Email address confirmed").isVisible()).toBe(true);
    expect(await notices(phone.page).textContent()).toContain(
      "Sign in with your email address and password to continue.",
    );
    expect(await phone.page.getByRole("form", { name: "Sign in" }).isVisible()).toBe(true);

    // The laptop, still on /verify: the right code now says the same, rather than "not right".
    const form = laptop.page.getByRole("form", { name: "Confirm your email address" });
    await form.getByLabel("Code from the email (or its link)").fill(code);
    await form.getByRole("button", { name: "Confirm my email address" }).click();
    await laptop.page.waitForURL(`${server.url}/`);
    await hydrated(laptop.page);
    await expect.poll(() => notices(laptop.page).getByText("Email address confirmed").isVisible()).toBe(true);
    // Reloading /verify says so again; the password and the emailed code lead on.
    await laptop.page.goto(`${server.url}/verify`);
    await laptop.page.waitForURL(`${server.url}/`);
    await hydrated(laptop.page);
    await expect.poll(() => notices(laptop.page).getByText("Email address confirmed").isVisible()).toBe(true);
    await signInThroughPages(laptop.page, db, server.url, email, password);
    expect(path(laptop.page)).toBe("/register-personal");

    expect(unexpected(laptop.problems)).toEqual([]);
    expect(unexpected(phone.problems)).toEqual([]);
    await phone.context.close();
    await laptop.context.close();
  });

  test("the authenticator app: the password before a key, the password or a code before turning it off", async ({ server, db, browser }) => {
    const { page, context, problems } = await newPage(browser);
    const email = "totp.customer@portal.test";
    const password = "totp-password-1";
    await openAccountThroughApi(page.request, db, server.url, { email, password });

    await page.goto(`${server.url}/account/security`);
    await hydrated(page);
    // The page also has the password's section, with its own status line.
    const totp = page.getByRole("region", { name: "Authenticator app" });
    await page.getByRole("button", { name: "Set up an authenticator app" }).click();
    await page.getByLabel("Your password").fill(password);
    await page.getByRole("button", { name: "Continue" }).click();
    // The key as a QR code to scan (drawn by the server), beside the key to type.
    await expect.poll(() => page.getByRole("img", { name: /QR code to scan/ }).locator("svg").isVisible()).toBe(
      true,
    );
    const key = (await page.getByLabel("Key").textContent())!.replace(/\s+/g, "");
    await page.getByLabel("Code from the app").fill(totpAt(totpKeyFromText(key), totpStepAt(Date.now())));
    await page.getByRole("button", { name: "Turn on" }).click();
    await expect.poll(() => totp.getByRole("status").textContent()).toBe("Authenticator app is on.");

    await page.getByRole("button", { name: "Turn off" }).click();
    await page.getByLabel(/^Your password/).fill("not the password");
    await page.getByRole("button", { name: "Turn off the app" }).click();
    await expect.poll(() => page.getByText("That password is not right.").first().isVisible(), PASSWORD_CHECKED)
      .toBe(true);
    await page.getByLabel(/^Your password/).fill(password);
    await page.getByRole("button", { name: "Turn off the app" }).click();
    await expect.poll(() => totp.getByRole("status").textContent(), PASSWORD_CHECKED).toBe(
      "Authenticator app is off.",
    );
    expect(unexpected(problems, [422])).toEqual([]);
    await context.close();
  });
});
