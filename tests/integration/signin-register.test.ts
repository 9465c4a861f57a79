import { eq, sql } from "drizzle-orm";
import { describe, expect, vi } from "vitest";
import { attributions, emails, users } from "../../db/schema.ts";
import {
  type ClientResponse,
  emailedToken,
  emailedValidationCode,
  expectRefusedWithTriesLeft,
  expectStatus,
  HOUR,
  PASSWORD,
  registerCustomer,
  TestClient,
  uniqueEmail,
} from "../helpers/client.ts";
import { type SigninApp, test } from "../helpers/fixtures.ts";
import { CODE_NO_LONGER_VALID } from "../../server/auth/attempts.ts";

/**
 * Registration and email validation, through the calls a browser makes: POST auth/register,
 * the emailed link, POST validation/validate and POST validation/resend.
 */

// Argon2 hashing makes every registration and login take a while on a busy machine.
vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

/** The user a registration created, from the address it answers. */
async function userIdOf(app: SigninApp, res: { json: { body: { email: string } } }) {
  const [row] = await app.db.select({ id: users.id }).from(users).where(eq(users.username, res.json.body.email));
  return row.id;
}

/** A link that does not work: refused on /verify with the tries left (decision 039). */
const expectLinkRefused = (res: ClientResponse, left: number) =>
  expectRefusedWithTriesLeft(res, "This link has expired or was already used: ask for a new one.", left);

/** A 6-digit code that is not this one. */
const otherCodeThan = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

/**
 * The next page this browser opens (the sign-in form at "/") says the address is confirmed and to
 * sign in (decision 077), once.
 */
async function expectToldToSignIn(browser: TestClient) {
  // Sent back as a browser sends it, still encoded (the test client keeps cookies decoded).
  browser.setCookie("flash", encodeURIComponent(browser.cookie("flash") ?? ""));
  const home = await browser.get("/");
  expect(home.status).toBe(200);
  expect(home.text).toContain("Email address confirmed");
  expect(home.text).toContain("Sign in with your email address and password to continue.");
  expect(home.text).toMatch(/id="sign-in"/);
  expect((await browser.get("/")).text).not.toContain("Email address confirmed");
}

async function userCount(app: SigninApp, username: string) {
  const rows = await app.db.select({ id: users.id }).from(users).where(eq(users.username, username));
  return rows.length;
}

