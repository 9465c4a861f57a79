import { and, eq, gt } from "drizzle-orm";
import { describe, expect, vi } from "vitest";
import { emails, sessions } from "../../db/schema.ts";
import { FLASH_COOKIE } from "../../lib/notification.ts";
import { CODE_NO_LONGER_VALID } from "../../server/auth/attempts.ts";
import { SIGNED_OUT } from "../../server/auth/sessions.ts";
import { sha256Hex } from "../../server/auth/tokens.ts";
import {
  type ClientResponse,
  type Customer,
  emailedCode,
  expectRefusedWithTriesLeft,
  expectStatus,
  MINUTE,
  registerCustomer,
  signIn,
  TestClient,
} from "../helpers/client.ts";
import { type SigninApp, test } from "../helpers/fixtures.ts";

/**
 * Signing in: POST auth/login, the emailed code and POST challenge, the limits on failures, the
 * session's lifetime and its cookie, and POST auth/logout.
 */

// Argon2 hashing makes every registration and login take a while on a busy machine.
vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

const BAD_CREDENTIALS = { error: "Bad credentials", message: "Unauthorized", request_id: expect.any(String) };

/** A wrong second-factor code: refused on the page with the tries left (decision 039). */
const expectCodeRefused = (res: ClientResponse, left: number) =>
  expectRefusedWithTriesLeft(res, "That code is not right.", left);

/** A code that is not this one. */
const otherCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

async function codeEmailsTo(app: SigninApp, to: string, since: number) {
  const rows = await app.db.select().from(emails).where(
    and(eq(emails.to, to), gt(emails.id, since), eq(emails.template, "second-factor-code")),
  );
  return rows.length;
}
async function lastEmailId(app: SigninApp) {
  const rows = await app.db.select({ id: emails.id }).from(emails);
  return Math.max(0, ...rows.map((r) => r.id));
}

