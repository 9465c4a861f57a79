import { createHmac } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { describe, expect, vi } from "vitest";
import { auditLog, emails, identityChecks, profiles } from "../../db/schema.ts";
import { IDENTITY_CHECK_IS_THEIRS } from "../../lib/contracts/onboarding.ts";
import { SANDBOX_RETRY_COMMENT } from "../../server/identity/index.ts";
import {
  businessProfile,
  completeOnboarding,
  type Customer,
  emailedToken,
  expectStatus,
  MINUTE,
  personalProfile,
  registerCustomer,
  TestClient,
} from "../helpers/client.ts";
import { type SigninApp, test } from "../helpers/fixtures.ts";
import { sumsubStandIn } from "../helpers/sumsub-stand-in.ts";

/**
 * Onboarding after registration: the profile (POST account/profile), the identity check (sandbox
 * answers, GET sumsub/confirm, Sumsub's webhook), the account opening at once or by an
 * administrator, and where GET /auth sends the customer at each step.
 */

// Argon2 hashing makes every registration and login take a while on a busy machine.
vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

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

async function accountEmails(app: SigninApp, to: string) {
  return await app.db.select().from(emails).where(and(eq(emails.to, to), eq(emails.template, "account-opened")));
}

describe("where /auth sends the customer at each step", () => {
  test("a visitor goes home", async ({ app }) => {
    expect(await authGoesTo(new TestClient(app))).toBe("/");
  });

  test("Personal: /verify, /register-personal, /identity, then /account once approved", async ({ app, unverified: customer }) => {
    const { client } = customer;
    expect(await authGoesTo(client)).toBe("/verify");

    const { token } = await emailedToken(app.db, customer.email);
    expectStatus(await client.post("validation/validate", { token }), 200);
    expect(await authGoesTo(client)).toBe("/register-personal");

    expectStatus(await client.post("account/profile", personalProfile()), 200);
    expect(await authGoesTo(client)).toBe("/identity");

    expectStatus(await client.post("sumsub/sandbox", { answer: "RED", reject_type: "RETRY" }), 200);
    expectStatus(await client.get("sumsub/confirm"), 422);
    expect(await authGoesTo(client)).toBe("/identity");

    expectStatus(await client.post("sumsub/sandbox", { answer: "GREEN" }), 200);
    expectStatus(await client.get("sumsub/confirm"), 200);
    expect(await authGoesTo(client)).toBe("/account");
  });

  test("Business: /register-business, /identity, /processing until an administrator opens the account, then /account", async ({ app, admin }) => {
    const customer = await registerCustomer(app, { type: "Business" });
    expect(await authGoesTo(customer.client)).toBe("/register-business");
    expectStatus(await customer.client.post("account/profile", businessProfile()), 200);
    expect(await authGoesTo(customer.client)).toBe("/identity");
    expectStatus(await customer.client.post("sumsub/sandbox", { answer: "GREEN" }), 200);
    expectStatus(await customer.client.get("sumsub/confirm"), 200);
    expect(await authGoesTo(customer.client)).toBe("/processing");
    const opened = await admin.client.post(`console/users/${customer.id}/open-account`, {
      compliance: { done: true, amount: "250000", date: app.clock.today() },
    });
    expectStatus(opened, 200);
    expect(await authGoesTo(customer.client)).toBe("/account");
  });

  test("signed in with the password only: /second-factor", async ({ app, customer }) => {
    const client = new TestClient(app);
    expectStatus(await client.post("auth/login", { email: customer.email, password: customer.password }), 200);
    expect(await authGoesTo(client)).toBe("/second-factor");
  });

  test("an administrator goes to the console", async ({ admin }) => {
    expect(await authGoesTo(admin.client)).toBe("/console/users");
  });
});

