import { and, eq, gt, sql } from "drizzle-orm";
import { describe, expect, vi } from "vitest";
import { emails, users } from "../../db/schema.ts";
import { TOTP_STEP_S, totpAt, totpKeyFromText, totpStepAt } from "../../server/auth/totp.ts";
import {
  type Customer,
  emailedCode,
  emailedToken,
  expectRefusedWithTriesLeft,
  expectStatus,
  PASSWORD,
  registerCustomer,
  SECOND,
  signIn,
  TestClient,
  uniqueEmail,
} from "../helpers/client.ts";
import { type SigninApp, test } from "../helpers/fixtures.ts";

/**
 * The authenticator app (POST account/totp/setup, /enable, DELETE account/totp) and the second
 * factor it gives at login; requests that another site makes a browser send.
 */

// Argon2 hashing makes every registration and login take a while on a busy machine.
vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

const STEP_MS = TOTP_STEP_S * SECOND;

async function lastEmailId(app: SigninApp) {
  const [{ id }] = await app.db.select({ id: sql<number>`coalesce(max(${emails.id}), 0)` }).from(emails);
  return id;
}
async function codeEmailsSince(app: SigninApp, to: string, since: number) {
  return (await app.db.select().from(emails).where(
    and(eq(emails.to, to), gt(emails.id, since), eq(emails.template, "second-factor-code")),
  )).length;
}

/** Moves the clock to 5 s into the next time step, so a step's code is read well inside it. */
function nextStep(app: SigninApp, steps = 1) {
  const step = totpStepAt(app.clock.now());
  app.clock.set((step + steps) * STEP_MS + 5 * SECOND);
  return step + steps;
}