describe("login with the password", () => {
  let customer: Customer;
  test.beforeAll(async ({ app }) => {
    customer = await registerCustomer(app);
  });

  test("a wrong password is 401 with error exactly 'Bad credentials' and message 'Unauthorized'", async ({ app }) => {
    const client = new TestClient(app);
    const res = await client.post("auth/login", { email: customer.email, password: "wrong password" });
    expectStatus(res, 401);
    expect(res.json).toEqual(BAD_CREDENTIALS);
    expect(client.cookie("session")).toBeUndefined();
  });

  test("an unknown email gets the very same 401", async ({ app }) => {
    const res = await new TestClient(app).post("auth/login", {
      email: "nobody-here@example.com",
      password: customer.password,
    });
    expectStatus(res, 401);
    expect(res.json).toEqual(BAD_CREDENTIALS);
  });

  test("the right password answers the user and /auth; the session has not passed the second factor; a code is emailed", async ({ app }) => {
    const since = await lastEmailId(app);
    const client = new TestClient(app);
    const res = await client.post("auth/login", { email: customer.email.toUpperCase(), password: customer.password });
    expectStatus(res, 200);
    expect(res.json.redirect).toBe("/auth");
    expect(res.json.body).toMatchObject({
      id: customer.id,
      username: customer.email,
      secondFactor: false,
      validated: true,
    });

    const whoami = await client.get("account/whoami");
    expectStatus(whoami, 200);
    expect(whoami.json.body.secondFactor).toBe(false);
    expect(await codeEmailsTo(app, customer.email, since)).toBe(1);
    expect(await emailedCode(app.db, customer.email)).toMatch(/^\d{6}$/);

    // Pages that need the second factor are not open yet.
    const auth = await client.get("/auth");
    expect(auth.status).toBe(302);
    expect(auth.headers.get("location")).toBe("/second-factor");
  });

  test("the emailed code passes the challenge with a new session token; the old cookie no longer works", async ({ app }) => {
    const client = new TestClient(app);
    expectStatus(await client.post("auth/login", { email: customer.email, password: customer.password }), 200);
    const beforeChallenge = client.clone();
    const oldToken = client.cookie("session");

    const res = await client.post("challenge", { token: await emailedCode(app.db, customer.email) });
    expectStatus(res, 200);
    expect(res.json.redirect).toBe("/auth");
    expect(res.json.body.secondFactor).toBe(true);
    expect(client.cookie("session")).toBeTruthy();
    expect(client.cookie("session")).not.toBe(oldToken);

    expect((await client.get("account/whoami")).json.body.secondFactor).toBe(true);
    expectStatus(await beforeChallenge.get("account/whoami"), 401);
  });

  test("a request that left with the old cookie as the code was typed, answered after it, does not sign the person out", async ({ app }) => {
    const browser = new TestClient(app);
    expectStatus(await browser.post("auth/login", { email: customer.email, password: customer.password }), 200);
    // Requests already on their way from the code's page with its cookie: a link's preload, an island's call.
    const onTheirWay = browser.clone();
    expectStatus(await browser.post("challenge", { token: await emailedCode(app.db, customer.email) }), 200);

    const preload = await onTheirWay.get("/account", { Purpose: "prefetch", "Sec-Purpose": "prefetch" });
    const call = await onTheirWay.get("account/whoami");
    // The old token opens nothing (a visitor's answers)...
    expect(preload.headers.get("location")).toBe("/");
    expectStatus(call, 401);
    // ...and the answers, arriving after the new cookie, neither clear it nor the client's user,
    // nor queue a "Signed out" notice for the page the person lands on.
    for (const late of [preload, call]) {
      expect(late.setCookies.map((cookie) => cookie.name)).not.toContain("session");
      expect(late.setCookies.map((cookie) => cookie.name)).not.toContain("user");
      expect(late.setCookies.map((cookie) => cookie.name)).not.toContain(FLASH_COOKIE);
    }
    expect((await browser.get("account/whoami")).json.body.secondFactor).toBe(true);
  });

  test("a wrong code is refused on the page with the tries left, and the session stays without its second factor", async ({ app }) => {
    const client = new TestClient(app);
    expectStatus(await client.post("auth/login", { email: customer.email, password: customer.password }), 200);
    const code = await emailedCode(app.db, customer.email);
    const res = await client.post("challenge", { token: otherCode(code) });
    expectCodeRefused(res, 4);
    expect((await client.get("account/whoami")).json.body.secondFactor).toBe(false);
    // The right one still works afterwards.
    expectStatus(await client.post("challenge", { token: code }), 200);
  });

  test("a code works once: used again, even in the same session, it is refused", async ({ app }) => {
    const client = new TestClient(app);
    expectStatus(await client.post("auth/login", { email: customer.email, password: customer.password }), 200);
    const code = await emailedCode(app.db, customer.email);
    expectStatus(await client.post("challenge", { token: code }), 200);
    const again = await client.post("challenge", { token: code });
    expectRefusedWithTriesLeft(again, CODE_NO_LONGER_VALID, 4);
  });

  test("each login starts a new session token, and ends the session the browser had", async ({ app }) => {
    const client = new TestClient(app);
    expectStatus(await client.post("auth/login", { email: customer.email, password: customer.password }), 200);
    const first = client.clone();
    const firstToken = client.cookie("session");
    expectStatus(await client.post("auth/login", { email: customer.email, password: customer.password }), 200);
    expect(client.cookie("session")).toBeTruthy();
    expect(client.cookie("session")).not.toBe(firstToken);
    expectStatus(await first.get("account/whoami"), 401);
    expectStatus(await client.get("account/whoami"), 200);
  });

  test("logout ends the session on the server: the cookie is cleared and the old one replayed is 401", async ({ app }) => {
    const client = new TestClient(app);
    await signIn(client, customer.email, customer.password);
    const kept = client.clone();
    const token = client.cookie("session")!;
    const res = await client.post("auth/logout");
    expectStatus(res, 200);
    expect(res.json).toEqual({ body: { ok: true }, redirect: "/" });
    const cleared = res.setCookies.find((c) => c.name === "session");
    expect(cleared).toBeDefined();
    expect(client.cookie("session")).toBeUndefined();

    expectStatus(await client.get("account/whoami"), 401);
    expect(kept.cookie("session")).toBe(token);
    expectStatus(await kept.get("account/whoami"), 401);
  });
});