describe("saving the profile", () => {
  let customer: Customer;
  test.beforeAll(async ({ app }) => {
    customer = await registerCustomer(app, { type: "Personal" });
  });

  test("an invalid profile is 422 with error and fields, and nothing is saved", async ({ app }) => {
    const bad = personalProfile({ address: { line1: "1 Road", city: "Nowhere", postcode: "12345", country: "XX" } });
    const res = await customer.client.post("account/profile", bad);
    expectStatus(res, 422);
    expect(res.json.fields["address.country"]).toMatch(/two-letter ISO code/);
    expect(typeof res.json.error).toBe("string");
    expect(res.json.error.length).toBeGreaterThan(0);

    const several = await customer.client.post(
      "account/profile",
      personalProfile({ first: "", phone: "12345", public: "no" }),
    );
    expectStatus(several, 422);
    expect(Object.keys(several.json.fields)).toEqual(expect.arrayContaining(["first", "phone", "public"]));
    expect(several.json.error).toBe(several.json.fields.first);

    expect((await whoami(customer.client)).profile).toBe(false);
    expect(await app.db.select().from(profiles).where(eq(profiles.userId, customer.id))).toHaveLength(0);
  });

  test("a Business profile from a Personal customer is refused", async () => {
    expectStatus(await customer.client.post("account/profile", businessProfile()), 422);
    expect((await whoami(customer.client)).profile).toBe(false);
  });

  test("a valid profile is saved: redirect /identity, whoami profile true, the name shown", async ({ app }) => {
    const res = await customer.client.post("account/profile", personalProfile());
    expectStatus(res, 200);
    expect(res.json.redirect).toBe("/identity");
    expect(res.json.body).toMatchObject({ id: customer.id, profile: true, name: "Ada Lovelace" });
    const me = await whoami(customer.client);
    expect(me.profile).toBe(true);
    expect(me.name).toBe("Ada Lovelace");
    const [row] = await app.db.select().from(profiles).where(eq(profiles.userId, customer.id));
    expect(row.type).toBe("Personal");
    expect((row.data as { phone: string }).phone).toBe("+447911123456");
  });

  test("a customer cannot set their own compliance review", async ({ app, customer: other }) => {
    const res = await other.client.post(
      "account/profile",
      personalProfile({ public: true, compliance: { done: true, amount: "1000000", date: app.clock.today() } }),
    );
    expectStatus(res, 200);
    const [row] = await app.db.select().from(profiles).where(eq(profiles.userId, other.id));
    expect(row.complianceDone).toBe(false);
    expect(row.complianceAmount).toBeNull();
    expect(JSON.stringify(row.data)).not.toContain("compliance");
  });

  test("not before the email is verified, nor by a visitor", async ({ app, unverified }) => {
    const res = await unverified.client.post("account/profile", personalProfile());
    expectStatus(res, 403);
    expect(res.json.redirect).toBe("/verify");
    expectStatus(await new TestClient(app).post("account/profile", personalProfile()), 401);
    expect(await app.db.select().from(profiles).where(eq(profiles.userId, unverified.id))).toHaveLength(0);
  });
});

