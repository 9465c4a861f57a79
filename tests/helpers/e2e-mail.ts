import { join } from "node:path";
import { type Database, openDatabase } from "../../db/client.ts";
import type { Page } from "playwright-core";
import { hydrated } from "./browser.ts";
import { codeIn, type EmailRow, lastEmailId, linkIn, waitForEmail, type WaitOptions } from "./mailbox.ts";
import type { RunningServer } from "./server.ts";

export type { EmailRow, WaitOptions };
export { codeIn, lastEmailId, linkIn, waitForEmail };

/**
 * The mailbox of an end-to-end test: the running server keeps every email in its database's
 * `emails` table (APP_ENV=test sends nothing), so the test opens the same file as a second
 * connection (WAL lets it read beside the server) and reads the messages a person would receive.
 * Only reads: the server stays the only writer.
 */
export function openServerDatabase(server: RunningServer): Promise<Database> {
  return openDatabase({ url: "file:" + join(server.dataDir, "portal.db") });
}

// ---------------------------------------------------------------------------------------------
// Journeys that need the mailbox

/** The `token` parameter of an emailed link. */
export function tokenOf(link: string): string {
  const token = new URL(link).searchParams.get("token");
  if (!token) throw new Error(`No token in ${link}`);
  return token;
}

/** A Personal profile that passes the server's checks and raises no compliance flag. */
export function personalProfile(first = "Ada", last = "Lovelace"): Record<string, unknown> {
  return {
    first,
    last,
    dob: "1990-05-15",
    phone: "+44 20 7946 0000",
    identity: "123456789",
    address: { line1: "1 Test Street", line2: "", city: "London", region: "", postcode: "SW1A 1AA", country: "GB" },
    employment: "Employed",
    position: "Engineer",
    expected: "20000",
    fundSource: "Salary",
    source: ["Salary"],
    purpose: ["Family support"],
    discovery: "",
    personal: true,
    agency: false,
    agency_of: "",
    public: false,
    denial: false,
  };
}

interface ApiAnswer<T> {
  body: T;
  redirect?: string;
}

/** The part of playwright's APIRequestContext the API shortcut uses (page.request, context.request). */
export interface Requester {
  post(
    url: string,
    options: { data: unknown },
  ): Promise<{ status(): number; json(): Promise<unknown>; text(): Promise<string> }>;
  get(url: string): Promise<{ status(): number; json(): Promise<unknown>; text(): Promise<string> }>;
}

async function expectOk<T>(
  what: string,
  res: { status(): number; json(): Promise<unknown>; text(): Promise<string> },
): Promise<ApiAnswer<T>> {
  if (res.status() >= 300) throw new Error(`${what} answered ${res.status()}: ${await res.text()}`);
  return await res.json() as ApiAnswer<T>;
}

/** The body of a call that must succeed; a refusal fails the test with what the server said. */
export async function okBody<T = Record<string, unknown>>(
  what: string,
  res: { status(): number; json(): Promise<unknown>; text(): Promise<string> },
): Promise<T> {
  return (await expectOk<T>(what, res)).body;
}

/**
 * The API shortcut to a Personal customer with an open account: register, open the emailed
 * validation token, save the profile, approve in the sandbox, confirm. `request` carries the
 * customer's cookies (page.request of the customer's own context). Answers the customer's id and
 * account_ref.
 */