describe("the emailed code expires after 10 minutes", () => {
  test("accepted at 10 min - 1 ms, refused at 10 min + 1 ms", async ({ app, customer }) => {
    const quick = new TestClient(app);
    expectStatus(await quick.post("auth/login", { email: customer.email, password: customer.password }), 200);
    const code = await emailedCode(app.db, customer.email);
    app.clock.advance(10 * MINUTE - 1);
    expectStatus(await quick.post("challenge", { token: code }), 200);

    const slow = new TestClient(app);
    expectStatus(await slow.post("auth/login", { email: customer.email, password: customer.password }), 200);
    const late = await emailedCode(app.db, customer.email);
    app.clock.advance(10 * MINUTE + 1);
    const res = await slow.post("challenge", { token: late });
    // Said as such: the code is the one emailed, and typing it again would only use up the tries.
    expectRefusedWithTriesLeft(res, CODE_NO_LONGER_VALID, 4);
  });

  test("a code replaced by a newer one is refused as no longer valid, not as mistyped", async ({ app, customer }) => {
    const client = new TestClient(app);
    expectStatus(await client.post("auth/login", { email: customer.email, password: customer.password }), 200);
    const first = await emailedCode(app.db, customer.email);
    expectStatus(await client.post("challenge/resend"), 200);
    const newest = await emailedCode(app.db, customer.email);
    if (newest === first) return; // one chance in a million: the same six digits twice
    expectRefusedWithTriesLeft(await client.post("challenge", { token: first }), CODE_NO_LONGER_VALID, 4);
    expectStatus(await client.post("challenge", { token: newest }), 200);
  });
});

describe("limits on failures", () => {
  test("after 5 failed logins from one address in 15 minutes, its 6th — with the right password — is 429; 15 minutes later it works", async ({ app, customer }) => {
    const since = await lastEmailId(app);
    const client = new TestClient(app);
    for (let i = 0; i < 5; i++) {
      const res = await client.post("auth/login", { email: customer.email, password: `wrong ${i}` });
      expectStatus(res, 401);
      app.clock.advance(3 * MINUTE);
    }
    // 12 minutes after the first failure.
    const blocked = await client.post("auth/login", { email: customer.email, password: customer.password });
    expectStatus(blocked, 429);
    expect(client.cookie("session")).toBeUndefined();
    expect(await codeEmailsTo(app, customer.email, since)).toBe(0);

    app.clock.advance(11 * MINUTE); // 14 minutes after the 5th failure
    expectStatus(await client.post("auth/login", { email: customer.email, password: customer.password }), 429);

    app.clock.advance(1 * MINUTE); // 15 minutes after the 5th failure
    const res = await client.post("auth/login", { email: customer.email, password: customer.password });
    expectStatus(res, 200);
    expect(await codeEmailsTo(app, customer.email, since)).toBe(1);
  });

  test("4 failures do not block, and a success forgets them", async ({ app, customer }) => {
    const client = new TestClient(app);
    for (let i = 0; i < 4; i++) {
      expectStatus(await client.post("auth/login", { email: customer.email, password: "nope nope" }), 401);
    }
    expectStatus(await client.post("auth/login", { email: customer.email, password: customer.password }), 200);
    for (let i = 0; i < 4; i++) {
      expectStatus(await client.post("auth/login", { email: customer.email, password: "nope nope" }), 401);
    }
    expectStatus(await client.post("auth/login", { email: customer.email, password: customer.password }), 200);
  });

  test("after 5 wrong codes from one address its 6th — the right code — is 429; 15 minutes later a new code works", async ({ app, customer }) => {
    const client = new TestClient(app);
    expectStatus(await client.post("auth/login", { email: customer.email, password: customer.password }), 200);
    const code = await emailedCode(app.db, customer.email);
    for (let i = 0; i < 5; i++) {
      const res = await client.post("challenge", { token: otherCode(String((Number(code) + i) % 1_000_000)) });
      expectCodeRefused(res, 4 - i);
      app.clock.advance(1 * MINUTE);
    }
    const blocked = await client.post("challenge", { token: code });
    expectStatus(blocked, 429);
    expect((await client.get("account/whoami")).json.body.secondFactor).toBe(false);

    // A new login from the same place does not lift the limit either.
    const other = client.clone();
    other.clearCookies();
    expectStatus(await other.post("auth/login", { email: customer.email, password: customer.password }), 200);
    expectStatus(await other.post("challenge", { token: await emailedCode(app.db, customer.email) }), 429);

    app.clock.advance(15 * MINUTE);
    expectStatus(await other.post("challenge/resend"), 200);
    const res = await other.post("challenge", { token: await emailedCode(app.db, customer.email) });
    expectStatus(res, 200);
    expect(res.json.body.secondFactor).toBe(true);
  });
});