describe("the identity check with the sandbox provider", () => {
  test("confirm before any answer is 409: still in progress", async ({ customer }) => {
    expectStatus(await customer.client.get("sumsub/token"), 403); // no profile yet
    expectStatus(await customer.client.post("account/profile", personalProfile()), 200);
    const started = await customer.client.get("sumsub/token");
    expectStatus(started, 200);
    expect(started.json.body).toEqual({ kind: "sandbox" });
    const res = await customer.client.get("sumsub/confirm");
    expectStatus(res, 409);
    expect((await whoami(customer.client)).identity).toBe(false);
  });

  test("RED RETRY: confirm is 422 with the provider's comment as the error; GREEN afterwards passes", async ({ customer }) => {
    expectStatus(await customer.client.post("account/profile", personalProfile()), 200);
    const red = await customer.client.post("sumsub/sandbox", { answer: "RED", reject_type: "RETRY" });
    expectStatus(red, 200);
    expect(red.json.body).toEqual({ status: "retry" });
    const res = await customer.client.get("sumsub/confirm");
    expectStatus(res, 422);
    expect(res.json.error).toBe(SANDBOX_RETRY_COMMENT);
    expect((await whoami(customer.client)).identity).toBe(false);

    expectStatus(await customer.client.post("sumsub/sandbox", { answer: "GREEN" }), 200);
    expectStatus(await customer.client.get("sumsub/confirm"), 200);
  });

  test("an administrator acting on behalf cannot take the customer's check: no provider token, no answer, no buttons", async ({ app, admin, customer }) => {
    expectStatus(await customer.client.post("account/profile", personalProfile()), 200);
    expectStatus(await admin.client.post("account/onbehalf", { on_behalf_of: customer.id }), 200);
    try {
      // The provider's token would let the administrator's browser send documents and a selfie as this customer.
      const token = await admin.client.get("sumsub/token");
      expectStatus(token, 403);
      expect(token.json.error).toBe(IDENTITY_CHECK_IS_THEIRS);
      const answered = await admin.client.post("sumsub/sandbox", { answer: "GREEN" });
      expectStatus(answered, 403);
      expect(answered.json.error).toBe(IDENTITY_CHECK_IS_THEIRS);
      const page = await admin.client.get("/identity");
      expect(page.status).toBe(200);
      expect(page.text).toContain("Only the customer can take their identity check");
      expect(page.text).not.toContain("Approve (GREEN)");
    } finally {
      expectStatus(await admin.client.delete("account/onbehalf"), 200);
    }
    expect(await app.db.select().from(identityChecks).where(eq(identityChecks.userId, customer.id))).toEqual([]);
    expect((await whoami(customer.client)).identity).toBe(false);
    // The customer takes it themselves.
    expectStatus(await customer.client.get("sumsub/token"), 200);
    expectStatus(await customer.client.post("sumsub/sandbox", { answer: "GREEN" }), 200);
  });

  test("RED FINAL: confirm is 403", async ({ customer }) => {
    expectStatus(await customer.client.post("account/profile", personalProfile()), 200);
    expectStatus(await customer.client.post("sumsub/sandbox", { answer: "RED", reject_type: "FINAL" }), 200);
    expectStatus(await customer.client.get("sumsub/confirm"), 403);
    expect((await whoami(customer.client)).account).toBe(false);
  });

  test("GREEN: a Personal customer with no flag gets an account at once, P + 8 digits, and an email saying so", async ({ app, customer }) => {
    const res = await completeOnboarding(customer);
    expect(res.json.redirect).toBe("/auth");
    expect(res.json.body).toMatchObject({ identity: true, account: true });
    const me = await whoami(customer.client);
    expect(me.identity).toBe(true);
    expect(me.account).toBe(true);
    expect(me.account_ref).toMatch(/^P\d{8}$/);

    const sent = await accountEmails(app, customer.email);
    expect(sent).toHaveLength(1);
    expect(sent[0].text).toContain(me.account_ref);

    // Confirming again opens nothing new and sends nothing new.
    expectStatus(await customer.client.get("sumsub/confirm"), 200);
    expect((await whoami(customer.client)).account_ref).toBe(me.account_ref);
    expect(await accountEmails(app, customer.email)).toHaveLength(1);

    // Once the account is open, the profile is no longer the customer's to change.
    expectStatus(await customer.client.post("account/profile", personalProfile({ first: "Augusta" })), 409);
  });

  test.for<[string, Record<string, unknown>]>([
    ["politically exposed (public: true)", { public: true }],
    ["refused before (denial: true)", { denial: true }],
    ["acting for someone else (agency: true)", { agency: true, agency_of: "Lord Byron" }],
  ])(
    "a Personal customer %s is approved but waits for a review: no account, /auth goes to /processing",
    async ([_what, flags], { app, customer }) => {
      const res = await completeOnboarding(customer, { profile: personalProfile(flags) });
      expect(res.json.body).toMatchObject({ identity: true, account: false, account_ref: null });
      expect((await whoami(customer.client)).account).toBe(false);
      expect(await authGoesTo(customer.client)).toBe("/processing");
      expect(await accountEmails(app, customer.email)).toHaveLength(0);
    },
  );
});