describe("registering", () => {
  const email = `Mixed.Case-${crypto.randomUUID().slice(0, 6)}@Example.COM`;
  let client: TestClient;

  test("answers the address and sends them to /verify; nobody is signed in until the link is opened", async ({ app }) => {
    client = new TestClient(app);
    const res = await client.post("auth/register", { email, password: PASSWORD, type: "Personal" });
    expectStatus(res, 200);
    expect(res.json).toEqual({ body: { email: email.toLowerCase() }, redirect: "/verify" });
    expect(client.cookie("session")).toBeUndefined();
    expectStatus(await client.get("account/whoami"), 401);

    const [row] = await app.db.select().from(users).where(eq(users.username, email.toLowerCase()));
    expect(row).toMatchObject({ type: "Personal", level: "User", validated: false });

    // The link, opened in this browser, signs the new user in past the second factor.
    const { token } = await emailedToken(app.db, email.toLowerCase(), "email-validation");
    const validated = await client.post("validation/validate", { token });
    expectStatus(validated, 200);
    expect(validated.json.body).toMatchObject({ id: row.id, validated: true, secondFactor: true });
    expect((await client.get("account/whoami")).json.body).toMatchObject({ id: row.id, secondFactor: true });
    expect(client.cookie("registration")).toBeUndefined();
  });

  test("the username is stored lower-cased", async ({ app }) => {
    const [row] = await app.db.select().from(users).where(sql`lower(${users.username}) = ${email.toLowerCase()}`);
    expect(row.username).toBe(email.toLowerCase());
    expect(row.passwordHash).not.toContain(PASSWORD);
  });

  test("the same email again, in any case, answers as a new one would, creates nobody and signs nobody in", async ({ app }) => {
    for (const again of [email, email.toLowerCase(), email.toUpperCase(), `  ${email}  `]) {
      const intruder = new TestClient(app);
      const res = await intruder.post("auth/register", { email: again, password: PASSWORD, type: "Business" });
      expectStatus(res, 200);
      expect(res.json).toEqual({ body: { email: email.toLowerCase() }, redirect: "/verify" });
      expectStatus(await intruder.get("account/whoami"), 401);
    }
    expect(await userCount(app, email.toLowerCase())).toBe(1);
  });

  test("two registrations of one address at the same moment create one user, and answer alike", async ({ app }) => {
    const same = uniqueEmail("double-click");
    const answers = await Promise.all(
      [1, 2].map(() =>
        new TestClient(app).post("auth/register", { email: same, password: PASSWORD, type: "Personal" })
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers[0].text).toBe(answers[1].text);
    expect(await userCount(app, same)).toBe(1);
  });

  test.for<[string, Record<string, unknown>, string]>([
    ["a bad email", { email: "not-an-email" }, "email"],
    ["an email without a domain", { email: "someone@" }, "email"],
    ["a 7-character password", { password: "1234567" }, "password"],
    ["a 129-character password", { password: "p".repeat(129) }, "password"],
    ["no password", { password: undefined }, "password"],
    ["an unknown type", { type: "Corporate" }, "type"],
    ["no type", { type: undefined }, "type"],
  ])("%s is refused with 422 naming the field, and nobody is created", async ([_what, change, field], { app }) => {
    const address = uniqueEmail("invalid");
    const body = { email: address, password: PASSWORD, type: "Personal", ...change };
    const client = new TestClient(app);
    const res = await client.post("auth/register", body);
    expectStatus(res, 422);
    expect(Object.keys(res.json.fields)).toContain(field);
    expect(res.json.error).toBe(res.json.fields[field]);
    expect(client.cookie("session")).toBeUndefined();
    expect(await userCount(app, address)).toBe(0);
  });

  test("passwords of exactly 8 and 128 characters are accepted", async ({ app }) => {
    for (const password of ["12345678", "p".repeat(128)]) {
      const res = await new TestClient(app).post("auth/register", {
        email: uniqueEmail("edge"),
        password,
        type: "Personal",
      });
      expectStatus(res, 200);
    }
  });

  test("a visitor who arrived from another site has that site kept in the attributions table, with the utm_*", async ({ app }) => {
    // The form sends what the address said and the referrer the browser knows (document.referrer,
    // another site's only: tests/unit/forms-auth.test.tsx), since the page is kept (decision 069).
    const res = await new TestClient(app).post("auth/register", {
      email: uniqueEmail("utm"),
      password: PASSWORD,
      type: "Business",
      attribution: {
        utm_source: "newsletter",
        utm_medium: "email",
        utm_campaign: "spring-2026",
        utm_term: "fx transfer",
        utm_content: "banner-b",
        referrer: "https://partner.example/blog",
        landing_path: "/calculator",
      },
    });
    expectStatus(res, 200);
    const [row] = await app.db.select().from(attributions).where(eq(attributions.userId, await userIdOf(app, res)));
    expect(row).toMatchObject({
      utmSource: "newsletter",
      utmMedium: "email",
      utmCampaign: "spring-2026",
      utmTerm: "fx transfer",
      utmContent: "banner-b",
      referrer: "https://partner.example/blog",
      landingPath: "/calculator",
    });
  });

  test("a visitor who came straight to us has no referrer recorded, not our own registration page", async ({ app }) => {
    // The /register page keeps only a referrer from another site; the browser's call to
    // auth/register carries our own page as its Referer, which is not where the visitor came from.
    const res = await new TestClient(app).post(
      "auth/register",
      {
        email: uniqueEmail("direct"),
        password: PASSWORD,
        type: "Personal",
        attribution: { landing_path: "/register" },
      },
      { referer: "http://localhost/register" },
    );
    expectStatus(res, 200);
    const [row] = await app.db.select().from(attributions).where(eq(attributions.userId, await userIdOf(app, res)));
    expect(row.landingPath).toBe("/register");
    expect(row.referrer).toBeNull();
  });
});

describe("the register page", () => {
  /** The page as a visitor gets it, uncompressed, arriving from `referer`. */
  const registerPage = async (app: SigninApp, path: string, referer?: string) => {
    const res = await app.app.request(path, {
      headers: { "accept-encoding": "identity", ...(referer ? { referer } : {}) },
    });
    expect(res.status).toBe(200);
    return { csp: res.headers.get("content-security-policy") ?? "", bytes: new Uint8Array(await res.arrayBuffer()) };
  };

  test("is the same bytes for visitors arriving from two different sites: where they came from is not in it", async ({ app }) => {
    const path = `/register?utm_source=newsletter&ref=FRIEND42&n=${crypto.randomUUID().slice(0, 6)}`;
    const fromA = await registerPage(app, path, "https://news.example/article");
    const fromB = await registerPage(app, path, "https://other.example/forum?t=1");
    const direct = await registerPage(app, path);
    expect(fromB.bytes).toEqual(fromA.bytes);
    expect(direct.bytes).toEqual(fromA.bytes);
    // Kept for every visitor (decision 058): no nonce, our own scripts only.
    expect(fromB.csp).not.toContain("nonce-");
    const html = new TextDecoder().decode(fromB.bytes);
    expect(html).not.toContain("news.example");
    expect(html).not.toContain("other.example");
    // What the address says is in it: the campaign, the referral code and where they landed.
    expect(html).toContain("newsletter");
    expect(html).toContain("FRIEND42");
    expect(html).toContain(`"landing_path":"${path}"`);
  });

  test("another address is another page: the campaign of each is its own", async ({ app }) => {
    const tag = crypto.randomUUID().slice(0, 6);
    const spring = new TextDecoder().decode((await registerPage(app, `/register?utm_campaign=spring-${tag}`)).bytes);
    const autumn = new TextDecoder().decode((await registerPage(app, `/register?utm_campaign=autumn-${tag}`)).bytes);
    expect(spring).toContain(`spring-${tag}`);
    expect(autumn).toContain(`autumn-${tag}`);
    expect(autumn).not.toContain(`spring-${tag}`);
  });
});

describe("validating the email address", () => {
  test("the validation email's text part links to http://localhost/verify?token=...", async ({ app, unverified: { email } }) => {
    const { link, token } = await emailedToken(app.db, email, "email-validation");
    expect(link).toMatch(/^http:\/\/localhost\/verify\?token=[A-Za-z0-9_-]{40,}$/);
    expect(token.length).toBeGreaterThanOrEqual(40);
  });

  test("the link's token, opened where nobody is signed in, validates the account and tells that browser nothing of the person", async ({ app }) => {
    const personal = await registerCustomer(app, { type: "Personal", validate: false });
    const business = await registerCustomer(app, { type: "Business", validate: false });

    for (const who of [personal, business]) {
      const { token } = await emailedToken(app.db, who.email, "email-validation");
      // Opened where nobody is signed in (the link may be opened on a phone).
      const browser = new TestClient(app);
      const res = await browser.post("validation/validate", { token });
      expectStatus(res, 200);
      // Whoever holds the link learns nothing of whose it is: no name, account or email.
      expect(res.json.body).toBeNull();
      // Nobody is signed in there, so the profile screen is for later: first sign in, told why (decision 077).
      expect(res.json.redirect).toBe("/");
      await expectToldToSignIn(browser);

      const whoami = await who.client.get("account/whoami");
      expect(whoami.json.body.validated).toBe(true);
    }
  });

  test("the link opened a second time, in any browser, says the address is confirmed and to sign in; it signs nobody in", async ({ app }) => {
    const who = await registerCustomer(app, { validate: false });
    const { token } = await emailedToken(app.db, who.email, "email-validation");
    expectStatus(await new TestClient(app).post("validation/validate", { token }), 200);

    // A second click in the email opens another tab, or the phone's browser.
    const again = new TestClient(app);
    const res = await again.post("validation/validate", { token });
    expectStatus(res, 200);
    expect(res.json.redirect).toBe("/");
    // An old link (a browser's history, a forwarded email) tells its holder nothing of the person.
    expect(res.json.body).toBeNull();
    expect(JSON.stringify(res.json)).not.toContain(who.email);
    expect(again.cookie("session")).toBeUndefined();
    await expectToldToSignIn(again);
  });

  test("a link that lapsed before its address was confirmed still asks for a new one", async ({ app }) => {
    const who = await registerCustomer(app, { validate: false });
    const { token: old } = await emailedToken(app.db, who.email, "email-validation");
    expectStatus(await who.client.post("validation/resend"), 200);
    const res = await new TestClient(app).post("validation/validate", { token: old });
    expect(res.status).toBe(422);
    expect(res.json.error).toMatch(/^This link has expired or was already used: ask for a new one\./);
    expect((await who.client.get("account/whoami")).json.body.validated).toBe(false);
  });

  test("in the browser that registered, the link goes on to the profile screen of the type", async ({ app }) => {
    const browser = new TestClient(app);
    const email = uniqueEmail("business-link");
    expectStatus(await browser.post("auth/register", { email, password: PASSWORD, type: "Business" }), 200);
    const { token } = await emailedToken(app.db, email, "email-validation");
    const res = await browser.post("validation/validate", { token });
    expectStatus(res, 200);
    expect(res.json.redirect).toBe("/register-business");
    expect(res.json.body).toMatchObject({ type: "Business", validated: true, secondFactor: true });
  });

  test("validating in the browser that registered passes its second factor with a new session token", async ({ app, unverified: customer }) => {
    const before = customer.client.cookie("session");
    const { token } = await emailedToken(app.db, customer.email);
    const res = await customer.client.post("validation/validate", { token });
    expectStatus(res, 200);
    expect(res.json.body.secondFactor).toBe(true);
    expect(customer.client.cookie("session")).not.toBe(before);
    const old = customer.client.clone();
    old.setCookie("session", before!);
    expectStatus(await old.get("account/whoami"), 401);
  });

  test("the same token twice: the second time confirms nothing more and says to sign in", async ({ app, unverified: { email } }) => {
    const { token } = await emailedToken(app.db, email);
    const browser = new TestClient(app);
    expectStatus(await browser.post("validation/validate", { token }), 200);
    const again = await browser.post("validation/validate", { token });
    expectStatus(again, 200);
    expect(again.json).toEqual({ body: null, redirect: "/" });
    expect(browser.cookie("session")).toBeUndefined();
  });

  test("a wrong token is refused on the page, naming the token, and validates nobody", async ({ app, unverified: customer }) => {
    const { token } = await emailedToken(app.db, customer.email);
    const wrong = token.slice(0, -2) + (token.endsWith("AA") ? "BB" : "AA");
    const res = await new TestClient(app).post("validation/validate", { token: wrong });
    expectLinkRefused(res, 4);
    expect((await customer.client.get("account/whoami")).json.body.validated).toBe(false);
  });

  test("validation/resend emails a new token; the old one stops working", async ({ app, unverified: customer }) => {
    const { token: first } = await emailedToken(app.db, customer.email);
    const resent = await customer.client.post("validation/resend");
    expectStatus(resent, 200);
    expect(resent.json.body).toEqual({ sent: true });
    const { token: second } = await emailedToken(app.db, customer.email, "email-validation");
    expect(second).not.toBe(first);

    const browser = new TestClient(app);
    const old = await browser.post("validation/validate", { token: first });
    expectLinkRefused(old, 4);
    expectStatus(await browser.post("validation/validate", { token: second }), 200);
  });

  test("validation/resend for a visitor is refused and sends nothing", async ({ app }) => {
    const before = (await app.db.select({ n: sql<number>`count(*)` }).from(emails))[0].n;
    expectStatus(await new TestClient(app).post("validation/resend"), 401);
    expect((await app.db.select({ n: sql<number>`count(*)` }).from(emails))[0].n).toBe(before);
  });
});

describe("the address confirmed on another device (decision 077)", () => {
  /** Registers in a new browser (the laptop) and opens the emailed link in another one (the phone). */
  async function confirmedOnAPhone(app: SigninApp) {
    const laptop = new TestClient(app);
    const email = uniqueEmail("laptop");
    expectStatus(await laptop.post("auth/register", { email, password: PASSWORD, type: "Personal" }), 200);
    const { token } = await emailedToken(app.db, email, "email-validation");
    const code = await emailedValidationCode(app.db, email);
    const phone = new TestClient(app);
    const opened = await phone.post("validation/validate", { token });
    expectStatus(opened, 200);
    return { laptop, phone, opened, email, token, code };
  }

  test("the phone is told the address is confirmed and is sent to sign in; nobody is signed in there", async ({ app }) => {
    const { phone, opened } = await confirmedOnAPhone(app);
    expect(opened.json).toMatchObject({
      body: null,
      redirect: "/",
    });
    expect(phone.cookie("session")).toBeUndefined();
    await expectToldToSignIn(phone);
    expectStatus(await phone.get("account/whoami"), 401);
  });

  test("the laptop's right code, the link again, and /verify each say so and send it to sign in, signing nobody in", async ({ app }) => {
    const { laptop, email, token, code } = await confirmedOnAPhone(app);
    for (
      const [what, tried] of [
        ["the right code", (browser: TestClient) => browser.post("validation/validate", { token: code })],
        ["the link again", (browser: TestClient) => browser.post("validation/validate", { token })],
        ["a wrong code", (browser: TestClient) => browser.post("validation/validate", { token: otherCodeThan(code) })],
      ] as const
    ) {
      // Each of them, one after the other, in the same browser: told each time, never signed in.
      const res = await tried(laptop);
      expect(res.status, what).toBe(200);
      expect(res.json, what).toMatchObject({
        body: null,
        redirect: "/",
      });
      expect(laptop.cookie("session"), what).toBeUndefined();
      await expectToldToSignIn(laptop);
      expectStatus(await laptop.get("account/whoami"), 401);
    }

    for (const path of ["/verify", `/verify?token=${token}`, "/verify"]) {
      const page = await laptop.get(path);
      expect(page.status, path).toBe(302);
      expect(page.headers.get("location"), path).toBe("/");
      await expectToldToSignIn(laptop);
    }
    // /auth, as before, sends a browser where nobody is signed in home.
    expect((await laptop.get("/auth")).headers.get("location")).toBe("/");

    // Signing in with the password then asks for the second factor, as any sign-in does.
    const login = await laptop.clone().post("auth/login", { email, password: PASSWORD });
    expectStatus(login, 200);
    expect(login.json.body).toMatchObject({ validated: true, secondFactor: false });
  });

  test("before the link is opened, /verify in the browser that registered is the form, and a wrong code is wrong", async ({ app }) => {
    const laptop = new TestClient(app);
    const email = uniqueEmail("laptop-waiting");
    expectStatus(await laptop.post("auth/register", { email, password: PASSWORD, type: "Personal" }), 200);
    const page = await laptop.get("/verify");
    expect(page.status).toBe(200);
    expect(page.text).toContain(email);
    const code = await emailedValidationCode(app.db, email);
    expectRefusedWithTriesLeft(
      await laptop.post("validation/validate", { token: otherCodeThan(code) }),
      "That code is not right.",
      2,
    );
  });

  test("the code of an earlier email, after a new link was sent, is refused as no longer valid, not as mistyped", async ({ app }) => {
    const laptop = new TestClient(app);
    const email = uniqueEmail("first-email");
    expectStatus(await laptop.post("auth/register", { email, password: PASSWORD, type: "Personal" }), 200);
    const first = await emailedValidationCode(app.db, email);
    expectStatus(await laptop.post("validation/resend"), 200);
    const newest = await emailedValidationCode(app.db, email);
    if (newest === first) return; // one chance in a million: the same six digits twice
    expectRefusedWithTriesLeft(
      await laptop.post("validation/validate", { token: first }),
      CODE_NO_LONGER_VALID,
      2,
    );
    expectStatus(await laptop.post("validation/validate", { token: newest }), 200);
  });

  test("a signed-in customer whose address was confirmed meanwhile is sent on to /auth, still without the second factor", async ({ app, unverified }) => {
    const { token } = await emailedToken(app.db, unverified.email, "email-validation");
    const code = await emailedValidationCode(app.db, unverified.email);
    expectStatus(await new TestClient(app).post("validation/validate", { token }), 200);
    const res = await unverified.client.post("validation/validate", { token: code });
    expectStatus(res, 200);
    expect(res.json).toMatchObject({ body: { validated: true, secondFactor: false }, redirect: "/auth" });
    expect((await unverified.client.get("account/whoami")).json.body.secondFactor).toBe(false);
  });
});

describe("an address mistyped when registering", () => {
  test("/verify names it and offers to open an account with the right one, rather than waiting for mail that never comes", async ({ app }) => {
    const browser = new TestClient(app);
    await registerCustomer(app, { email: "ada@exmaple.com", validate: false, client: browser });
    const page = await browser.get("/verify");
    expect(page.status).toBe(200);
    expect(page.text).toContain("ada@exmaple.com");
    expect(page.text).toMatch(/Not your address\?.*href="\/register"/s);

    // Where nobody's address is known (the link opened on a phone), there is none to correct.
    expect((await new TestClient(app).get("/verify")).text).not.toContain("Not your address?");
  });
});

describe("a validation link opened where someone else is signed in", () => {
  test("says whose browser it is and offers to sign out and open the link again, rather than going to their account", async ({ app, customer: signedIn }) => {
    // Someone registers at a computer where another person is still signed in, and opens the link there.
    const newcomer = await registerCustomer(app, { validate: false });
    const { token } = await emailedToken(app.db, newcomer.email, "email-validation");
    const link = `/verify?token=${token}`;

    const page = await signedIn.client.get(link);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`You are signed in as ${signedIn.email}`);
    expect(page.text).not.toContain(newcomer.email);

    const signedOut = await signedIn.client.post(
      "/logout",
      `next=${encodeURIComponent(link)}`,
      { "content-type": "application/x-www-form-urlencoded" },
    );
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get("location")).toBe(link);
    expectStatus(await signedIn.client.post("validation/validate", { token }), 200);
    expect((await newcomer.client.get("account/whoami")).json.body.validated).toBe(true);
  });

  test("their own link, opened again once confirmed, goes on as before", async ({ app }) => {
    const customer = await registerCustomer(app, { validate: false });
    const { token } = await emailedToken(app.db, customer.email, "email-validation");
    expectStatus(await customer.client.post("validation/validate", { token }), 200);
    const page = await customer.client.get(`/verify?token=${token}`);
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toBe("/auth");
  });
});

