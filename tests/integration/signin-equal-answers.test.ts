import { and, eq, gt, sql } from "drizzle-orm";
import { describe, expect, vi } from "vitest";
import { emails, verifications } from "../../db/schema.ts";
import { settled } from "../../server/background.ts";
import { expectRefusedWithTriesLeft, expectStatus, PASSWORD, TestClient, uniqueEmail } from "../helpers/client.ts";
import { type SigninApp, test } from "../helpers/fixtures.ts";

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

const UNKNOWN = "nobody-registered-this@example.com";

/** A failure's JSON without its request id, which every answer has its own of. */
const withoutRequestId = (json: Record<string, unknown>) => ({ ...json, request_id: undefined });

describe("logging in", () => {
  test.for([
    ["an empty password", ""],
    ["no password at all", undefined],
  ])(
    "%s is 422 naming the password, the same for an unknown and a known email",
    async ([_what, password], { app, customer }) => {
      const unknown = await new TestClient(app).post("auth/login", { email: UNKNOWN, password });
      const known = await new TestClient(app).post("auth/login", { email: customer.email, password });
      expectStatus(unknown, 422);
      expect(unknown.json).toEqual({
        error: "Enter your password.",
        message: "Unprocessable Entity",
        fields: { password: "Enter your password." },
        request_id: expect.any(String),
      });
      expect(known.status).toBe(unknown.status);
      // Alike but for each request's own id (decision 041), which tells nothing about the account.
      expect(withoutRequestId(known.json)).toEqual(withoutRequestId(unknown.json));
    },
  );

  test("a wrong password: the same 401 for an unknown and a known email, each after one Argon2 verification", async ({ app, customer }) => {
    // The first unknown email makes the stand-in hash once; every later one only verifies against it.
    await new TestClient(app).post("auth/login", { email: `warm-${UNKNOWN}`, password: "some password" });

    argon2.verify = argon2.hash = 0;
    const unknown = await new TestClient(app).post("auth/login", { email: UNKNOWN, password: "some password" });
    expect({ verify: argon2.verify, hash: argon2.hash }).toEqual({ verify: 1, hash: 0 });

    argon2.verify = argon2.hash = 0;
    const known = await new TestClient(app).post("auth/login", { email: customer.email, password: "some password" });
    expect({ verify: argon2.verify, hash: argon2.hash }).toEqual({ verify: 1, hash: 0 });

    expectStatus(unknown, 401);
    expect(known.status).toBe(unknown.status);
    expect(withoutRequestId(known.json)).toEqual(withoutRequestId(unknown.json));
  });
});

