import { beforeAll, describe, expect, test, vi } from "vitest";
import { authGoesTo, businessOwner, invitationToken, invite, memberWithRole } from "../helpers/account-users.ts";
import { type Admin, expectStatus, type TestClient } from "../helpers/client.ts";
import { customerWithoutAccount, type MoneyApp, moneyApp, type OpenCustomer, openCustomer } from "../helpers/money.ts";

/**
 * Someone removed from the only account they belonged to is told so (/no-account), not "We are
 * reviewing your application": nobody reviews anything for them. /processing stays for those whose
 * own application waits for the review.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;
let business: OpenCustomer;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  business = await businessOwner(t, admin);
});

async function remove(owner: TestClient, email: string): Promise<void> {
  const users = await owner.get("account/users");
  const member = users.json.body.find((u: { email: string }) => u.email === email);
  expectStatus(await owner.delete(`account/users/${member.id}`), 200);
}

const REVIEWING = "We are reviewing your application";
const NO_LONGER = "You are no longer a member of any account";

describe("a member removed from their only account", () => {
  test("is told they are no longer a member, by /auth, /processing and the home page", async () => {
    // Joined through the invitation: their own onboarding was for this account, no application of theirs.
    const member = await memberWithRole(t, business.client, "payer");
    expect(await authGoesTo(member.client)).toBe("/account");
    await remove(business.client, member.email);

    expect(await authGoesTo(member.client)).toBe("/no-account");
    const dashboard = await member.client.get("/account");
    expect(dashboard.status).toBe(302);
    const processing = await member.client.get("/processing");
    expect(processing.status).toBe(302);
    expect(processing.headers.get("location")).toBe("/no-account");

    const page = await member.client.get("/no-account");
    expect(page.status).toBe(200);
    expect(page.text).toContain(NO_LONGER);
    expect(page.text).toContain("You were removed from Acme Trading Ltd.");
    expect(page.text).toContain("Ask the account&#x27;s owner to invite you again");
    expect(page.text).not.toContain(REVIEWING);

    // Its calls say the same and point to the same page, not to /processing.
    for (const call of ["account/balances", "account/funding"]) {
      const refused = await member.client.get(call);
      expect(refused.status).toBe(403);
      expect(refused.json.error).toBe("You no longer belong to any account: an owner or admin removed you.");
      expect(refused.json.redirect).toBe("/no-account");
    }

    const home = await member.client.get("/");
    expect(home.text).toContain(NO_LONGER);
    expect(home.text).toContain('href="/no-account"');
    expect(home.text).not.toContain(REVIEWING);
  });

  test("invited again and accepting, they are back on the account", async () => {
    const member = await memberWithRole(t, business.client, "viewer");
    await remove(business.client, member.email);
    expect(await authGoesTo(member.client)).toBe("/no-account");
    expectStatus(await invite(business.client, member.email, "viewer"), 201);
    expectStatus(
      await member.client.post("account/users/accept", { token: await invitationToken(t, member.email) }),
      200,
    );
    expect(await authGoesTo(member.client)).toBe("/account");
    const back = await member.client.get("/no-account");
    expect(back.status).toBe(302);
    expect(back.headers.get("location")).toBe("/auth");
  });
});

describe("someone whose own application is under review", () => {
  test("still waits on /processing, and /no-account sends them there", async () => {
    const applicant = await customerWithoutAccount(t);
    expect(await authGoesTo(applicant.client)).toBe("/processing");
    const page = await applicant.client.get("/processing");
    expect(page.status).toBe(200);
    expect(page.text).toContain(REVIEWING);
    const elsewhere = await applicant.client.get("/no-account");
    expect(elsewhere.status).toBe(302);
    expect(elsewhere.headers.get("location")).toBe("/processing");
  });

  test("who was also invited to an account and removed from it: the review is what they wait for", async () => {
    const applicant = await customerWithoutAccount(t);
    expectStatus(await invite(business.client, applicant.email, "viewer"), 201);
    expectStatus(
      await applicant.client.post("account/users/accept", { token: await invitationToken(t, applicant.email) }),
      200,
    );
    expect(await authGoesTo(applicant.client)).toBe("/account");
    await remove(business.client, applicant.email);
    expect(await authGoesTo(applicant.client)).toBe("/processing");
    expect((await applicant.client.get("/processing")).text).toContain(REVIEWING);
  });
});

describe("a member removed from a business account who has an account of their own", () => {
  test("a call from the business account's page says they are no longer a user of it, not that they switched", async () => {
    const pat = await openCustomer(t);
    expectStatus(await invite(business.client, pat.email, "payer"), 201);
    expectStatus(await pat.client.post("account/users/accept", { token: await invitationToken(t, pat.email) }), 200);
    expectStatus(await pat.client.post("account/select", { account_ref: business.accountRef }), 200);
    // The business account's payment page is open; meanwhile the owner removes Pat.
    await remove(business.client, pat.email);

    const fromPage = { "X-Account-Ref": business.accountRef };
    const refused = await pat.client.get("account/balances", fromPage);
    expectStatus(refused, 409);
    // The same refusal as after a switch (the page is loaded again), with what really happened.
    expect(refused.json.code).toBe("account_changed");
    expect(refused.json.error).toContain(
      `You are no longer a user of Acme Trading Ltd (${business.accountRef}): an owner or admin removed you, ` +
        "so nothing was done here. The page has been loaded again for ",
    );
    expect(refused.json.error).toContain(`(${pat.accountRef}).`);
    expect(refused.json.error).not.toContain("switched");

    // The page loaded again is their own account's.
    const page = await pat.client.get("/account");
    expect(page.status).toBe(200);
    expect(page.text).toContain(`data-current-account="${pat.accountRef}"`);
    // Their own account's pages are not refused.
    expectStatus(await pat.client.get("account/balances", { "X-Account-Ref": pat.accountRef }), 200);
  });
});