describe("validation tokens expire after 24 hours", () => {
  test("a token is good at 24 h - 1 ms and refused at 24 h + 1 ms", async ({ startApp }) => {
    const app = await startApp();
    const early = await registerCustomer(app, { validate: false });
    const late = await registerCustomer(app, { validate: false });
    const { token: earlyToken } = await emailedToken(app.db, early.email);
    const { token: lateToken } = await emailedToken(app.db, late.email);

    app.clock.advance(24 * HOUR - 1);
    expectStatus(await new TestClient(app).post("validation/validate", { token: earlyToken }), 200);

    app.clock.advance(2);
    const res = await new TestClient(app).post("validation/validate", { token: lateToken });
    expectLinkRefused(res, 4);
  });
});

describe("registrations from one address", () => {
  test("10 an hour are accepted, the 11th is 429; another address is not affected; an hour later it works again", async ({ startApp }) => {
    const app = await startApp();
    const address = "203.0.113.77";
    for (let i = 0; i < 10; i++) {
      const res = await new TestClient(app, { address }).post("auth/register", {
        email: uniqueEmail("burst"),
        password: PASSWORD,
        type: "Personal",
      });
      expectStatus(res, 200);
      app.clock.advance(5 * 60 * 1000);
    }
    const refused = uniqueEmail("burst");
    const eleventh = await new TestClient(app, { address }).post("auth/register", {
      email: refused,
      password: PASSWORD,
      type: "Personal",
    });
    expectStatus(eleventh, 429);
    expect(eleventh.json.error).toBeTruthy();
    const [row] = await app.db.select().from(users).where(eq(users.username, refused));
    expect(row).toBeUndefined();

    expectStatus(
      await new TestClient(app).post("auth/register", {
        email: uniqueEmail("elsewhere"),
        password: PASSWORD,
        type: "Personal",
      }),
      200,
    );

    app.clock.advance(HOUR);
    expectStatus(
      await new TestClient(app, { address }).post("auth/register", {
        email: refused,
        password: PASSWORD,
        type: "Personal",
      }),
      200,
    );
  });
});

