import { and, eq, gt, sql } from "drizzle-orm";
import { describe, expect, vi } from "vitest";
import { emails } from "../../db/schema.ts";
import {
  type ClientResponse,
  type Customer,
  emailedToken,
  expectStatus,
  HOUR,
  registerCustomer,
  signIn,
  TestClient,
} from "../helpers/client.ts";
import { type SigninApp, test } from "../helpers/fixtures.ts";

/** The forgotten password: POST auth/forgot, the emailed link, POST auth/forgot/reset. */

// Argon2 hashing makes every registration and login take a while on a busy machine.
vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

const NEW_PASSWORD = "a brand new password";

async function lastEmailId(app: SigninApp) {
  const [{ id }] = await app.db.select({ id: sql<number>`coalesce(max(${emails.id}), 0)` }).from(emails);
  return id;
}
async function resetEmailsSince(app: SigninApp, since: number, to?: string) {
  const rows = await app.db.select().from(emails).where(
    and(gt(emails.id, since), eq(emails.template, "password-reset"), to ? eq(emails.to, to) : undefined),
  );
  return rows;
}

/** Asks for a reset link and answers its token (and the whole link). */
async function askForLink(app: SigninApp, customer: Customer, client = new TestClient(app)) {
  const res = await client.post("auth/forgot", { username: customer.email });
  expectStatus(res, 200);
  return await emailedToken(app.db, customer.email, "password-reset");
}

describe("asking for a reset link", () => {
  test("answers the same for an account that exists and one that does not; only the existing one gets an email", async ({ app, customer }) => {
    const since = await lastEmailId(app);
    const known = await new TestClient(app).post("auth/forgot", { username: customer.email.toUpperCase() });
    const unknown = await new TestClient(app).post("auth/forgot", { username: "nobody-at-all@example.com" });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(known.status);
    expect(unknown.text).toBe(known.text);
    expect(known.json).toEqual({ body: { sent: true } });

    const sent = await resetEmailsSince(app, since);
    expect(sent.map((e) => e.to)).toEqual([customer.email]);
  });

  test("an empty address, or one that is not an address, is a 422 naming it, and nothing is sent", async ({ app }) => {
    const since = await lastEmailId(app);
    const client = new TestClient(app);
    for (
      const [typed, problem] of [["", "Enter a valid email address."], ["   ", "Enter a valid email address."], [
        "nobody",
        "Enter a valid email address.",
      ]]
    ) {
      const res = await client.post("auth/forgot", { username: typed });
      expectStatus(res, 422);
      expect(res.json.fields).toEqual({ username: problem });
    }
    expect(await resetEmailsSince(app, since)).toEqual([]);
  });

  test("the link opens /forgot with the token and the username", async ({ app, customer }) => {
    const { link, token } = await askForLink(app, customer);
    const url = new URL(link);
    expect(url.origin + url.pathname).toBe("http://localhost/forgot");
    expect(url.searchParams.get("username")).toBe(customer.email);
    expect(token.length).toBeGreaterThanOrEqual(40);
  });
});

/**
 * A link that does not work is refused on /forgot, naming the token, with words the page shows
 * beside the offer of a new link (decision 039): not a 401, which sent the person home.
 */
function expectLinkRefused(res: ClientResponse) {
  expectStatus(res, 422);
  expect(res.json.error).toBe("This link has expired or was already used.");
  expect(res.json.fields).toEqual({ token: "This link has expired or was already used." });
}

