import { and, eq, gt, sql } from "drizzle-orm";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { emails, verifications } from "../../db/schema.ts";
import { settled } from "../../server/background.ts";
import { expectStatus, registerCustomer, signinApp, TestClient } from "../helpers/client.ts";

/**
 * Sign-in tells nobody which accounts exist (issue 14, finding 2; decision 023): every bad input is
 * a 4xx with a clear error, a login answers the same for an unknown email as for a known one and
 * runs the same Argon2 check, and a forgotten-password request does the same work for both before
 * it answers (the email goes after the answer).
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 30_000 });

/** Every Argon2 run of the sign-in: a verification against a stored hash, or a new hash. */
const argon2 = vi.hoisted(() => ({ verify: 0, hash: 0 }));
vi.mock("hash-wasm", async (importOriginal) => {
  const original = await importOriginal<typeof import("hash-wasm")>();
  return {
    ...original,
    argon2Verify: (options: Parameters<typeof original.argon2Verify>[0]) => {
      argon2.verify++;
      return original.argon2Verify(options);
    },
    argon2id: (options: Parameters<typeof original.argon2id>[0]) => {
      argon2.hash++;
      return original.argon2id(options);
    },
  };
});

type App = Awaited<ReturnType<typeof signinApp>>;
let t: App;
beforeAll(async () => {
  t = await signinApp();
});

const UNKNOWN = "nobody-registered-this@example.com";

describe("logging in", () => {
  test.each([
    ["an empty password", ""],
    ["no password at all", undefined],
  ])("%s is 422 naming the password, the same for an unknown and a known email", async (_what, password) => {
    const customer = await registerCustomer(t);
    const unknown = await new TestClient(t).post("auth/login", { email: UNKNOWN, password });
    const known = await new TestClient(t).post("auth/login", { email: customer.email, password });
    expectStatus(unknown, 422);
    expect(unknown.json).toEqual({
      error: "Enter your password.",
      message: "Unprocessable Entity",
      fields: { password: "Enter your password." },
    });
    expect(known.status).toBe(unknown.status);
    expect(known.text).toBe(unknown.text);
  });

  test("a wrong password: the same 401 for an unknown and a known email, each after one Argon2 verification", async () => {
    const customer = await registerCustomer(t);
    // The first unknown email makes the stand-in hash once; every later one only verifies against it.
    await new TestClient(t).post("auth/login", { email: `warm-${UNKNOWN}`, password: "some password" });

    argon2.verify = argon2.hash = 0;
    const unknown = await new TestClient(t).post("auth/login", { email: UNKNOWN, password: "some password" });
    expect({ verify: argon2.verify, hash: argon2.hash }).toEqual({ verify: 1, hash: 0 });

    argon2.verify = argon2.hash = 0;
    const known = await new TestClient(t).post("auth/login", { email: customer.email, password: "some password" });
    expect({ verify: argon2.verify, hash: argon2.hash }).toEqual({ verify: 1, hash: 0 });

    expectStatus(unknown, 401);
    expect(known.status).toBe(unknown.status);
    expect(known.text).toBe(unknown.text);
  });
});

describe("asking for a password reset", () => {
  async function resetWork(to: string, since: number) {
    const [{ mails }] = await t.db.select({ mails: sql<number>`count(*)` }).from(emails).where(
      and(eq(emails.to, to), gt(emails.id, since), eq(emails.template, "password-reset")),
    );
    const [{ tokens }] = await t.db.select({ tokens: sql<number>`count(*)` }).from(verifications).where(
      and(gt(verifications.id, 0), eq(verifications.purpose, "password-reset")),
    );
    return { mails, tokens };
  }

  /** One request as a browser sends it, answered without waiting for what the server does afterwards. */
  async function ask(username: string, address: string) {
    const started = performance.now();
    const res = await t.app.request("http://localhost/api/auth/forgot", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://localhost", "x-forwarded-for": address },
      body: JSON.stringify({ username }),
    });
    return { ms: performance.now() - started, status: res.status, text: await res.text() };
  }

  test("known and unknown accounts get the same answer before any lookup, token or email; the email follows", async () => {
    const customer = await registerCustomer(t);
    await settled();
    const [{ since }] = await t.db.select({ since: sql<number>`coalesce(max(${emails.id}), 0)` }).from(emails);
    const tokensBefore = (await resetWork(customer.email, since)).tokens;

    const known = await ask(customer.email, "203.0.113.10");
    // Nothing that depends on the account has happened when the answer is given.
    expect(await resetWork(customer.email, since)).toEqual({ mails: 0, tokens: tokensBefore });
    const unknown = await ask(UNKNOWN, "203.0.113.11");
    expect({ status: unknown.status, text: unknown.text }).toEqual({ status: known.status, text: known.text });
    expect(known.status).toBe(200);

    await settled();
    expect(await resetWork(customer.email, since)).toEqual({ mails: 1, tokens: tokensBefore + 1 });
    expect(await resetWork(UNKNOWN, since)).toMatchObject({ mails: 0 });
  });

  test("the time to answer, known against unknown (median of 15 each, printed; the test above holds the equal work)", async () => {
    const customer = await registerCustomer(t);
    const knownMs: number[] = [];
    const unknownMs: number[] = [];
    for (let i = 0; i < 15; i++) {
      // Each from its own address (the per-address limit is 10 an hour), taking turns at going first.
      const known = () => ask(customer.email, `203.0.114.${i + 1}`);
      const unknown = () => ask(`unknown-${i}-${UNKNOWN}`, `203.0.115.${i + 1}`);
      if (i % 2 === 0) {
        knownMs.push((await known()).ms);
        unknownMs.push((await unknown()).ms);
      } else {
        unknownMs.push((await unknown()).ms);
        knownMs.push((await known()).ms);
      }
      await settled();
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    console.info(
      `[forgot] median answer: known account ${median(knownMs).toFixed(2)} ms, ` +
        `unknown ${median(unknownMs).toFixed(2)} ms`,
    );
    expect(knownMs).toHaveLength(15);
  });
});
