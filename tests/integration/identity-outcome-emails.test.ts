import { createHmac } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { describe, expect, vi } from "vitest";
import { emails } from "../../db/schema.ts";
import { expectStatus, personalProfile, registerCustomer, TestClient } from "../helpers/client.ts";
import { type SigninApp, test } from "../helpers/fixtures.ts";
import { sumsubStandIn } from "../helpers/sumsub-stand-in.ts";

/**
 * Sumsub's verdict arrives by webhook, minutes or days after the customer left the identity page.
 * A customer asked to try again, or refused, is told by email: otherwise they would learn it only
 * if they came back on their own, and one asked for a clearer photo would wait for an account that
 * never opens.
 */

vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

const WEBHOOK_SECRET = "whsec-outcome-Q1";

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
  .extend("sumsubCustomer", ({ sumsubApp }) => registerCustomer(sumsubApp));

async function reviewed(
  app: SigninApp,
  userId: number,
  result: Record<string, unknown>,
  id: string,
  outcome = "applied",
) {
  const body = JSON.stringify({
    applicantId: `applicant-${userId}`,
    correlationId: id,
    externalUserId: `portal-${userId}`,
    type: "applicantReviewed",
    reviewStatus: "completed",
    reviewResult: result,
    createdAtMs: new Date(app.clock.now()).toISOString(),
  });
  const hook = await new TestClient(app, { origin: null }).post("sumsub/webhook", body, {
    "x-payload-digest": createHmac("sha256", WEBHOOK_SECRET).update(body).digest("hex"),
    "x-payload-digest-alg": "HMAC_SHA256_HEX",
  });
  expectStatus(hook, 200);
  expect(hook.json.body.outcome).toBe(outcome);
}

const mailsOf = (app: SigninApp, to: string, template: string) =>
  app.db.select().from(emails).where(and(eq(emails.to, to), eq(emails.template, template)));

describe("the identity check's verdict by webhook", () => {
  sumsubTest("asked to try again: the customer is emailed the reason and a link back", async ({
    sumsubApp: app,
    sumsubCustomer: customer,
  }) => {
    expectStatus(await customer.client.post("account/profile", personalProfile()), 200);
    const comment = "The photo of your document is blurred. Please upload a sharper one.";
    await reviewed(app, customer.id, {
      reviewAnswer: "RED",
      reviewRejectType: "RETRY",
      moderationComment: comment,
    }, "retry-1");

    const [mail] = await mailsOf(app, customer.email, "identity-check-retry");
    expect(mail, "an email asking to try again").toBeDefined();
    expect(mail.subject).toBe("Please try your identity check again");
    expect(mail.text).toContain(comment);
    expect(mail.text).toContain(`${app.config.publicUrl}/identity`);
    expect(mail.text).toContain("Ada");
    // The same event delivered again, or the same verdict sent again, tells nobody twice.
    const retry = { reviewAnswer: "RED", reviewRejectType: "RETRY", moderationComment: comment };
    await reviewed(app, customer.id, retry, "retry-1", "duplicate");
    await reviewed(app, customer.id, retry, "retry-1-again");
    expect(await mailsOf(app, customer.email, "identity-check-retry")).toHaveLength(1);
  });

  sumsubTest("refused: the customer is told, with where to write", async ({
    sumsubApp: app,
    sumsubCustomer: customer,
  }) => {
    expectStatus(await customer.client.post("account/profile", personalProfile()), 200);
    await reviewed(app, customer.id, {
      reviewAnswer: "RED",
      reviewRejectType: "FINAL",
      moderationComment: "We could not verify your identity.",
    }, "final-1");

    const [mail] = await mailsOf(app, customer.email, "identity-check-refused");
    expect(mail, "an email saying the check was refused").toBeDefined();
    expect(mail.subject).toBe("We could not verify your identity");
    expect(mail.text).toContain("We could not verify your identity.");
    expect(mail.text).toContain(app.config.supportEmail);
  });
});

describe("an approval by webhook", () => {
  sumsubTest("opens the account of a customer who needs no review, and tells them", async ({
    sumsubApp: app,
    sumsubApi: api,
    sumsubCustomer: customer,
  }) => {
    expectStatus(await customer.client.post("account/profile", personalProfile()), 200);
    expectStatus(await customer.client.get("sumsub/token"), 200);
    const applicant = api.applicants.get(`portal-${customer.id}`)!;
    applicant.review = {
      reviewStatus: "completed",
      reviewDate: "2026-03-02 08:00:00+0000",
      reviewResult: { reviewAnswer: "GREEN" },
    };
    applicant.info = { firstName: "Ada", lastName: "Lovelace", dob: "1990-05-17" };
    // The customer is not on the site: Sumsub's reviewer decided a day later.
    await reviewed(app, customer.id, { reviewAnswer: "GREEN" }, "green-1");

    const [mail] = await mailsOf(app, customer.email, "account-opened");
    expect(mail, "the account-opened email").toBeDefined();
    expect(mail.subject).toBe("Your account is open");
    const summary = await customer.client.get("account/whoami");
    expect(mail.text).toContain(summary.json.body.account_ref);
    // The account's page, where the bank details to fund it are, one click away.
    expect(mail.text).toContain(`${app.config.publicUrl}/account\n`);
  });

  for (
    const [what, info] of [
      ["another person's document", { firstName: "Grace", lastName: "Hopper", dob: "1906-12-09" }],
      ["a document nothing was read from", undefined],
    ] as const
  ) {
    sumsubTest(`with ${what}, waits for the compliance review: no account, no account-opened email`, async ({
      sumsubApp: app,
      sumsubApi: api,
      sumsubCustomer: customer,
    }) => {
      expectStatus(await customer.client.post("account/profile", personalProfile()), 200);
      expectStatus(await customer.client.get("sumsub/token"), 200);
      const applicant = api.applicants.get(`portal-${customer.id}`)!;
      applicant.review = {
        reviewStatus: "completed",
        reviewDate: "2026-03-02 08:00:00+0000",
        reviewResult: { reviewAnswer: "GREEN" },
      };
      applicant.info = info;
      await reviewed(app, customer.id, { reviewAnswer: "GREEN" }, `green-${what}`);

      expect(await mailsOf(app, customer.email, "account-opened")).toHaveLength(0);
      expect((await customer.client.get("account/whoami")).json.body.account_ref).toBeFalsy();
    });
  }
});
