import { and, eq } from "drizzle-orm";
import { describe, expect, vi } from "vitest";
import { emails, identityChecks, profiles } from "../../db/schema.ts";
import { consoleAlerts } from "../../db/schema-console.ts";
import {
  businessProfile,
  completeOnboarding,
  type Customer,
  expectStatus,
  personalProfile,
  registerCustomer,
  TestClient,
} from "../helpers/client.ts";
import { type SigninApp, test } from "../helpers/fixtures.ts";

/**
 * A customer who waits for a compliance review cannot open their own account (decision 071): once
 * the identity check has approved them their profile is no longer theirs to change, and once a
 * review is queued only the console's approval opens the account, whatever the profile says later.
 */

// Argon2 hashing makes every registration and login take a while on a busy machine.
vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

const FLAGGED = personalProfile({ first: "Polly", last: "Exposed", public: true });

async function authGoesTo(client: TestClient): Promise<string | null> {
  const res = await client.get("/auth");
  expect(res.status).toBe(302);
  return res.headers.get("location");
}

async function whoami(client: TestClient) {
  const res = await client.get("account/whoami");
  expectStatus(res, 200);
  return res.json.body;
}

async function savedData(app: SigninApp, userId: number) {
  const [row] = await app.db.select().from(profiles).where(eq(profiles.userId, userId));
  return row.data as Record<string, unknown>;
}

/** The customer's compliance review as the console's alerts record it (one per customer). */
async function reviewOf(app: SigninApp, userId: number) {
  const [row] = await app.db.select().from(consoleAlerts).where(
    eq(consoleAlerts.dedupeKey, `compliance_review:${userId}`),
  );
  return row;
}

async function accountEmails(app: SigninApp, to: string) {
  return await app.db.select().from(emails).where(and(eq(emails.to, to), eq(emails.template, "account-opened")));
}