export async function openAccountThroughApi(
  request: Requester,
  db: Database,
  baseUrl: string,
  customer: { email: string; password: string; first?: string; last?: string },
): Promise<{ id: number; accountRef: string | null; name: string }> {
  const mark = await lastEmailId(db);
  await expectOk<{ email: string }>(
    "auth/register",
    await request.post(`${baseUrl}/api/auth/register`, {
      data: { email: customer.email, password: customer.password, type: "Personal" },
    }),
  );
  const mail = await waitForEmail(db, customer.email, { template: "email-validation", after: mark });
  const link = /https?:\/\/\S+/.exec(mail.text)?.[0];
  if (!link) throw new Error(`No link in the validation email:\n${mail.text}`);
  const validated = await expectOk<{ id: number }>(
    "validation/validate",
    await request.post(`${baseUrl}/api/validation/validate`, { data: { token: tokenOf(link) } }),
  );
  await expectOk(
    "account/profile",
    await request.post(`${baseUrl}/api/account/profile`, { data: personalProfile(customer.first, customer.last) }),
  );
  await expectOk("sumsub/sandbox", await request.post(`${baseUrl}/api/sumsub/sandbox`, { data: { answer: "GREEN" } }));
  const confirmed = await expectOk<{ id: number; account: boolean; account_ref: string | null; name: string }>(
    "sumsub/confirm",
    await request.get(`${baseUrl}/api/sumsub/confirm`),
  );
  if (!confirmed.body.account) throw new Error(`The account did not open: ${JSON.stringify(confirmed.body)}`);
  return { id: validated.body.id, accountRef: confirmed.body.account_ref, name: confirmed.body.name };
}

/**
 * Someone who joins an account with a role: registered and onboarded through the calls (a flagged
 * profile, so no account of their own opens), then made a member of the account in its database,
 * as an owner's invitation would (tests/e2e/account-users.test.ts walks the invitation itself).
 * `request` carries the member's cookies: their context stays signed in.
 */
export async function joinAccountThroughApi(
  request: Requester,
  db: Database,
  baseUrl: string,
  member: { accountId: number; role: string; first: string; last: string },
): Promise<{ id: number; email: string; name: string }> {
  const email = `${member.first.toLowerCase()}-${crypto.randomUUID().slice(0, 6)}@portal.test`;
  const mark = await lastEmailId(db);
  await expectOk(
    "auth/register",
    await request.post(`${baseUrl}/api/auth/register`, {
      data: { email, password: "member password 123", type: "Personal" },
    }),
  );
  const mail = await waitForEmail(db, email, { template: "email-validation", after: mark });
  const link = /https?:\/\/\S+/.exec(mail.text)?.[0];
  if (!link) throw new Error(`No link in the validation email:\n${mail.text}`);
  await expectOk(
    "validation/validate",
    await request.post(`${baseUrl}/api/validation/validate`, { data: { token: tokenOf(link) } }),
  );
  await expectOk(
    "account/profile",
    await request.post(`${baseUrl}/api/account/profile`, {
      data: { ...personalProfile(member.first, member.last), public: true },
    }),
  );
  await expectOk("sumsub/sandbox", await request.post(`${baseUrl}/api/sumsub/sandbox`, { data: { answer: "GREEN" } }));
  await expectOk("sumsub/confirm", await request.get(`${baseUrl}/api/sumsub/confirm`));
  // Registering answers the same whether or not the address is taken (decision 023): the id is read here.
  const [{ id }] = (await db.$client.execute({ sql: "SELECT id FROM users WHERE username = ?", args: [email] }))
    .rows as unknown as { id: number }[];
  await db.$client.execute({
    sql: "INSERT INTO account_members (account_id, user_id, role, created_at) VALUES (?, ?, ?, ?)",
    args: [member.accountId, id, member.role, Date.now()],
  });
  return { id, email, name: `${member.first} ${member.last}` };
}

/**
 * Signs in as a person does: email and password on '/', then the emailed 6-digit code on
 * /second-factor. Leaves the page where /auth sends the user (the caller waits for it).
 */
export async function signInThroughPages(
  page: Page,
  db: Database,
  baseUrl: string,
  email: string,
  password: string,
): Promise<void> {
  await page.goto(`${baseUrl}/`);
  await hydrated(page);
  const form = page.getByRole("form", { name: "Sign in" });
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Password").fill(password);
  const mark = await lastEmailId(db);
  await form.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${baseUrl}/second-factor`);
  await hydrated(page);
  const mail = await waitForEmail(db, email, { template: "second-factor-code", after: mark });
  const code = /\b\d{6}\b/.exec(mail.text)?.[0];
  if (!code) throw new Error(`No code in the sign-in email:\n${mail.text}`);
  const challenge = page.getByRole("form", { name: "Second factor" });
  await challenge.getByLabel("Code").fill(code);
  await challenge.getByRole("button", { name: "Continue" }).click();
  await page.waitForURL((url) => url.pathname !== "/second-factor");
}