describe("turning on the authenticator app", () => {
  test("setup needs a signed-in user who passed the second factor", async ({ app, customer }) => {
    expectStatus(await new TestClient(app).post("account/totp/setup"), 401);
    const halfway = new TestClient(app);
    expectStatus(await halfway.post("auth/login", { email: customer.email, password: customer.password }), 200);
    const res = await halfway.post("account/totp/setup");
    expectStatus(res, 403);
    expect(res.json.redirect).toBe("/second-factor");
  });

  test("setup answers a new key that is not in use until a code from it is given", async ({ app, customer }) => {
    const res = await customer.client.post("account/totp/setup", { password: customer.password });
    expectStatus(res, 200);
    expect(res.json.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(res.json.body.uri).toMatch(/^otpauth:\/\/totp\//);
    expect(res.json.body.uri).toContain(`secret=${res.json.body.secret}`);

    // Not enabled: the next login still emails a code.
    const since = await lastEmailId(app);
    const client = new TestClient(app);
    expectStatus(await client.post("auth/login", { email: customer.email, password: customer.password }), 200);
    expect(await codeEmailsSince(app, customer.email, since)).toBe(1);
  });

  test("a wrong code does not turn it on", async ({ app, customer }) => {
    const { secret } = (await customer.client.post("account/totp/setup", { password: customer.password })).json.body;
    const key = totpKeyFromText(secret);
    const right = totpAt(key, totpStepAt(app.clock.now()));
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, "0");
    const res = await customer.client.post("account/totp/enable", { code: wrong });
    // 422 naming the code (docs/API.md says 401 'Bad credentials'; a 401 would sign the user out).
    expectStatus(res, 422);
    expect(res.json.fields.code).toBeTruthy();
    const [row] = await app.db.select({ totpSecret: users.totpSecret }).from(users).where(eq(users.id, customer.id));
    expect(row.totpSecret).toBeNull();
    // The customer is still signed in (a mistyped code while enrolling is not a failed sign-in).
    expectStatus(await customer.client.get("account/whoami"), 200);
  });
});

describe("the owner is told", () => {
  async function noticesTo(app: SigninApp, to: string) {
    return await app.db.select().from(emails).where(
      and(eq(emails.to, to), eq(emails.template, "authenticator-changed")),
    )
      .orderBy(emails.id);
  }

  test("when the authenticator app is turned on, and when it is turned off, as when the password changes", async ({ app, customer }) => {
    const { secret } = (await customer.client.post("account/totp/setup", { password: customer.password })).json.body;
    nextStep(app);
    const code = totpAt(totpKeyFromText(secret), totpStepAt(app.clock.now()));
    expectStatus(await customer.client.post("account/totp/enable", { code }), 200);
    expectStatus(await customer.client.delete("account/totp", { password: customer.password }), 200);

    const notices = await noticesTo(app, customer.email);
    expect(notices.map((n) => n.subject)).toEqual([
      "An authenticator app was set up for your Portal account",
      "The authenticator app of your Portal account was turned off",
    ]);
    // Someone else at an unattended session would be noticed: the owner is told what to do.
    expect(notices[1].text).toContain("reset your password");
  });
});

describe("signing in with the authenticator app", () => {
  let customer: Customer;
  let key: Uint8Array;

  test.beforeAll(async ({ app }) => {
    customer = await registerCustomer(app);
    const { secret } = (await customer.client.post("account/totp/setup", { password: customer.password })).json.body;
    key = totpKeyFromText(secret);
    nextStep(app);
    const res = await customer.client.post("account/totp/enable", {
      code: totpAt(key, totpStepAt(app.clock.now())),
    });
    expectStatus(res, 200);
    expect(res.json.body.id).toBe(customer.id);
  });

  async function login(app: SigninApp) {
    const client = new TestClient(app);
    const res = await client.post("auth/login", { email: customer.email, password: customer.password });
    expectStatus(res, 200);
    expect(res.json.body.secondFactor).toBe(false);
    return client;
  }

  test("a login asks for the app's code: no code is emailed; the current code passes", async ({ app }) => {
    const step = nextStep(app);
    const since = await lastEmailId(app);
    const client = await login(app);
    expect(await codeEmailsSince(app, customer.email, since)).toBe(0);
    expect((await client.get("account/whoami")).json.body.secondFactor).toBe(false);

    const res = await client.post("challenge", { token: totpAt(key, step) });
    expectStatus(res, 200);
    expect(res.json.body.secondFactor).toBe(true);
    expect((await client.get("account/whoami")).json.body.secondFactor).toBe(true);
  });

  test("no code is accepted twice: the same code in a new login is refused", async ({ app }) => {
    const step = nextStep(app);
    const first = await login(app);
    expectStatus(await first.post("challenge", { token: totpAt(key, step) }), 200);
    const second = await login(app);
    const res = await second.post("challenge", { token: totpAt(key, step) });
    expectRefusedWithTriesLeft(res, "That code is not right.", 4);
    expect((await second.get("account/whoami")).json.body.secondFactor).toBe(false);
  });

  test("the code used to turn the app on does not sign in", async ({ app, customer: other }) => {
    const { secret } = (await other.client.post("account/totp/setup", { password: other.password })).json.body;
    const otherKey = totpKeyFromText(secret);
    const step = nextStep(app);
    const code = totpAt(otherKey, step);
    expectStatus(await other.client.post("account/totp/enable", { code }), 200);
    const client = new TestClient(app);
    expectStatus(await client.post("auth/login", { email: other.email, password: other.password }), 200);
    expectRefusedWithTriesLeft(await client.post("challenge", { token: code }), "That code is not right.", 4);
  });

  test("a code one step (30 s) old passes", async ({ app }) => {
    const step = nextStep(app, 3);
    const client = await login(app);
    const res = await client.post("challenge", { token: totpAt(key, step - 1) });
    expectStatus(res, 200);
    expect(res.json.body.secondFactor).toBe(true);
  });

  test("a code two steps old fails", async ({ app }) => {
    const step = nextStep(app, 3);
    const client = await login(app);
    const res = await client.post("challenge", { token: totpAt(key, step - 2) });
    expectRefusedWithTriesLeft(res, "That code is not right.", 4);
    // The current one still passes.
    expectStatus(await client.post("challenge", { token: totpAt(key, step) }), 200);
  });

  test("the emailed code (challenge/resend) also works", async ({ app }) => {
    nextStep(app, 3);
    const client = await login(app);
    const resent = await client.post("challenge/resend");
    expectStatus(resent, 200);
    expect(resent.json.body).toEqual({ sent: true });
    const res = await client.post("challenge", { token: await emailedCode(app.db, customer.email) });
    expectStatus(res, 200);
    expect(res.json.body.secondFactor).toBe(true);
  });

  test("turned off, logins email a code again", async ({ app }) => {
    nextStep(app, 3);
    const signedIn = new TestClient(app);
    const client = await login(app);
    expectStatus(await client.post("challenge", { token: totpAt(key, totpStepAt(app.clock.now())) }), 200);
    expectStatus(await client.delete("account/totp", { password: customer.password }), 200);
    const since = await lastEmailId(app);
    await signIn(signedIn, customer.email, customer.password);
    expect(await codeEmailsSince(app, customer.email, since)).toBe(1);
  });
});

describe("requests another site makes the browser send", () => {
  test("a registration with Origin https://evil.example is 403 and creates nobody", async ({ app }) => {
    const email = uniqueEmail("csrf");
    const evil = new TestClient(app, { origin: "https://evil.example" });
    const res = await evil.post("auth/register", { email, password: PASSWORD, type: "Personal" });
    expectStatus(res, 403);
    expect(evil.cookie("session")).toBeUndefined();
    expect(await app.db.select().from(users).where(eq(users.username, email))).toHaveLength(0);
  });

  test("a signed-in customer's browser cannot be made to sign out, reset or change anything", async ({ customer }) => {
    const evil = customer.client.clone({ origin: "https://evil.example" });

    expectStatus(await evil.post("auth/logout"), 403);
    expectStatus(await evil.post("account/totp/setup"), 403);
    expectStatus(await evil.post("account/profile", { first: "Mallory" }), 403);
    expectStatus(await customer.client.get("account/whoami"), 200);
    expect((await customer.client.get("account/whoami")).json.body.profile).toBe(false);

    expectStatus(await evil.post("auth/login", { email: customer.email, password: customer.password }), 403);
    expectStatus(await customer.client.get("account/whoami"), 200);

    // Sec-Fetch-Site: cross-site is refused even without an Origin.
    const crossSite = customer.client.clone({ origin: null, headers: { "sec-fetch-site": "cross-site" } });
    expectStatus(await crossSite.post("auth/logout"), 403);
    expectStatus(await customer.client.get("account/whoami"), 200);
  });

  test("a password reset posted from another site is 403 and the password stays", async ({ app, customer }) => {
    expectStatus(await new TestClient(app).post("auth/forgot", { username: customer.email }), 200);
    const { token } = await emailedToken(app.db, customer.email, "password-reset");
    const res = await new TestClient(app, { origin: "https://evil.example" }).post("auth/forgot/reset", {
      username: customer.email,
      token,
      password: "chosen by mallory",
    });
    expectStatus(res, 403);
    expectStatus(
      await new TestClient(app).post("auth/login", { email: customer.email, password: customer.password }),
      200,
    );
    // The link was not used up by the refused request.
    expectStatus(
      await new TestClient(app).post("auth/forgot/reset", {
        username: customer.email,
        token,
        password: "the owner's choice",
      }),
      200,
    );
  });
});
