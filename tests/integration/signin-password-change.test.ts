import { and, eq, gt, sql } from "drizzle-orm";
import { describe, expect, vi } from "vitest";
import { emails } from "../../db/schema.ts";
import {
  completeOnboarding,
  emailedToken,
  expectStatus,
  personalProfile,
  registerCustomer,
  signIn,
  TestClient,
} from "../helpers/client.ts";
import { type SigninApp, test } from "../helpers/fixtures.ts";

/**
 * /account/security (issue 15): changing the password with the current one (the other sessions
 * end, this one stays), the authenticator key's QR code, and the support address where a message
 * says to write to us.
 */

// Argon2 hashing makes every registration and login take a while on a busy machine.
vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

const NEW_PASSWORD = "a whole new password";

describe("changing the password", () => {
  test("with the current password: the new one signs in, the old one no longer; other sessions end, this one stays", async ({ app, customer }) => {
    const laptop = new TestClient(app);
    expectStatus(await signIn(laptop, customer.email, customer.password), 200);

    const changed = await customer.client.post("account/password", {
      current_password: customer.password,
      password: NEW_PASSWORD,
    });
    expectStatus(changed, 200);
    expect(changed.json.body).toEqual({ ok: true, other_sessions_ended: 1 });

    expectStatus(await customer.client.get("account/whoami"), 200);
    expectStatus(await laptop.get("account/whoami"), 401);
    expectStatus(
      await new TestClient(app).post("auth/login", { email: customer.email, password: customer.password }),
      401,
    );
    expectStatus(await new TestClient(app).post("auth/login", { email: customer.email, password: NEW_PASSWORD }), 200);

    // The owner is told, in words that fit a change made from the account.
    const [notice] = await app.db.select().from(emails).where(
      and(eq(emails.to, customer.email), eq(emails.template, "password-changed")),
    );
    expect(notice.text).toContain("every other session was signed out");
  });

  test("a reset link asked for before the change no longer works after it: whoever holds it cannot undo the change", async ({ app, customer }) => {
    expectStatus(await new TestClient(app).post("auth/forgot", { username: customer.email }), 200);
    const { token } = await emailedToken(app.db, customer.email, "password-reset");

    expectStatus(
      await customer.client.post("account/password", { current_password: customer.password, password: NEW_PASSWORD }),
      200,
    );

    const reset = await new TestClient(app).post("auth/forgot/reset", {
      username: customer.email,
      token,
      password: "someone else's password",
    });
    expectStatus(reset, 422);
    expect(reset.json.fields).toEqual({ token: "This link has expired or was already used." });
    // The owner is still signed in, with the password they chose.
    expectStatus(await customer.client.get("account/whoami"), 200);
    expectStatus(await new TestClient(app).post("auth/login", { email: customer.email, password: NEW_PASSWORD }), 200);
  });

  test("a wrong current password is refused under its field with the tries left, and changes nothing", async ({ app, customer }) => {
    const wrong = await customer.client.post("account/password", {
      current_password: "not my password",
      password: NEW_PASSWORD,
    });
    expectStatus(wrong, 422);
    expect(wrong.json.fields).toEqual({ current_password: "That password is not right. 4 tries left." });
    // Still signed in: a 422, not a 401.
    expectStatus(await customer.client.get("account/whoami"), 200);
    expectStatus(
      await new TestClient(app).post("auth/login", { email: customer.email, password: customer.password }),
      200,
    );
  });

  test("after 5 wrong current passwords the 6th, even the right one, is 429", async ({ customer }) => {
    for (let i = 0; i < 5; i++) {
      const res = await customer.client.post("account/password", {
        current_password: `wrong ${i} password`,
        password: NEW_PASSWORD,
      });
      expectStatus(res, 422);
    }
    const right = await customer.client.post("account/password", {
      current_password: customer.password,
      password: NEW_PASSWORD,
    });
    expectStatus(right, 429);
  });

  test("a new password that breaks the rule, or is the current one, is 422 naming the password", async ({ customer }) => {
    const short = await customer.client.post("account/password", {
      current_password: customer.password,
      password: "short",
    });
    expectStatus(short, 422);
    expect(Object.keys(short.json.fields)).toEqual(["password"]);
    const same = await customer.client.post("account/password", {
      current_password: customer.password,
      password: customer.password,
    });
    expectStatus(same, 422);
    expect(same.json.fields).toEqual({ password: "Choose a new password, not the one you have now." });
  });

  test("needs a session past the second factor", async ({ app, customer }) => {
    const visitor = new TestClient(app);
    expectStatus(await visitor.post("account/password", { current_password: "x", password: NEW_PASSWORD }), 401);
    const halfway = new TestClient(app);
    expectStatus(await halfway.post("auth/login", { email: customer.email, password: customer.password }), 200);
    const since = await lastEmailId(app);
    expect(
      (await halfway.post("account/password", { current_password: customer.password, password: NEW_PASSWORD })).status,
    ).toBe(403);
    expect(await passwordChangedSince(app, customer.email, since)).toBe(0);
  });

  test("the security page has the form", async ({ customer }) => {
    const page = await customer.client.get("/account/security");
    expectStatus(page, 200);
    expect(page.text).toContain('aria-label="Change the password"');
    expect(page.text).toContain('name="current_password"');
  });
});

describe("the authenticator key's QR code", () => {
  test("setting up answers the key with its otpauth:// address as an SVG QR code", async ({ customer }) => {
    const res = await customer.client.post("account/totp/setup", { password: customer.password });
    expectStatus(res, 200);
    const { secret, uri, qr_code_svg } = res.json.body;
    expect(uri).toContain(`secret=${secret}`);
    expect(qr_code_svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[^>]*viewBox="0 0 \d+ \d+"/);
    expect(qr_code_svg).toContain("<path");
    // Nothing of the user's own in the markup the browser puts in the page.
    expect(qr_code_svg).not.toContain(customer.email);
    expect(qr_code_svg).not.toMatch(/<script|on\w+=/i);
  });
});

/** The id of the newest email so far (0 when none). */
async function lastEmailId(app: SigninApp): Promise<number> {
  const [row] = await app.db.select({ id: sql<number>`coalesce(max(${emails.id}), 0)` }).from(emails);
  return row.id;
}

async function passwordChangedSince(app: SigninApp, to: string, since: number): Promise<number> {
  const rows = await app.db.select().from(emails).where(
    and(eq(emails.to, to), eq(emails.template, "password-changed"), gt(emails.id, since)),
  );
  return rows.length;
}

describe("the support address (SUPPORT_EMAIL)", () => {
  const SUPPORT = "help@first-hour.example";

  test("is named where a refusal says to write to us, and in the password-changed email", async ({ startApp }) => {
    const app = await startApp({ env: { SUPPORT_EMAIL: SUPPORT } });
    const customer = await registerCustomer(app);
    await completeOnboarding(customer);
    const refused = await customer.client.post("account/profile", personalProfile());
    expectStatus(refused, 409);
    expect(refused.json.error).toBe(`Your account is open: write to us at ${SUPPORT} to change your profile.`);

    expectStatus(
      await customer.client.post("account/password", { current_password: customer.password, password: NEW_PASSWORD }),
      200,
    );
    const [notice] = await app.db.select().from(emails).where(
      and(eq(emails.to, customer.email), eq(emails.template, "password-changed")),
    );
    expect(notice.text).toContain(`write to us at ${SUPPORT}`);
  });
});