describe("a Business account, opened by an administrator", () => {
  let customer: Customer;
  test.beforeAll(async ({ app }) => {
    customer = await registerCustomer(app, { type: "Business" });
    const res = await completeOnboarding(customer);
    expect(res.json.body).toMatchObject({ identity: true, account: false });
  });

  test("there is no account before the review", async () => {
    expect((await whoami(customer.client)).account).toBe(false);
    expect(await authGoesTo(customer.client)).toBe("/processing");
  });

  test("a customer calling the console is answered 404 and opens nothing", async ({ app }) => {
    const res = await customer.client.post(`console/users/${customer.id}/open-account`, {
      compliance: { done: true, amount: "1000", date: app.clock.today() },
    });
    expectStatus(res, 404);
    expectStatus(await customer.client.get("console/users"), 404);
    expect((await whoami(customer.client)).account).toBe(false);
  });

  test("compliance done without an amount: 422 'Amount is required when setting compliance.'", async ({ app, admin }) => {
    const res = await admin.client.post(`console/users/${customer.id}/open-account`, {
      compliance: { done: true, date: app.clock.today() },
    });
    expectStatus(res, 422);
    expect(res.json.error).toBe("Amount is required when setting compliance.");
    expect((await whoami(customer.client)).account).toBe(false);
  });

  test("compliance done without a date: 422 'Date is required when when setting compliance.'", async ({ admin }) => {
    const res = await admin.client.post(`console/users/${customer.id}/open-account`, {
      compliance: { done: true, amount: "250000" },
    });
    expectStatus(res, 422);
    expect(res.json.error).toBe("Date is required when when setting compliance.");
    expect((await whoami(customer.client)).account).toBe(false);
  });

  test("compliance not done: no account", async ({ admin }) => {
    const res = await admin.client.post(`console/users/${customer.id}/open-account`, { compliance: { done: false } });
    expectStatus(res, 422);
    expect((await whoami(customer.client)).account).toBe(false);
  });

  test("with amount and date the account opens (B + 8 digits), and the audit log has account.open", async ({ app, admin }) => {
    const res = await admin.client.post(`console/users/${customer.id}/open-account`, {
      compliance: { done: true, amount: "250,000", date: app.clock.today() },
    });
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({ id: customer.id, account: true });
    expect(res.json.body.account_ref).toMatch(/^B\d{8}$/);

    const me = await whoami(customer.client);
    expect(me.account).toBe(true);
    expect(me.account_ref).toBe(res.json.body.account_ref);

    const [row] = await app.db.select().from(profiles).where(eq(profiles.userId, customer.id));
    expect(row).toMatchObject({ complianceDone: true, complianceAmount: "250000", complianceDate: app.clock.today() });

    const entries = await app.db.select().from(auditLog).where(
      and(eq(auditLog.action, "account.open"), eq(auditLog.subjectId, customer.id)),
    );
    expect(entries).toHaveLength(1);
    expect(entries[0].actorId).toBe(admin.id);

    const console = await admin.client.get(`console/audit?customer=${customer.id}`);
    expectStatus(console, 200);
    expect(console.json.body.map((e: { action: string }) => e.action)).toContain("account.open");
    expect(await accountEmails(app, customer.email)).toHaveLength(1);
  });

  test("a refused open-account call (compliance not done) leaves the compliance record of the open account as it was", async ({ app, admin }) => {
    const [before] = await app.db.select().from(profiles).where(eq(profiles.userId, customer.id));
    expect(before.complianceDone).toBe(true);
    const res = await admin.client.post(`console/users/${customer.id}/open-account`, { compliance: { done: false } });
    // Refused because the account is already open, before anything is written.
    expectStatus(res, 409);
    const [after] = await app.db.select().from(profiles).where(eq(profiles.userId, customer.id));
    expect(after).toMatchObject({
      complianceDone: true,
      complianceAmount: "250000",
      complianceDate: app.clock.today(),
    });
  });

  test("an administrator cannot open an account for a customer without an approved identity", async ({ app, admin }) => {
    const early = await registerCustomer(app, { type: "Business" });
    expectStatus(await early.client.post("account/profile", businessProfile()), 200);
    const res = await admin.client.post(`console/users/${early.id}/open-account`, {
      compliance: { done: true, amount: "1000", date: app.clock.today() },
    });
    expectStatus(res, 409);
    expect((await whoami(early.client)).account).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// Sumsub's webhook

const WEBHOOK_SECRET = "whsec-test-Qm7";
const SUMSUB_ENV = { SUMSUB_APP_TOKEN: "sbx:app-token", SUMSUB_SECRET_KEY: "secret-key" };

function reviewed(userId: number, createdAtMs: string, reviewResult: Record<string, unknown>) {
  return {
    applicantId: `65f0c0ffee${String(userId).padStart(14, "0")}`,
    inspectionId: "65f0c0ffee00000000000001",
    correlationId: `req-${userId}-${createdAtMs}`,
    externalUserId: `portal-${userId}`,
    levelName: "basic-kyc-level",
    type: "applicantReviewed",
    reviewStatus: "completed",
    reviewResult,
    createdAtMs,
  };
}

function signed(body: string, alg = "HMAC_SHA256_HEX", hash = "sha256", secret = WEBHOOK_SECRET) {
  return {
    "x-payload-digest": createHmac(hash, secret).update(body).digest("hex"),
    "x-payload-digest-alg": alg,
  };
}

/**
 * `webhookApp`: a portal of the file's own that talks to Sumsub and knows the webhook's secret;
 * `webhookCustomer`: a customer there; `sumsub`: Sumsub's servers (no browser Origin, no cookies).
 */
const webhookTest = test
  // An approval reads the document's data from Sumsub (decision 085): a local stand-in answers.
  // deno-lint-ignore no-empty-pattern
  .extend("sumsubApi", { scope: "file" }, async ({}, { onCleanup }) => {
    const api = await sumsubStandIn();
    onCleanup(api.close);
    return api;
  })
  .extend(
    "webhookApp",
    { scope: "file" },
    ({ startApp, sumsubApi }) =>
      startApp({ env: { ...SUMSUB_ENV, SUMSUB_BASE_URL: sumsubApi.baseUrl, SUMSUB_WEBHOOK_SECRET: WEBHOOK_SECRET } }),
  )
  .extend("webhookCustomer", ({ webhookApp }) => registerCustomer(webhookApp))
  .extend("sumsub", ({ webhookApp }) => new TestClient(webhookApp, { origin: null }));

describe("Sumsub's webhook", () => {
  async function checkOf(app: SigninApp, userId: number) {
    const [row] = await app.db.select().from(identityChecks).where(eq(identityChecks.userId, userId));
    return row;
  }

  webhookTest(
    "a correctly signed applicantReviewed event is 200 and updates the check",
    async ({ webhookApp: app, webhookCustomer: customer, sumsub }) => {
      const body = JSON.stringify(reviewed(customer.id, "2026-03-02 09:00:00.000", { reviewAnswer: "GREEN" }));
      const res = await sumsub.post("sumsub/webhook", body, signed(body));
      expectStatus(res, 200);
      expect(res.json.body.ok).toBe(true);
      expect(await checkOf(app, customer.id)).toMatchObject({ provider: "sumsub", status: "approved" });
      expect((await whoami(customer.client)).identity).toBe(true);
    },
  );

  webhookTest(
    "a tampered body is 401 and changes nothing",
    async ({ webhookApp: app, webhookCustomer: customer, sumsub }) => {
      const body = JSON.stringify(reviewed(customer.id, "2026-03-02 09:05:00.000", {
        reviewAnswer: "RED",
        reviewRejectType: "FINAL",
        moderationComment: "Refused.",
      }));
      const headers = signed(body);
      const tampered = body.replace('"RED"', '"GREEN"');
      expect(tampered).not.toBe(body);
      const res = await sumsub.post("sumsub/webhook", tampered, headers);
      expectStatus(res, 401);
      expect(await checkOf(app, customer.id)).toBeUndefined();
      expect((await whoami(customer.client)).identity).toBe(false);
    },
  );

  webhookTest(
    "a digest labelled with the wrong algorithm is 401",
    async ({ webhookApp: app, webhookCustomer: customer, sumsub }) => {
      const body = JSON.stringify(reviewed(customer.id, "2026-03-02 09:10:00.000", { reviewAnswer: "GREEN" }));
      const sha256 = signed(body);
      for (const alg of ["HMAC_SHA1_HEX", "HMAC_SHA512_HEX", "SHA256", "hmac_sha256_hex"]) {
        const res = await sumsub.post("sumsub/webhook", body, { ...sha256, "x-payload-digest-alg": alg });
        expectStatus(res, 401);
      }
      const noAlg = await sumsub.post("sumsub/webhook", body, { "x-payload-digest": sha256["x-payload-digest"] });
      expectStatus(noAlg, 401);
      const otherSecret = await sumsub.post(
        "sumsub/webhook",
        body,
        signed(body, "HMAC_SHA256_HEX", "sha256", "not-the-secret"),
      );
      expectStatus(otherSecret, 401);
      expect(await checkOf(app, customer.id)).toBeUndefined();
    },
  );

  webhookTest(
    "the same event delivered again is 200 and changes nothing",
    async ({ webhookApp: app, webhookCustomer: customer, sumsub }) => {
      // Both reviews happened in our past: an event from our future is refused (decision 023).
      app.clock.set(Math.max(app.clock.now(), Date.UTC(2026, 2, 2, 9, 20)));
      const retry = JSON.stringify(reviewed(customer.id, "2026-03-02 09:15:00.000", {
        reviewAnswer: "RED",
        reviewRejectType: "RETRY",
        moderationComment: "Please upload the back of your ID card.",
      }));
      const green = JSON.stringify(reviewed(customer.id, "2026-03-02 09:20:00.000", { reviewAnswer: "GREEN" }));
      expectStatus(await sumsub.post("sumsub/webhook", retry, signed(retry)), 200);
      expect(await checkOf(app, customer.id)).toMatchObject({ status: "retry" });
      expectStatus(await sumsub.post("sumsub/webhook", green, signed(green)), 200);
      const approved = await checkOf(app, customer.id);
      expect(approved).toMatchObject({ status: "approved" });

      app.clock.advance(5 * MINUTE);
      for (const body of [green, retry]) {
        const res = await sumsub.post("sumsub/webhook", body, signed(body, "HMAC_SHA512_HEX", "sha512"));
        expectStatus(res, 200);
        expect(res.json.body).toEqual({ ok: true, outcome: "duplicate" });
      }
      expect(await checkOf(app, customer.id)).toEqual(approved);
    },
  );

  test("without SUMSUB_WEBHOOK_SECRET the webhook does not exist: 404", async ({ app, startApp }) => {
    const noSecret = await startApp({ env: SUMSUB_ENV });
    const body = JSON.stringify(reviewed(1, "2026-03-02 09:00:00.000", { reviewAnswer: "GREEN" }));
    expectStatus(await new TestClient(noSecret, { origin: null }).post("sumsub/webhook", body, signed(body)), 404);
    // Nor with the sandbox provider.
    expectStatus(await new TestClient(app, { origin: null }).post("sumsub/webhook", body, signed(body)), 404);
  });
});
