import { describe, expect, vi } from "vitest";
import type { Purpose } from "../../server/auth/verification.ts";
import { type ClientResponse, emailedCode, emailedToken, expectStatus, TestClient } from "../helpers/client.ts";
import { type SigninApp, test } from "../helpers/fixtures.ts";

/**
 * The limits on failed sign-in attempts hold when the attempts come all at once: 50 wrong passwords,
 * codes or tokens sent together get at most 5 of them checked (decision 021). An attacker who
 * fires in parallel gains nothing over one who waits for each answer.
 */

// Argon2 hashing makes every password check take a while on a busy machine.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 30_000 });

/** Every password the sign-in checks goes through verifyPassword: count them. */
const checked = vi.hoisted(() => ({ passwords: 0 }));
vi.mock("../../server/auth/password.ts", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../server/auth/password.ts")>();
  return {
    ...original,
    verifyPassword: (hash: string | null | undefined, password: string) => {
      checked.passwords++;
      return original.verifyPassword(hash, password);
    },
  };
});

const AT_ONCE = 50;
/** Exactly the limit is checked: never more, and the limit does not refuse before it is reached. */
const LIMIT = 5;

/** Sends `AT_ONCE` attempts together. */
function atOnce(attempt: (i: number) => Promise<ClientResponse>): Promise<ClientResponse[]> {
  return Promise.all(Array.from({ length: AT_ONCE }, (_, i) => attempt(i)));
}

function statusCounts(answers: ClientResponse[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** Counts the secrets of one purpose that the verification engine looks up from now on. */
function countChecks(app: SigninApp, purpose: Purpose): () => number {
  const consume = vi.spyOn(app.services.verifications, "consume");
  return () => consume.mock.calls.filter(([p]) => p === purpose).length;
}

/** A wrong 6-digit code (not the right one). */
const wrongCode = (right: string, i: number) => String((Number(right) + 1 + i) % 1_000_000).padStart(6, "0");

describe("50 attempts at once", () => {
  test("wrong passwords from one address: 5 are checked, the rest are 429, and its right password is refused too", async ({ app, customer }) => {
    const attacker = new TestClient(app);
    checked.passwords = 0;
    const answers = await atOnce((i) =>
      attacker.post("auth/login", { email: customer.email, password: `wrong password ${i}` })
    );
    expect(checked.passwords).toBe(LIMIT);
    expect(statusCounts(answers)).toEqual({ 401: checked.passwords, 429: AT_ONCE - checked.passwords });
    expectStatus(await attacker.post("auth/login", { email: customer.email, password: customer.password }), 429);
  });

  test("wrong second-factor codes: 5 are checked, and the right code is then refused", async ({ app, customer }) => {
    const client = new TestClient(app);
    expectStatus(await client.post("auth/login", { email: customer.email, password: customer.password }), 200);
    const code = await emailedCode(app.db, customer.email);
    const checks = countChecks(app, "second-factor");
    const answers = await atOnce((i) => client.post("challenge", { token: wrongCode(code, i) }));
    expect(checks()).toBe(LIMIT);
    // Refused on the page with the tries left (decision 039), then limited.
    expect(statusCounts(answers)).toEqual({ 422: checks(), 429: AT_ONCE - checks() });
    expectStatus(await client.post("challenge", { token: code }), 429);
    expect((await client.get("account/whoami")).json.body.secondFactor).toBe(false);
  });

  test("wrong email-validation tokens: 5 are checked, and the right token is then refused", async ({ app, unverified: customer }) => {
    const { token } = await emailedToken(app.db, customer.email, "email-validation");
    const checks = countChecks(app, "email-validation");
    const answers = await atOnce((i) => customer.client.post("validation/validate", { token: `${token}x${i}` }));
    expect(checks()).toBe(LIMIT);
    expect(statusCounts(answers)).toEqual({ 422: checks(), 429: AT_ONCE - checks() });
    expectStatus(await customer.client.post("validation/validate", { token }), 429);
  });

  test("wrong password-reset tokens from one address: 5 are checked, and its right token is then refused", async ({ app, customer }) => {
    expectStatus(await new TestClient(app).post("auth/forgot", { username: customer.email }), 200);
    const { token } = await emailedToken(app.db, customer.email, "password-reset");
    const checks = countChecks(app, "password-reset");
    const guesser = new TestClient(app);
    const reset = (secret: string) =>
      guesser.post("auth/forgot/reset", {
        username: customer.email,
        token: secret,
        password: "a new password 1",
      });
    const answers = await atOnce((i) => reset(`${token}x${i}`));
    expect(checks()).toBe(LIMIT);
    expect(statusCounts(answers)).toEqual({ 422: checks(), 429: AT_ONCE - checks() });
    expectStatus(await reset(token), 429);
  });
});