/** A page opened with the notices the last answer queued, sent back encoded as a browser sends them. */
function pageWithFlash(client: TestClient, path: string) {
  const flash = client.cookie("flash");
  if (flash) client.setCookie("flash", encodeURIComponent(flash));
  return client.get(path);
}

describe("how long a session lasts", () => {
  test("30 idle minutes end it; activity every 29 minutes keeps it", async ({ app, customer }) => {
    const client = new TestClient(app);
    await signIn(client, customer.email, customer.password);
    for (let i = 0; i < 4; i++) {
      app.clock.advance(29 * MINUTE);
      expectStatus(await client.get("account/whoami"), 200);
    }
    app.clock.advance(30 * MINUTE);
    const res = await client.get("account/whoami");
    expectStatus(res, 401);
    // The browser is told to forget the cookie.
    expect(client.cookie("session")).toBeUndefined();
  });

  test("a page asked with an expired session is a visitor's, and the browser forgets its copy of the user too", async ({ app, customer }) => {
    const client = new TestClient(app);
    await signIn(client, customer.email, customer.password);
    // What the sign-in form keeps in the browser (islands/lib/user-store.ts).
    client.setCookie("user", encodeURIComponent(JSON.stringify({ id: customer.id })));
    app.clock.advance(30 * MINUTE);
    const res = await client.get("/");
    expectStatus(res, 200);
    expect(res.text).toMatch(/<html [^>]*data-visitor>/);
    // Else the page would take this browser for signed in and load itself again (decision 069).
    expect(client.cookie("user")).toBeUndefined();
    expect(client.cookie("session")).toBeUndefined();
  });

  test("whoever comes back after 30 idle minutes is told why they were signed out, once, on the page they land on", async ({ app, customer }) => {
    const client = new TestClient(app);
    await signIn(client, customer.email, customer.password);
    app.clock.advance(30 * MINUTE);
    const page = await client.get("/account/balances");
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toBe("/");
    expect((await pageWithFlash(client, "/")).text).toContain(SIGNED_OUT.idle.description);
    // Said once: the next page does not say it again.
    expect((await client.get("/")).text).not.toContain(SIGNED_OUT.idle.description);
  });

  test("a page opened straight after the session's 12 hours says so at once", async ({ app, customer }) => {
    const client = new TestClient(app);
    const signedIn = await signIn(client, customer.email, customer.password);
    // A browser forgets the cookie once its Max-Age has passed since it was set (at the second
    // factor): it must still be sent after the session's end, or there is nobody left to tell.
    const cookie = signedIn.setCookies.find((c) => c.name === "session" && c.value);
    const forgottenAfter = Number(cookie?.attributes["max-age"]) * 1000;
    for (let i = 0; i < 24; i++) {
      app.clock.advance(29 * MINUTE);
      await client.get("account/whoami");
    }
    app.clock.advance(29 * MINUTE);
    if (!(25 * 29 * MINUTE < forgottenAfter)) client.setCookie("session", null);
    const home = await client.get("/");
    expect(home.text).toMatch(/<html [^>]*data-visitor>/);
    expect(home.text).toContain(SIGNED_OUT.expired.description);
    // The home page is kept for visitors (decision 058): never this visitor's, with their notice.
    expect((await new TestClient(app).get("/")).text).not.toContain(SIGNED_OUT.expired.description);
  });

  test("a session ended from another device (Sign out everywhere) says it was ended", async ({ app, customer }) => {
    const laptop = new TestClient(app);
    await signIn(laptop, customer.email, customer.password);
    await customer.client.post("/logout", "everywhere=1", { "content-type": "application/x-www-form-urlencoded" });
    expect((await pageWithFlash(laptop, "/")).text).toContain(SIGNED_OUT.ended.description);
  });

  test("the idle time counts from the last request: 29 min 30 s after it, the session is alive", async ({ app, customer }) => {
    const client = new TestClient(app);
    await signIn(client, customer.email, customer.password);
    app.clock.advance(40 * 1000);
    expectStatus(await client.get("account/whoami"), 200); // the last request
    app.clock.advance(29 * MINUTE + 30 * 1000);
    expectStatus(await client.get("account/whoami"), 200);
  });

  test("30 idle minutes less 1 ms do not end it", async ({ app, customer }) => {
    const client = new TestClient(app);
    await signIn(client, customer.email, customer.password);
    app.clock.advance(30 * MINUTE - 1);
    expectStatus(await client.get("account/whoami"), 200);
  });

  test("12 hours after login it ends, even with activity all along", async ({ app, customer }) => {
    const client = new TestClient(app);
    await signIn(client, customer.email, customer.password);
    const id = await sha256Hex(client.cookie("session")!);
    let elapsed = 0;
    while (elapsed + 25 * MINUTE < 12 * 60 * MINUTE) {
      app.clock.advance(25 * MINUTE);
      elapsed += 25 * MINUTE;
      expectStatus(await client.get("account/whoami"), 200);
    }
    app.clock.advance(12 * 60 * MINUTE - elapsed);
    expectStatus(await client.get("account/whoami"), 401);
    expect(client.cookie("session")).toBeUndefined();
    // The session row is gone too.
    const rows = await app.db.select().from(sessions).where(eq(sessions.id, id));
    expect(rows).toHaveLength(0);
  });
});

