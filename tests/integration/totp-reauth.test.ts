import { eq } from "drizzle-orm";
import { describe, expect, vi } from "vitest";
import { users } from "../../db/schema.ts";
import { TOTP_STEP_S, totpAt, totpKeyFromText, totpStepAt } from "../../server/auth/totp.ts";
import { expectStatus, SECOND } from "../helpers/client.ts";
import { type SigninApp, test as base } from "../helpers/fixtures.ts";

/**
 * Turning off or replacing the authenticator app asks who is there first (issue 14, finding 7):
 * the password, or a current code from the app. Someone at an unattended, signed-in browser cannot
 * take the second factor away or put their own app in its place. A wrong answer is a 422 naming the
 * field (it does not sign the person out), and wrong answers are limited.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 30_000 });

const STEP_MS = TOTP_STEP_S * SECOND;
function nextStep(app: SigninApp) {
  const step = totpStepAt(app.clock.now()) + 1;
  app.clock.set(step * STEP_MS + 5 * SECOND);
  return step;
}

/** `totpCustomer`: a signed-in customer who has turned the authenticator app on with `key`. */
const test = base.extend("totpCustomer", async ({ app, customer }) => {
  const { secret } = (await customer.client.post("account/totp/setup", { password: customer.password })).json.body;
  const key = totpKeyFromText(secret);
  const step = nextStep(app);
  expectStatus(await customer.client.post("account/totp/enable", { secret, code: totpAt(key, step) }), 200);
  return { ...customer, key };
});

const appIsOn = async (app: SigninApp, id: number) =>
  (await app.db.select({ on: users.totpSecret }).from(users).where(eq(users.id, id)))[0].on !== null;

describe("turning the authenticator app off", () => {
  test("without the password or a code: 422 naming the password, and the app stays on", async ({ app, totpCustomer: customer }) => {
    const res = await customer.client.delete("account/totp", {});
    expectStatus(res, 422);
    expect(res.json.fields.password).toMatch(/password or a code/);
    expect(await appIsOn(app, customer.id)).toBe(true);
  });

  test("a wrong password: 422 naming it; still signed in, app still on", async ({ app, totpCustomer: customer }) => {
    const res = await customer.client.delete("account/totp", { password: "not my password" });
    expectStatus(res, 422);
    expect(res.json.fields.password).toBe("That password is not right. 4 tries left.");
    expectStatus(await customer.client.get("account/whoami"), 200);
    expect(await appIsOn(app, customer.id)).toBe(true);
  });

  test("the password turns it off", async ({ app, totpCustomer: customer }) => {
    expectStatus(await customer.client.delete("account/totp", { password: customer.password }), 200);
    expect(await appIsOn(app, customer.id)).toBe(false);
  });

  test("a current code from the app turns it off; a wrong one is 422 naming the code", async ({ app, totpCustomer: { key, ...customer } }) => {
    const step = nextStep(app);
    const right = totpAt(key, step);
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, "0");
    const refused = await customer.client.delete("account/totp", { code: wrong });
    expectStatus(refused, 422);
    expect(refused.json.fields.code).toBe("That code is not right. 4 tries left.");
    expectStatus(await customer.client.delete("account/totp", { code: right }), 200);
    expect(await appIsOn(app, customer.id)).toBe(false);
  });

  test("after 5 wrong passwords the right one is 429 for 15 minutes", async ({ app, totpCustomer: customer }) => {
    for (let i = 0; i < 5; i++) {
      expectStatus(await customer.client.delete("account/totp", { password: `guess ${i}` }), 422);
    }
    expectStatus(await customer.client.delete("account/totp", { password: customer.password }), 429);
    expect(await appIsOn(app, customer.id)).toBe(true);
    app.clock.advance(15 * 60 * SECOND);
    expectStatus(await customer.client.delete("account/totp", { password: customer.password }), 200);
  });
});

describe("setting up (or replacing) the app", () => {
  test("without the password: 422, and no key is given", async ({ customer }) => {
    const res = await customer.client.post("account/totp/setup", {});
    expectStatus(res, 422);
    expect(res.json.fields.password).toBeTruthy();
    expect(res.json.body).toBeUndefined();
  });

  test("replacing an app in use needs the password or its current code", async ({ app, totpCustomer: { key, ...customer } }) => {
    expectStatus(await customer.client.post("account/totp/setup", { password: "wrong password" }), 422);
    const step = nextStep(app);
    const res = await customer.client.post("account/totp/setup", { code: totpAt(key, step) });
    expectStatus(res, 200);
    expect(res.json.body.secret).toMatch(/^[A-Z2-7]{32}$/);
  });
});