describe("the client address behind our proxy", () => {
  test("an X-Forwarded-For entry forged by the client does not get around the per-address limit", async ({ startApp }) => {
    // Our proxy appends the address it saw to whatever X-Forwarded-For the client sent, so only the
    // last entry is known to be true; the ones before it are whatever the client wrote.
    const app = await startApp();
    const real = "203.0.113.50";
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const client = new TestClient(app, { address: null });
      const res = await client.post("auth/register", {
        email: uniqueEmail("forged"),
        password: PASSWORD,
        type: "Personal",
      }, {
        "x-forwarded-for": `10.66.0.${i + 1}, ${real}`,
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
  });
});

describe("wrong validation tokens", () => {
  test("after 5 wrong tokens from a browser, the 6th — the right one — is 429; 15 minutes later it works", async ({ startApp }) => {
    const app = await startApp();
    const customer = await registerCustomer(app, { validate: false });
    const { token } = await emailedToken(app.db, customer.email);
    for (let i = 0; i < 5; i++) {
      expectLinkRefused(
        await customer.client.post("validation/validate", { token: `wrong-token-${i}-${"x".repeat(30)}` }),
        4 - i,
      );
    }
    expectStatus(await customer.client.post("validation/validate", { token }), 429);
    app.clock.advance(15 * 60 * 1000);
    expectStatus(await customer.client.post("validation/validate", { token }), 200);
  });
});

/**
 * The validation email's 6-digit code, guessed from many addresses with the `registration` cookie
 * (security review, finding 4; decision 072): each new address used to get 5 fresh guesses at a
 * code that lives 24 hours and, right, signs the browser in past the second factor.
 */
describe("the validation code, guessed from many addresses", () => {
  const RETIRED = "That code no longer works after too many wrong tries: ask for a new one.";
  const PAUSED = "Too many wrong codes today: open the link in the email, or try a code again tomorrow.";

  /** A 6-digit code that is not this one. */
  const otherCode = (code: string, i = 0) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, "0");
  /** The registering browser's cookie, sent from a new address each time. */
  const elsewhere = (browser: TestClient) => browser.clone({ address: undefined });

  async function register(app: SigninApp, email: string) {
    const browser = new TestClient(app);
    expectStatus(await browser.post("auth/register", { email, password: PASSWORD, type: "Personal" }), 200);
    return browser;
  }

  test("the third wrong try retires the code: the right one is then refused; a new code works", async ({ app }) => {
    const email = uniqueEmail("guessed");
    const browser = await register(app, email);
    const code = await emailedValidationCode(app.db, email);

    expectRefusedWithTriesLeft(
      await elsewhere(browser).post("validation/validate", { token: otherCode(code, 0) }),
      "That code is not right.",
      2,
    );
    expectRefusedWithTriesLeft(
      await elsewhere(browser).post("validation/validate", { token: otherCode(code, 1) }),
      "That code is not right.",
      1,
    );
    const third = await elsewhere(browser).post("validation/validate", { token: otherCode(code, 2) });
    expectStatus(third, 422);
    expect(third.json.fields).toEqual({ token: RETIRED });
    // The right code, from yet another address or from the browser itself: retired.
    for (const client of [elsewhere(browser), browser]) {
      const right = await client.post("validation/validate", { token: code });
      expectStatus(right, 422);
      expect(right.json.fields).toEqual({ token: RETIRED });
    }
    expectStatus(await browser.get("account/whoami"), 401);

    // The customer asks for a new one: it has its tries again, and works.
    expectStatus(await browser.post("validation/resend"), 200);
    const fresh = await emailedValidationCode(app.db, email);
    expectRefusedWithTriesLeft(
      await browser.post("validation/validate", { token: otherCode(fresh) }),
      "That code is not right.",
      2,
    );
    const validated = await browser.post("validation/validate", { token: fresh });
    expectStatus(validated, 200);
    expect(validated.json.body).toMatchObject({ validated: true, secondFactor: true });
  });

  test("tries at a code already retired (a double submit, a retry) do not use up the day's wrong codes", async ({ app }) => {
    const email = uniqueEmail("retried");
    const browser = await register(app, email);
    const code = await emailedValidationCode(app.db, email);
    for (let i = 0; i < 3; i++) {
      expectStatus(await elsewhere(browser).post("validation/validate", { token: otherCode(code, i) }), 422);
    }
    for (let i = 0; i < 8; i++) {
      const again = await elsewhere(browser).post("validation/validate", { token: otherCode(code, i) });
      expectStatus(again, 422);
      expect(again.json.fields).toEqual({ token: RETIRED });
    }
    // Three wrong codes today, not eleven: the new code still works.
    expectStatus(await browser.post("validation/resend"), 200);
    const validated = await browser.post("validation/validate", { token: await emailedValidationCode(app.db, email) });
    expectStatus(validated, 200);
  });

  test("10 wrong codes in a day, across new codes, stop codes for a day; the emailed link still works", async ({ app }) => {
    const email = uniqueEmail("hammered");
    const browser = await register(app, email);
    for (let i = 0; i < 9; i++) {
      if (i > 0 && i % 3 === 0) expectStatus(await browser.post("validation/resend"), 200);
      const code = await emailedValidationCode(app.db, email);
      expectStatus(await elsewhere(browser).post("validation/validate", { token: otherCode(code) }), 422);
    }
    expectStatus(await browser.post("validation/resend"), 200);
    const code = await emailedValidationCode(app.db, email);
    const tenth = await elsewhere(browser).post("validation/validate", { token: otherCode(code) });
    expectStatus(tenth, 422);
    expect(tenth.json.fields).toEqual({ token: PAUSED });
    // Even the right code, even signed in with the password.
    const right = await elsewhere(browser).post("validation/validate", { token: code });
    expectStatus(right, 429);
    expect(right.json.error).toBe(PAUSED);
    const signedIn = new TestClient(app);
    expectStatus(await signedIn.post("auth/login", { email, password: PASSWORD }), 200);
    expectStatus(await signedIn.post("validation/validate", { token: code }), 429);

    const { token } = await emailedToken(app.db, email, "email-validation");
    expectStatus(await browser.post("validation/validate", { token }), 200);
  });

  test("a registration of an address that has an account is answered alike, guess for guess", async ({ app, customer: owner }) => {
    const fresh = await register(app, uniqueEmail("alike"));
    const taken = await register(app, owner.email);
    const answers = async (browser: TestClient) => {
      const seen = [];
      for (let i = 0; i < 4; i++) {
        const res = await elsewhere(browser).post("validation/validate", { token: String(200000 + i) });
        seen.push([res.status, res.json.error]);
      }
      return seen;
    };
    const forFresh = await answers(fresh);
    expect(forFresh.at(-1)).toEqual([422, RETIRED]);
    expect(await answers(taken)).toEqual(forFresh);
  });
});