describe("the session cookie", () => {
  test("is HttpOnly, SameSite=Lax, Path=/, and not Secure in development", async ({ app, customer }) => {
    const client = new TestClient(app);
    const res = await client.post("auth/login", { email: customer.email, password: customer.password });
    expectStatus(res, 200);
    const cookie = res.setCookies.find((c) => c.name === "session" && c.value);
    expect(cookie, res.headers.get("set-cookie") ?? "").toBeDefined();
    expect("httponly" in cookie!.attributes).toBe(true);
    expect(cookie!.attributes.samesite).toBe("Lax");
    expect(cookie!.attributes.path).toBe("/");
    expect("secure" in cookie!.attributes).toBe(false);

    const challenge = await client.post("challenge", { token: await emailedCode(app.db, customer.email) });
    const rotated = challenge.setCookies.find((c) => c.name === "session" && c.value);
    expect(rotated?.attributes).toMatchObject({ path: "/", samesite: "Lax", httponly: "" });
  });

  test("is Secure in production", async ({ startApp }) => {
    const prod = await startApp({ env: { APP_ENV: "production" } });
    const customer = await registerCustomer(prod);
    const res = await new TestClient(prod).post("auth/login", { email: customer.email, password: customer.password });
    expectStatus(res, 200);
    const cookie = res.setCookies.find((c) => c.name === "session" && c.value);
    expect(cookie).toBeDefined();
    expect("secure" in cookie!.attributes).toBe(true);
    expect("httponly" in cookie!.attributes).toBe(true);
    expect(cookie!.attributes.samesite).toBe("Lax");
    expect(cookie!.attributes.path).toBe("/");
  });
});