describe("resetting with the link", () => {
  test("the token sets a new password: the new one signs in (still asking the second factor), the old one no longer", async ({ app, customer }) => {
    const { token } = await askForLink(app, customer);
    const res = await new TestClient(app).post("auth/forgot/reset", {
      username: customer.email,
      token,
      password: NEW_PASSWORD,
    });
    expectStatus(res, 200);
    expect(res.json).toEqual({ body: { ok: true }, redirect: "/" });

    const old = await new TestClient(app).post("auth/login", { email: customer.email, password: customer.password });
    expectStatus(old, 401);
    expect(old.json.error).toBe("Bad credentials");

    const client = new TestClient(app);
    const login = await client.post("auth/login", { email: customer.email, password: NEW_PASSWORD });
    expectStatus(login, 200);
    expect(login.json.body.secondFactor).toBe(false);
    expect((await client.get("account/whoami")).json.body.secondFactor).toBe(false);
    expect((await client.get("/auth")).headers.get("location")).toBe("/second-factor");

    // And the customer was told by email that the password changed.
    const notices = await app.db.select().from(emails).where(
      and(eq(emails.to, customer.email), eq(emails.template, "password-changed")),
    );
    expect(notices).toHaveLength(1);
  });

  test("the token works once", async ({ app, customer }) => {
    const { token } = await askForLink(app, customer);
    expectStatus(
      await new TestClient(app).post("auth/forgot/reset", { username: customer.email, token, password: NEW_PASSWORD }),
      200,
    );
    const again = await new TestClient(app).post("auth/forgot/reset", {
      username: customer.email,
      token,
      password: "yet another password",
    });
    expectLinkRefused(again);
    // The password is still the first new one.
    expectStatus(await new TestClient(app).post("auth/login", { email: customer.email, password: NEW_PASSWORD }), 200);
  });

  test("a wrong token, or the token with another username, is 422 'link expired or used' and changes nothing", async ({ app, customer }) => {
    const other = await registerCustomer(app);
    const { token } = await askForLink(app, customer);
    const wrong = await new TestClient(app).post("auth/forgot/reset", {
      username: customer.email,
      token: "x".repeat(43),
      password: NEW_PASSWORD,
    });
    expectLinkRefused(wrong);
    const swapped = await new TestClient(app).post("auth/forgot/reset", {
      username: other.email,
      token,
      password: NEW_PASSWORD,
    });
    expectLinkRefused(swapped);
    expectStatus(await new TestClient(app).post("auth/login", { email: other.email, password: other.password }), 200);
    expectStatus(
      await new TestClient(app).post("auth/login", { email: customer.email, password: customer.password }),
      200,
    );
  });

  test("a reset with the right token but someone else's username is refused, and the owner's link still works", async ({ app, customer }) => {
    const other = await registerCustomer(app);
    const { token } = await askForLink(app, customer);
    // A typo in the username field: refused...
    const mistyped = await new TestClient(app).post("auth/forgot/reset", {
      username: other.email,
      token,
      password: NEW_PASSWORD,
    });
    expectLinkRefused(mistyped);
    // ...and, being refused, it changed nothing: the link still does its job.
    const res = await new TestClient(app).post("auth/forgot/reset", {
      username: customer.email,
      token,
      password: NEW_PASSWORD,
    });
    expectStatus(res, 200);
    expectStatus(await new TestClient(app).post("auth/login", { email: customer.email, password: NEW_PASSWORD }), 200);
  });

  test("after 5 wrong tokens for an account from one address, its 6th — the right one — is 429", async ({ app, customer }) => {
    const { token } = await askForLink(app, customer);
    const guesser = new TestClient(app);
    for (let i = 0; i < 5; i++) {
      const res = await guesser.post("auth/forgot/reset", {
        username: customer.email,
        token: `guess-${i}-${"y".repeat(40)}`,
        password: NEW_PASSWORD,
      });
      expectLinkRefused(res);
    }
    expectStatus(
      await guesser.post("auth/forgot/reset", { username: customer.email, token, password: NEW_PASSWORD }),
      429,
    );
    expectStatus(
      await new TestClient(app).post("auth/login", { email: customer.email, password: customer.password }),
      200,
    );
  });

  test("the token is refused after 1 h + 1 ms", async ({ startApp }) => {
    const app = await startApp();
    const customer = await registerCustomer(app);
    expectStatus(await new TestClient(app).post("auth/forgot", { username: customer.email }), 200);
    const { token } = await emailedToken(app.db, customer.email, "password-reset");
    app.clock.advance(HOUR + 1);
    const res = await new TestClient(app).post("auth/forgot/reset", {
      username: customer.email,
      token,
      password: NEW_PASSWORD,
    });
    expectLinkRefused(res);
    expectStatus(
      await new TestClient(app).post("auth/login", { email: customer.email, password: customer.password }),
      200,
    );
  });

  test("the token still works at 1 h - 1 ms", async ({ startApp }) => {
    const app = await startApp();
    const customer = await registerCustomer(app);
    expectStatus(await new TestClient(app).post("auth/forgot", { username: customer.email }), 200);
    const { token } = await emailedToken(app.db, customer.email, "password-reset");
    app.clock.advance(HOUR - 1);
    expectStatus(
      await new TestClient(app).post("auth/forgot/reset", { username: customer.email, token, password: NEW_PASSWORD }),
      200,
    );
  });

  test("the reset ends every session of the user", async ({ app, customer }) => {
    const laptop = new TestClient(app);
    await signIn(laptop, customer.email, customer.password);
    expectStatus(await customer.client.get("account/whoami"), 200);
    expectStatus(await laptop.get("account/whoami"), 200);

    const phone = new TestClient(app);
    const { token } = await askForLink(app, customer, phone);
    expectStatus(
      await phone.post("auth/forgot/reset", { username: customer.email, token, password: NEW_PASSWORD }),
      200,
    );

    expectStatus(await laptop.get("account/whoami"), 401);
    expectStatus(await customer.client.get("account/whoami"), 401);
  });

  test.for([
    ["7 characters", "1234567"],
    ["129 characters", "p".repeat(129)],
  ])(
    "a new password of %s is 422 naming the password; the link still works afterwards",
    async ([_what, password], { app, customer }) => {
      const { token } = await askForLink(app, customer);
      const res = await new TestClient(app).post("auth/forgot/reset", { username: customer.email, token, password });
      expectStatus(res, 422);
      expect(res.json.fields.password).toBeTruthy();
      expectStatus(
        await new TestClient(app).post("auth/login", { email: customer.email, password: customer.password }),
        200,
      );
      expectStatus(
        await new TestClient(app).post("auth/forgot/reset", {
          username: customer.email,
          token,
          password: NEW_PASSWORD,
        }),
        200,
      );
    },
  );

  test("a reset lifts a login lockout", async ({ app, customer }) => {
    const client = new TestClient(app);
    for (let i = 0; i < 5; i++) {
      expectStatus(await client.post("auth/login", { email: customer.email, password: "guess guess" }), 401);
    }
    expectStatus(await client.post("auth/login", { email: customer.email, password: customer.password }), 429);
    const { token } = await askForLink(app, customer);
    expectStatus(
      await new TestClient(app).post("auth/forgot/reset", { username: customer.email, token, password: NEW_PASSWORD }),
      200,
    );
    expectStatus(await client.post("auth/login", { email: customer.email, password: NEW_PASSWORD }), 200);
  });
});