describe("a politically exposed customer waiting on /processing", () => {
  test("re-saving the profile without the flag is refused, and confirming again opens no account", async ({ app, customer }) => {
    const first = await completeOnboarding(customer, { profile: FLAGGED });
    expect(first.json.body).toMatchObject({ identity: true, account: false });
    expect(await authGoesTo(customer.client)).toBe("/processing");
    expect(await reviewOf(app, customer.id)).toMatchObject({ kind: "compliance_review", resolvedAt: null });

    const unflagged = await customer.client.post("account/profile", { ...FLAGGED, public: false });
    expectStatus(unflagged, 409);
    expect(unflagged.json.error).toBe(
      `Your details were verified: write to us at ${app.config.supportEmail} to change your profile.`,
    );
    expect((await savedData(app, customer.id)).public).toBe(true);

    const again = await customer.client.get("sumsub/confirm");
    expectStatus(again, 200);
    expect(again.json.body).toMatchObject({ identity: true, account: false, account_ref: null });
    expect((await whoami(customer.client)).account).toBe(false);
    expect(await authGoesTo(customer.client)).toBe("/processing");
    expect(await accountEmails(app, customer.email)).toHaveLength(0);
  });

  test("the name the identity check approved cannot be changed either", async ({ app, customer }) => {
    await completeOnboarding(customer, { profile: FLAGGED });
    const renamed = await customer.client.post("account/profile", { ...FLAGGED, first: "Someone", last: "Else" });
    expectStatus(renamed, 409);
    expect(await savedData(app, customer.id)).toMatchObject({ first: "Polly", last: "Exposed" });
    expect((await whoami(customer.client)).name).toBe("Polly Exposed");
  });

  test("the profile form is no longer offered: /register-personal goes to /auth", async ({ customer }) => {
    await completeOnboarding(customer, { profile: FLAGGED });
    const page = await customer.client.get("/register-personal");
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toBe("/auth");
  });

  test("the page they wait on says their details are locked, and where to write to change them", async ({ app, customer }) => {
    await completeOnboarding(customer, { profile: FLAGGED });
    const page = await customer.client.get("/processing");
    expect(page.status).toBe(200);
    const text = page.text.replace(/\s+/g, " ");
    expect(text).toContain("Your details are the ones we verified, so they can no longer be changed here.");
    expect(text).toContain(`mailto:${app.config.supportEmail}`);
  });

  test("the review is queued when the identity check approves, before any confirm", async ({ app, customer }) => {
    expectStatus(await customer.client.post("account/profile", FLAGGED), 200);
    expectStatus(await customer.client.post("sumsub/sandbox", { answer: "GREEN" }), 200);
    expect(await reviewOf(app, customer.id)).toMatchObject({ kind: "compliance_review", resolvedAt: null });
  });

  test("once the review is queued, a profile without the flag still opens nothing at once", async ({ app, customer }) => {
    await completeOnboarding(customer, { profile: FLAGGED });
    // As if the answers had changed after the approval (support corrected them, or the check was
    // reopened): the review is of what was declared, and only the console decides now.
    await app.db.update(profiles).set({ data: { ...(await savedData(app, customer.id)), public: false } })
      .where(eq(profiles.userId, customer.id));
    expectStatus(await customer.client.get("sumsub/confirm"), 200);
    expect((await whoami(customer.client)).account).toBe(false);
    expect(await authGoesTo(customer.client)).toBe("/processing");
  });

  test("while the review is open and the check was reopened, the profile still cannot be changed", async ({ app, customer }) => {
    await completeOnboarding(customer, { profile: FLAGGED });
    // A later review by the provider asks for new documents: the identity is no longer approved.
    await app.db.update(identityChecks).set({ status: "retry" }).where(eq(identityChecks.userId, customer.id));
    expect((await whoami(customer.client)).identity).toBe(false);
    const unflagged = await customer.client.post("account/profile", { ...FLAGGED, public: false });
    expectStatus(unflagged, 409);
    expect(unflagged.json.error).toBe(
      `Your application is being reviewed: write to us at ${app.config.supportEmail} to change your profile.`,
    );
    expect((await savedData(app, customer.id)).public).toBe(true);
    // Nor is its form offered, whose save would be refused.
    const page = await customer.client.get("/register-personal");
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toBe("/auth");
  });

  test("an administrator's approval opens the account, and closes the review", async ({ app, admin, customer }) => {
    await completeOnboarding(customer, { profile: FLAGGED });
    expectStatus(await customer.client.post("account/profile", { ...FLAGGED, public: false }), 409);
    const opened = await admin.client.post(`console/users/${customer.id}/open-account`, {
      compliance: { done: true, amount: "50000", date: app.clock.today() },
    });
    expectStatus(opened, 200);
    expect(opened.json.body.account_ref).toMatch(/^P\d{8}$/);
    expect(await authGoesTo(customer.client)).toBe("/account");
    expect((await reviewOf(app, customer.id)).resolvedAt).not.toBeNull();
    const [email] = await accountEmails(app, customer.email);
    expect(email.text, "the email links to the account's page, after the console's review too").toContain(
      `${app.config.publicUrl}/account\n`,
    );
    expect(await accountEmails(app, customer.email)).toHaveLength(1);
  });
});

describe("customers who need no review, and before the approval", () => {
  test("a customer without a flag still gets an account at once, and no review is queued", async ({ app, customer }) => {
    const res = await completeOnboarding(customer);
    expect(res.json.body).toMatchObject({ identity: true, account: true });
    expect(await authGoesTo(customer.client)).toBe("/account");
    expect(await reviewOf(app, customer.id)).toBeUndefined();
  });

  test("before the identity check approves, the profile can still be corrected (a retry included)", async ({ app, customer }) => {
    expectStatus(await customer.client.post("account/profile", FLAGGED), 200);
    expectStatus(await customer.client.post("sumsub/sandbox", { answer: "RED", reject_type: "RETRY" }), 200);
    expectStatus(await customer.client.post("account/profile", { ...FLAGGED, public: false }), 200);
    expect((await savedData(app, customer.id)).public).toBe(false);
    expectStatus(await customer.client.post("sumsub/sandbox", { answer: "GREEN" }), 200);
    expectStatus(await customer.client.get("sumsub/confirm"), 200);
    expect((await whoami(customer.client)).account).toBe(true);
  });

  test("a Business customer's verified details cannot be changed while they wait", async ({ app }) => {
    const business: Customer = await registerCustomer(app, { type: "Business" });
    await completeOnboarding(business);
    const renamed = await business.client.post("account/profile", businessProfile({ name: "Other Trading Ltd" }));
    expectStatus(renamed, 409);
    expect((await savedData(app, business.id)).name).toBe("Acme Trading Ltd");
  });
});
