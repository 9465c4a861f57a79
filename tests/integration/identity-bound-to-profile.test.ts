import { createHmac } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { describe, expect, vi } from "vitest";
import { emails, identityChecks, profiles } from "../../db/schema.ts";
import { consoleAlerts } from "../../db/schema-console.ts";
import { IDENTITY_MISMATCH_TEXT } from "../../lib/compliance.ts";
import { saveProfile } from "../../server/profile/store.ts";
import { recordResult } from "../../server/identity/store.ts";
import { createAdmin, expectStatus, personalProfile, registerCustomer, TestClient } from "../helpers/client.ts";
import { type SigninApp, test } from "../helpers/fixtures.ts";
import { sumsubStandIn } from "../helpers/sumsub-stand-in.ts";

/**
 * The identity check is tied to the profile (decision 085). The customer declares Ada Lovelace:
 * Sumsub is given that name, date of birth and country before the check, and when the provider
 * approves, what it read from the document is compared with the profile. Someone else's document
 * never opens Ada's account at once: she waits on /processing, and the administrator reviewing her
 * sees why. Tried with Sumsub (a local stand-in) and with the built-in sandbox.
 */

vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

const ADA = personalProfile();
const WEBHOOK_SECRET = "whsec-bound-Q1";
/** A page's text as a person reads it: no tags, one space, the apostrophes React escapes. */
const page = (html: string) => html.replace(/<[^>]+>/g, " ").replace(/&#x27;/g, "'").replace(/\s+/g, " ");

async function authGoesTo(client: TestClient): Promise<string | null> {
  const res = await client.get("/auth");
  expect(res.status).toBe(302);
  return res.headers.get("location");
}

async function accountOpened(app: SigninApp, to: string): Promise<boolean> {
  const sent = await app.db.select().from(emails).where(and(eq(emails.to, to), eq(emails.template, "account-opened")));
  return sent.length > 0;
}

async function reviewOf(app: SigninApp, userId: number) {
  const [row] = await app.db.select().from(consoleAlerts)
    .where(eq(consoleAlerts.dedupeKey, `compliance_review:${userId}`));
  return row;
}

const sumsubTest = test
  // deno-lint-ignore no-empty-pattern
  .extend("sumsubApi", { scope: "file" }, async ({}, { onCleanup }) => {
    const api = await sumsubStandIn();
    onCleanup(api.close);
    return api;
  })
  .extend("sumsubApp", { scope: "file" }, ({ startApp, sumsubApi }) =>
    startApp({
      env: {
        SUMSUB_APP_TOKEN: "sbx:app-token",
        SUMSUB_SECRET_KEY: "secret-key",
        SUMSUB_BASE_URL: sumsubApi.baseUrl,
        SUMSUB_WEBHOOK_SECRET: WEBHOOK_SECRET,
        SUMSUB_LEVEL_NAME: "basic-kyc-level",
      },
    }))
  .extend("sumsubCustomer", ({ sumsubApp }) => registerCustomer(sumsubApp))
  .extend("sumsubAdmin", { scope: "file" }, ({ sumsubApp }) => createAdmin(sumsubApp));

/** Sumsub has reviewed the customer's applicant GREEN, having read `info` from the document. */
function approveInSumsub(api: { applicants: Map<string, Record<string, unknown>> }, userId: number, info: unknown) {
  const applicant = api.applicants.get(`portal-${userId}`)!;
  applicant.review = {
    reviewStatus: "completed",
    reviewDate: "2026-03-02 08:00:00+0000",
    reviewResult: { reviewAnswer: "GREEN" },
  };
  applicant.info = info;
}

describe("with Sumsub", () => {
  sumsubTest(
    "starting the check gives Sumsub the profile's name, date of birth and country, and nothing else",
    async ({ sumsubApi: api, sumsubCustomer: customer }) => {
      expectStatus(await customer.client.post("account/profile", ADA), 200);
      expectStatus(await customer.client.get("sumsub/token"), 200);
      const created = api.seen.find((r) => r.method === "POST" && r.url.startsWith("/resources/applicants?"));
      expect(created?.body).toEqual({
        externalUserId: `portal-${customer.id}`,
        fixedInfo: { firstName: "Ada", lastName: "Lovelace", dob: "1990-05-17", country: "GBR" },
      });
      // The profile's name is now what the check binds: the customer can no longer change it.
      const renamed = await customer.client.post("account/profile", { ...ADA, first: "Bea" });
      expectStatus(renamed, 409);
      expect(renamed.json.error).toContain("Your identity check has started");
      // The rest stays theirs to correct until the approval.
      expectStatus(await customer.client.post("account/profile", { ...ADA, employment: "Self-employed" }), 200);
    },
  );

  sumsubTest(
    "another person's document approved by Sumsub leaves the customer on /processing, and the reviewer sees why",
    async ({ sumsubApp: app, sumsubApi: api, sumsubCustomer: customer, sumsubAdmin: admin }) => {
      expectStatus(await customer.client.post("account/profile", ADA), 200);
      expectStatus(await customer.client.get("sumsub/token"), 200);
      approveInSumsub(api, customer.id, { firstName: "BOB", lastName: "SMITH", dob: "1970-01-01", country: "GBR" });

      const confirmed = await customer.client.get("sumsub/confirm");
      expectStatus(confirmed, 200);
      expect(confirmed.json.body).toMatchObject({ identity: true, account: false });
      expect(await authGoesTo(customer.client)).toBe("/processing");
      expect(await accountOpened(app, customer.email)).toBe(false);
      const review = await reviewOf(app, customer.id);
      expect(review?.message).toContain(IDENTITY_MISMATCH_TEXT.name_and_dob);

      const console = page((await admin.client.get(`/console/users/${customer.id}`)).text);
      expect(console).toContain(`${IDENTITY_MISMATCH_TEXT.name_and_dob}.`);
      expect(console).toContain("Name on the document BOB SMITH");
      expect(console).toContain("Date of birth on the document 1970-01-01");

      // Confirming again opens nothing: only the administrator's review does.
      expectStatus(await customer.client.get("sumsub/confirm"), 200);
      expect(await accountOpened(app, customer.email)).toBe(false);
    },
  );

  sumsubTest(
    "the customer's own document, as the passport spells it, opens the account at once",
    async ({ sumsubApp: app, sumsubApi: api, sumsubCustomer: customer }) => {
      expectStatus(await customer.client.post("account/profile", ADA), 200);
      expectStatus(await customer.client.get("sumsub/token"), 200);
      approveInSumsub(api, customer.id, { firstName: "ADA AUGUSTA", lastName: "LOVELACE", dob: "1990-05-17" });
      const confirmed = await customer.client.get("sumsub/confirm");
      expectStatus(confirmed, 200);
      expect(confirmed.json.body).toMatchObject({ identity: true, account: true });
      expect(await reviewOf(app, customer.id)).toBeUndefined();
    },
  );

  sumsubTest(
    "an approval by webhook reads the document from Sumsub too: a wrong date of birth waits for the review",
    async ({ sumsubApp: app, sumsubApi: api, sumsubCustomer: customer }) => {
      expectStatus(await customer.client.post("account/profile", ADA), 200);
      expectStatus(await customer.client.get("sumsub/token"), 200);
      approveInSumsub(api, customer.id, { firstName: "Ada", lastName: "Lovelace", dob: "1991-05-17" });
      const body = JSON.stringify({
        applicantId: api.applicants.get(`portal-${customer.id}`)!.id,
        correlationId: `req-bound-${customer.id}`,
        externalUserId: `portal-${customer.id}`,
        type: "applicantReviewed",
        reviewStatus: "completed",
        reviewResult: { reviewAnswer: "GREEN" },
        createdAtMs: new Date(app.clock.now()).toISOString(),
      });
      const hook = await new TestClient(app, { origin: null }).post("sumsub/webhook", body, {
        "x-payload-digest": createHmac("sha256", WEBHOOK_SECRET).update(body).digest("hex"),
        "x-payload-digest-alg": "HMAC_SHA256_HEX",
      });
      expectStatus(hook, 200);
      expect(hook.json.body.outcome).toBe("applied");
      expect((await reviewOf(app, customer.id))?.message).toContain(IDENTITY_MISMATCH_TEXT.dob);

      expectStatus(await customer.client.get("sumsub/confirm"), 200);
      expect(await authGoesTo(customer.client)).toBe("/processing");
      expect(await accountOpened(app, customer.email)).toBe(false);
    },
  );
});

describe("with the sandbox provider", () => {
  test(
    "presenting another person's document leaves the customer on /processing, and the reviewer sees why",
    async ({ app, customer, admin }) => {
      expectStatus(await customer.client.post("account/profile", ADA), 200);
      const answered = await customer.client.post("sumsub/sandbox", { answer: "GREEN", document: "another" });
      expectStatus(answered, 200);
      expect(answered.json.body).toEqual({ status: "approved" });
      const confirmed = await customer.client.get("sumsub/confirm");
      expectStatus(confirmed, 200);
      expect(confirmed.json.body).toMatchObject({ identity: true, account: false });
      expect(await authGoesTo(customer.client)).toBe("/processing");
      expect(await accountOpened(app, customer.email)).toBe(false);

      const console = page((await admin.client.get(`/console/users/${customer.id}`)).text);
      expect(console).toContain("The identity check");
      expect(console).toContain(`${IDENTITY_MISMATCH_TEXT.name_and_dob}.`);
      expect(console).toContain("Name on the document Morgan Sample");

      // The administrator decides: their review opens the account.
      const opened = await admin.client.post(`console/users/${customer.id}/open-account`, {
        compliance: { done: true, amount: "50000", date: app.clock.today() },
      });
      expectStatus(opened, 200);
      expect(await accountOpened(app, customer.email)).toBe(true);
    },
  );

  test("the profile's own document (the default) opens the account at once", async ({ app, customer }) => {
    expectStatus(await customer.client.post("account/profile", ADA), 200);
    expectStatus(await customer.client.post("sumsub/sandbox", { answer: "GREEN" }), 200);
    expect((await customer.client.get("sumsub/confirm")).json.body).toMatchObject({ account: true });
    expect(await reviewOf(app, customer.id)).toBeUndefined();
  });

  test("after a check asked to retry, the name and date of birth are no longer the customer's to change", async ({ customer }) => {
    expectStatus(await customer.client.post("account/profile", ADA), 200);
    expectStatus(await customer.client.post("sumsub/sandbox", { answer: "RED", reject_type: "RETRY" }), 200);
    expectStatus(await customer.client.post("account/profile", { ...ADA, dob: "1980-01-01" }), 409);
    expectStatus(await customer.client.post("account/profile", { ...ADA, last: "Byron" }), 409);
    expectStatus(
      await customer.client.post("account/profile", {
        ...ADA,
        address: { ...ADA.address as object, country: "FR", postcode: "75001" },
      }),
      409,
    );
    expectStatus(await customer.client.post("account/profile", { ...ADA, employment: "Retired", position: "" }), 200);
    // The form says so before the customer tries, and shows those details read-only.
    const html = (await customer.client.get("/register-personal")).text;
    const form = page(html);
    expect(form).toContain(
      "Your identity check has started: it compares your document with the name, date of birth and country you gave.",
    );
    for (const id of ["pf-first", "pf-last", "pf-dob", "pf-address-country"]) {
      expect(html, id).toMatch(
        new RegExp(`<input[^>]*id="${id}"[^>]*readOnly|<input[^>]*readOnly[^>]*id="${id}"`, "i"),
      );
    }
    expect(html).not.toMatch(/<select[^>]*id="pf-address-country"/);
    expect(html).toMatch(/<input[^>]*id="pf-employment"|<select[^>]*id="pf-employment"/);
    expect(html).not.toMatch(/<(input|select)[^>]*readOnly[^>]*id="pf-employment"/i);
  });
});

describe("a profile save that meets an approval", () => {
  test("is refused when the check was approved after the request read who the customer is", async ({ app, customer }) => {
    expectStatus(await customer.client.post("account/profile", ADA), 200);
    // The request saw a customer without an approved check (its session's summary); the provider's
    // approval commits before the save reaches the database.
    const asSeen = { id: customer.id, type: "Personal" as const, account: false, identity: false };
    await app.db.insert(identityChecks).values({
      userId: customer.id,
      provider: "sandbox",
      status: "approved",
      reviewedAt: new Date(),
      updatedAt: new Date(),
    });
    // Answers the approval judged ("not politically exposed") are no longer the customer's to change.
    await expect(saveProfile(app.db, asSeen, { ...ADA, public: true }, new Date(), "support@portal.test"))
      .rejects.toThrow("Your details were verified: write to us at support@portal.test to change your profile.");
    const [saved] = await app.db.select({ data: profiles.data }).from(profiles).where(eq(profiles.userId, customer.id));
    expect(saved.data).toMatchObject({ public: false });
  });
});

describe("a review already waiting when the check is approved again", () => {
  test("records that the document approved this time is another person's", async ({ app, admin, customer }) => {
    // Ada says she is politically exposed: her approval waits for the review, queued with it.
    expectStatus(await customer.client.post("account/profile", { ...ADA, public: true }), 200);
    const at = (minutes: number) => new Date(Date.parse("2026-03-02T08:00:00Z") + minutes * 60_000);
    const ada = { firstName: "Ada", lastName: "Lovelace", dob: "1990-05-17" };
    await recordResult(app.db, customer.id, "sumsub", { status: "approved", reviewedAt: at(0), document: ada }, at(0));
    expect((await reviewOf(app, customer.id)).subject).not.toHaveProperty("identity_mismatch");

    // Sumsub reopens the check, and approves another person's document.
    await recordResult(app.db, customer.id, "sumsub", { status: "retry", reviewedAt: at(10) }, at(10));
    const other = { firstName: "Morgan", lastName: "Sample", dob: "1980-01-01" };
    await recordResult(
      app.db,
      customer.id,
      "sumsub",
      { status: "approved", reviewedAt: at(20), document: other },
      at(20),
    );

    const review = await reviewOf(app, customer.id);
    expect(review.resolvedAt).toBeNull();
    expect(review.subject).toMatchObject({ identity_mismatch: "name_and_dob" });
    expect(review.message).toContain(`${IDENTITY_MISMATCH_TEXT.name_and_dob}.`);
    const console = page((await admin.client.get(`/console/users/${customer.id}`)).text);
    expect(console).toContain(`${IDENTITY_MISMATCH_TEXT.name_and_dob}.`);
    expect(console).toContain("Name on the document Morgan Sample");
  });
});