describe("asking for a password reset", () => {
  async function resetWork(app: SigninApp, to: string, since: number) {
    const [{ mails }] = await app.db.select({ mails: sql<number>`count(*)` }).from(emails).where(
      and(eq(emails.to, to), gt(emails.id, since), eq(emails.template, "password-reset")),
    );
    const [{ tokens }] = await app.db.select({ tokens: sql<number>`count(*)` }).from(verifications).where(
      and(gt(verifications.id, 0), eq(verifications.purpose, "password-reset")),
    );
    return { mails, tokens };
  }

  /** One request as a browser sends it, answered without waiting for what the server does afterwards. */
  async function ask(app: SigninApp, username: string, address: string) {
    const started = performance.now();
    const res = await app.app.request("http://localhost/api/auth/forgot", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://localhost", "x-forwarded-for": address },
      body: JSON.stringify({ username }),
    });
    return { ms: performance.now() - started, status: res.status, text: await res.text() };
  }

  test("known and unknown accounts get the same answer before any lookup, token or email; the email follows", async ({ app, customer }) => {
    await settled();
    const [{ since }] = await app.db.select({ since: sql<number>`coalesce(max(${emails.id}), 0)` }).from(emails);
    const tokensBefore = (await resetWork(app, customer.email, since)).tokens;

    const known = await ask(app, customer.email, "203.0.113.10");
    // Nothing that depends on the account has happened when the answer is given.
    expect(await resetWork(app, customer.email, since)).toEqual({ mails: 0, tokens: tokensBefore });
    const unknown = await ask(app, UNKNOWN, "203.0.113.11");
    expect({ status: unknown.status, text: unknown.text }).toEqual({ status: known.status, text: known.text });
    expect(known.status).toBe(200);

    await settled();
    expect(await resetWork(app, customer.email, since)).toEqual({ mails: 1, tokens: tokensBefore + 1 });
    expect(await resetWork(app, UNKNOWN, since)).toMatchObject({ mails: 0 });
  });

  test("the time to answer, known against unknown (median of 15 each, printed; the test above holds the equal work)", async ({ app, customer }) => {
    const knownMs: number[] = [];
    const unknownMs: number[] = [];
    for (let i = 0; i < 15; i++) {
      // Each from its own address (the per-address limit is 10 an hour), taking turns at going first.
      const known = () => ask(app, customer.email, `203.0.114.${i + 1}`);
      const unknown = () => ask(app, `unknown-${i}-${UNKNOWN}`, `203.0.115.${i + 1}`);
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

describe("registering", () => {
  /** The answer with the address itself taken out, and the cookies it sets by name and attributes. */
  function shapeOf(res: Awaited<ReturnType<TestClient["post"]>>, email: string) {
    return {
      status: res.status,
      text: res.text.replace(JSON.stringify(email.toLowerCase()), '"<email>"'),
      cookies: res.setCookies.map((c) => ({ name: c.name, attributes: c.attributes })),
    };
  }

  test("an address that has an account gets exactly the answer a new one gets; nobody is signed in", async ({ app, customer: owner }) => {
    const fresh = uniqueEmail("fresh");
    const newcomer = new TestClient(app);
    const intruder = new TestClient(app);

    argon2.verify = argon2.hash = 0;
    const created = await newcomer.post("auth/register", { email: fresh, password: PASSWORD, type: "Personal" });
    expect({ verify: argon2.verify, hash: argon2.hash }).toEqual({ verify: 0, hash: 1 });
    argon2.verify = argon2.hash = 0;
    const again = await intruder.post("auth/register", { email: owner.email, password: PASSWORD, type: "Business" });
    expect({ verify: argon2.verify, hash: argon2.hash }).toEqual({ verify: 0, hash: 1 });

    expectStatus(created, 200);
    expect(created.json).toEqual({ body: { email: fresh.toLowerCase() }, redirect: "/verify" });
    expect(shapeOf(again, owner.email)).toEqual(shapeOf(created, fresh));

    // Neither browser is signed in; both see the same /verify, for their own address.
    for (const [client, email] of [[newcomer, fresh], [intruder, owner.email]] as const) {
      expectStatus(await client.get("account/whoami"), 401);
      const page = await client.get("/verify");
      expect(page.status).toBe(200);
      // Said once (issue 15), by the form, with the address.
      expect(page.text.split("We sent a link").length - 1).toBe(1);
      const words = page.text.replace(/<[^>]+>/g, "").replace(/\s+/g, " ");
      expect(words).toContain(`We sent a link and a 6-digit code to ${email.toLowerCase()}.`);
      // A typed code is refused alike: the existing address's registration names nobody whose code it could be,
      // and is counted as a code's 3 tries all the same (decision 072).
      expectRefusedWithTriesLeft(
        await client.post("validation/validate", { token: "123456" }),
        "That code is not right.",
        2,
      );
    }
    // Nothing is signed in to the existing account, and a new link asked from there changes nothing.
    expectStatus(await intruder.post("validation/resend"), 200);
    expectStatus(await newcomer.post("validation/resend"), 200);
  });

  test("the owner is told by email instead, and the new address gets its link", async ({ app, customer: owner }) => {
    const fresh = uniqueEmail("fresh");
    expectStatus(
      await new TestClient(app).post("auth/register", { email: owner.email, password: PASSWORD, type: "Personal" }),
      200,
    );
    expectStatus(
      await new TestClient(app).post("auth/register", { email: fresh, password: PASSWORD, type: "Personal" }),
      200,
    );
    const latest = async (to: string) =>
      (await app.db.select().from(emails).where(eq(emails.to, to.toLowerCase())).orderBy(sql`${emails.id} desc`))[0];
    const notice = await latest(owner.email);
    expect(notice.template).toBe("registration-attempt");
    expect(notice.text).toMatch(/tried to open an account with this address/);
    expect(notice.text).not.toMatch(/token=/);
    expect((await latest(fresh)).template).toBe("email-validation");
  });

  test("the owner is told at most three times an hour, however many try their address", async ({ app, customer: owner }) => {
    const notices = async () =>
      (await app.db.select().from(emails).where(eq(emails.to, owner.email.toLowerCase())))
        .filter((e) => e.template === "registration-attempt").length;
    const before = await notices();
    for (let i = 0; i < 6; i++) {
      // From six client addresses, each within its own limit of registrations: the same answer every time.
      const res = await app.app.request("http://localhost/api/auth/register", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          origin: "http://localhost",
          "x-forwarded-for": `203.0.117.${i}`,
        },
        body: JSON.stringify({ email: owner.email, password: PASSWORD, type: "Personal" }),
      });
      expect(res.status).toBe(200);
    }
    await settled();
    expect(await notices() - before).toBe(3);
  });

  test("the time to answer, new address against existing (median of 5 each, printed)", async ({ app, customer: owner }) => {
    const times = { fresh: [] as number[], existing: [] as number[] };
    for (let i = 0; i < 5; i++) {
      const order: ("fresh" | "existing")[] = i % 2 === 0 ? ["fresh", "existing"] : ["existing", "fresh"];
      for (const kind of order) {
        const started = performance.now();
        await app.app.request("http://localhost/api/auth/register", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            origin: "http://localhost",
            "x-forwarded-for": `203.0.116.${i}${kind.length}`,
          },
          body: JSON.stringify({
            email: kind === "fresh" ? uniqueEmail("timed") : owner.email,
            password: PASSWORD,
            type: "Personal",
          }),
        });
        times[kind].push(performance.now() - started);
        await settled();
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    console.info(
      `[register] median answer: new address ${median(times.fresh).toFixed(1)} ms, ` +
        `existing ${median(times.existing).toFixed(1)} ms`,
    );
    expect(times.fresh).toHaveLength(5);
  });
});
