import { expect } from "vitest";
import type { AccountRole } from "../../lib/permissions.ts";
import {
  type Admin,
  type ClientResponse,
  completeOnboarding,
  emailedCode,
  emailedToken,
  expectStatus,
  PASSWORD,
  registerCustomer,
  type TestAppLike,
  TestClient,
  type TestClock,
  uniqueEmail,
} from "./client.ts";
import type { OpenCustomer } from "./money.ts";

/**
 * Factories for account users and linked accounts (decision 028): a business account opened by an
 * administrator, invitations read from the invitee's mailbox, people who join through them.
 */

type AppWithClock = TestAppLike & { clock: TestClock };

/** Where GET /auth sends this browser. */
export async function authGoesTo(client: TestClient): Promise<string | null> {
  const res = await client.get("/auth");
  expect(res.status).toBe(302);
  return res.headers.get("location");
}

/** A Business customer whose account an administrator opened after the compliance review: its owner. */
export async function businessOwner(t: AppWithClock, admin: Admin): Promise<OpenCustomer> {
  const customer = await registerCustomer(t, { type: "Business" });
  await completeOnboarding(customer);
  const opened = await admin.client.post(`console/users/${customer.id}/open-account`, {
    compliance: { done: true, amount: "250000", date: t.clock.today() },
  });
  expectStatus(opened, 200);
  const accountRef = opened.json.body.account_ref as string;
  expect(accountRef).toMatch(/^B\d{8}$/);
  return { ...customer, accountRef };
}

/** POST account/users as `inviter`; answers the response. */
export function invite(inviter: TestClient, email: string, role: AccountRole): Promise<ClientResponse> {
  return inviter.post("account/users", { email, role });
}

/** The token of the newest invitation emailed to an address. */
export async function invitationToken(t: TestAppLike, email: string): Promise<string> {
  const { link, token } = await emailedToken(t.db, email, "account-invitation");
  expect(new URL(link).pathname).toBe("/invite");
  return token;
}

export interface Member {
  client: TestClient;
  id: number;
  email: string;
  password: string;
}

/**
 * A new person registers through an invitation (POST invitations/register), passes the emailed
 * second factor and, unless `onboard` is false, saves a Personal profile and passes the identity
 * check, as everyone must before acting.
 */
export async function joinAsNewPerson(
  t: TestAppLike,
  token: string,
  email: string,
  options: { onboard?: boolean } = {},
): Promise<Member> {
  const client = new TestClient(t);
  const registered = await client.post("invitations/register", { token, password: PASSWORD });
  expectStatus(registered, 200);
  expect(registered.json.redirect).toBe("/second-factor");
  const code = await emailedCode(t.db, email);
  expectStatus(await client.post("challenge", { token: code }), 200);
  if (options.onboard !== false) await completeOnboarding({ client, type: "Personal" });
  return { client, id: registered.json.body.id, email, password: PASSWORD };
}

/** Someone new invited by `inviter` with `role`, who joined and finished their onboarding. */
export async function memberWithRole(t: TestAppLike, inviter: TestClient, role: AccountRole): Promise<Member> {
  const email = uniqueEmail(role);
  expectStatus(await invite(inviter, email, role), 201);
  return await joinAsNewPerson(t, await invitationToken(t, email), email);
}
