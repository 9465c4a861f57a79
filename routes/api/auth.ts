import { and, eq, isNull } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { attributions, users } from "../../db/schema.ts";
import { hashPassword, passwordProblem, verifyPassword } from "../../server/auth/password.ts";
import {
  FORGOT_PER_ACCOUNT,
  FORGOT_PER_ADDRESS,
  LOGIN_FAILURES,
  REGISTRATIONS_PER_ADDRESS,
  RESENDS_PER_USER,
  SECOND_FACTOR_FAILURES,
  TOKEN_FAILURES,
} from "../../server/auth/rate-limit.ts";
import { clientAddress } from "../../server/auth/sessions.ts";
import {
  findUser,
  findUserByUsername,
  normalizeUsername,
  summaryOf,
  type UserRow,
  userWithSummary,
} from "../../server/auth/users.ts";
import { verifyTotp } from "../../server/auth/totp.ts";
import type { AppEnv } from "../../server/env.ts";
import { loggedin, registerScreen } from "../../server/guards.ts";
import { ApiError, ok } from "../../server/http/api.ts";
import { valid } from "../../server/http/validate.ts";
import { flash } from "../../server/render/flash.ts";
import { emailValidation, passwordChanged, passwordReset, secondFactorCode } from "../../server/mail/index.ts";

/** SPEC.md section 8: a wrong password, code or token is a 401 whose error is 'Bad credentials'. */
export const BAD_CREDENTIALS = "Bad credentials";
const TOO_MANY = "Too many attempts. Try again in 15 minutes.";

const email = z.string().trim().toLowerCase().pipe(z.email({ error: "Enter a valid email address." })).pipe(
  z.string().max(254, { error: "Enter a valid email address." }),
);
const password = z.string({ error: "Password is required." }).superRefine((value, ctx) => {
  const problem = passwordProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});
const token = z.string({ error: "Enter the code or token." }).trim().min(1, { error: "Enter the code or token." }).max(
  200,
);
const attributionText = z.string().trim().max(500).optional();

const registration = z.object({
  email,
  password,
  type: z.enum(["Personal", "Business"], { error: "Choose Personal or Business." }),
  referral_code: z.string().trim().max(64).optional().nullable(),
  attribution: z.object({
    utm_source: attributionText,
    utm_medium: attributionText,
    utm_campaign: attributionText,
    utm_term: attributionText,
    utm_content: attributionText,
    referrer: attributionText,
    landing_path: attributionText,
  }).optional(),
});

/** Emails a new validation link; the link opens /verify with the token. */
async function sendValidation(c: import("hono").Context<AppEnv>, user: Pick<UserRow, "id" | "username">) {
  const { verifications, mailer } = c.get("services");
  const secret = await verifications.issue(user.id, "email-validation");
  const link = `${c.get("config").publicUrl}/verify?token=${encodeURIComponent(secret)}`;
  await mailer.send({
    to: user.username,
    userId: user.id,
    template: "email-validation",
    rendered: emailValidation({ link, token: secret }),
  });
}

/** Emails a new 6-digit second-factor code, valid 10 minutes. */
async function sendCode(c: import("hono").Context<AppEnv>, user: Pick<UserRow, "id" | "username">) {
  const { verifications, mailer } = c.get("services");
  const code = await verifications.issue(user.id, "second-factor");
  await mailer.send({
    to: user.username,
    userId: user.id,
    template: "second-factor-code",
    rendered: secondFactorCode({ code }),
  });
}

async function summary(c: import("hono").Context<AppEnv>, userId: number, secondFactor: boolean) {
  const found = await userWithSummary(c.get("db"), userId, secondFactor);
  if (!found) throw new ApiError(401, BAD_CREDENTIALS);
  return found.summary;
}

function requireSession(c: import("hono").Context<AppEnv>) {
  const session = c.get("session");
  if (!session || !c.get("user")) throw new ApiError(401, "Please sign in.", { redirect: "/" });
  return session;
}

// One statement per route, never a chain: a chain's types pile up (decision 010).
export const auth = new Hono<AppEnv>();

auth.post("/auth/register", valid("json", registration), async (c) => {
  const { limiter, sessions } = c.get("services");
  const body = c.req.valid("json");
  const addressKey = `register:address:${clientAddress(c)}`;
  if (await limiter.isBlocked(addressKey)) {
    throw new ApiError(429, "Too many registrations from here. Try again later.");
  }
  await limiter.hit(addressKey, REGISTRATIONS_PER_ADDRESS);
  if (await findUserByUsername(c.get("db"), body.email)) {
    throw new ApiError(422, "An account with this email already exists. Sign in instead.", {
      fields: { email: "An account with this email already exists. Sign in instead." },
    });
  }
  const passwordHash = await hashPassword(body.password);
  const now = new Date(c.get("services").now());
  const user = await c.get("db").transaction(async (tx) => {
    const [created] = await tx.insert(users).values({
      username: body.email,
      passwordHash,
      type: body.type,
      referralCode: body.referral_code || null,
      createdAt: now,
    }).onConflictDoNothing().returning();
    if (!created) return null;
    const a = body.attribution ?? {};
    await tx.insert(attributions).values({
      userId: created.id,
      utmSource: a.utm_source || null,
      utmMedium: a.utm_medium || null,
      utmCampaign: a.utm_campaign || null,
      utmTerm: a.utm_term || null,
      utmContent: a.utm_content || null,
      // Only what the register page saw: this call's own Referer is always our register page.
      referrer: a.referrer || null,
      landingPath: a.landing_path || null,
      createdAt: now,
    });
    return created;
  });
  if (!user) {
    throw new ApiError(422, "An account with this email already exists. Sign in instead.", {
      fields: { email: "An account with this email already exists. Sign in instead." },
    });
  }
  await sendValidation(c, user);
  const session = await sessions.start(c, user.id, false);
  c.set("session", session);
  return ok(c, await summaryOf(c.get("db"), user, false), { redirect: "/verify" });
});

auth.post("/validation/resend", loggedin, async (c) => {
  requireSession(c);
  const user = await findUser(c.get("db"), c.get("user")!.id);
  if (!user) throw new ApiError(401, "Please sign in.");
  if (user.validated) throw new ApiError(409, "Your email address is already confirmed.", { redirect: "/auth" });
  const key = `resend:${user.id}`;
  if (await c.get("services").limiter.isBlocked(key)) throw new ApiError(429, TOO_MANY);
  await c.get("services").limiter.hit(key, RESENDS_PER_USER);
  await sendValidation(c, user);
  return ok(c, { sent: true });
});

auth.post("/validation/validate", valid("json", z.object({ token })), async (c) => {
  const { verifications, limiter, sessions } = c.get("services");
  const signedIn = c.get("user");
  const limitKey = signedIn ? `validate:user:${signedIn.id}` : `validate:address:${clientAddress(c)}`;
  if (await limiter.isBlocked(limitKey)) throw new ApiError(429, TOO_MANY);
  const userId = await verifications.consume("email-validation", c.req.valid("json").token);
  if (userId === null) {
    await limiter.hit(limitKey, TOKEN_FAILURES);
    throw new ApiError(401, BAD_CREDENTIALS);
  }
  await limiter.clear(limitKey);
  await c.get("db").update(users).set({ validated: true }).where(eq(users.id, userId));
  let secondFactor = false;
  const session = c.get("session");
  if (session && session.userId === userId) {
    // Opening the emailed token proves control of the mailbox, as an emailed code would: the
    // session passes its second factor, with a fresh token.
    c.set("session", await sessions.rotate(c, session, true));
    secondFactor = true;
  }
  const user = await summary(c, userId, secondFactor);
  return ok(c, user, { redirect: registerScreen(user) });
});

auth.post(
  "/auth/login",
  valid("json", z.object({ email: z.string().trim().max(254), password: z.string().max(1000) })),
  async (c) => {
    const { limiter, sessions } = c.get("services");
    const { email: username, password: given } = c.req.valid("json");
    const key = `login:${normalizeUsername(username)}`;
    if (await limiter.isBlocked(key)) throw new ApiError(429, TOO_MANY);
    const user = await findUserByUsername(c.get("db"), username);
    if (!(await verifyPassword(user?.passwordHash, given)) || !user) {
      await limiter.hit(key, LOGIN_FAILURES);
      throw new ApiError(401, BAD_CREDENTIALS);
    }
    await limiter.clear(key);
    await sessions.end(c, c.get("session"));
    const session = await sessions.start(c, user.id, false);
    c.set("session", session);
    const validated = user.validated || user.level === "Admin";
    if (validated && !user.totpSecret) await sendCode(c, user);
    return ok(c, await summaryOf(c.get("db"), user, false), { redirect: "/auth" });
  },
);

auth.post("/auth/logout", async (c) => {
  await c.get("services").sessions.end(c, c.get("session"));
  return ok(c, { ok: true }, { redirect: "/" });
});

auth.post("/challenge", loggedin, valid("json", z.object({ token })), async (c) => {
  const session = requireSession(c);
  const { limiter, verifications, sessions, secretBox, now } = c.get("services");
  const key = `challenge:${session.userId}`;
  if (await limiter.isBlocked(key)) throw new ApiError(429, TOO_MANY);
  const user = await findUser(c.get("db"), session.userId);
  if (!user) throw new ApiError(401, BAD_CREDENTIALS);
  const code = c.req.valid("json").token.replace(/\s+/g, "");
  let passed = false;
  if (user.totpSecret) {
    const secret = await secretBox.open(user.totpSecret);
    const step = verifyTotp(secret, code, now(), user.totpLastStep);
    if (step !== null) {
      // Conditional on the last step seen, so the same code cannot pass twice even at once.
      const moved = await c.get("db").update(users).set({ totpLastStep: step }).where(
        and(
          eq(users.id, user.id),
          user.totpLastStep === null ? isNull(users.totpLastStep) : eq(users.totpLastStep, user.totpLastStep),
        ),
      ).returning({ id: users.id });
      passed = moved.length === 1;
    }
  }
  if (!passed) passed = (await verifications.consume("second-factor", code, user.id)) !== null;
  if (!passed) {
    await limiter.hit(key, SECOND_FACTOR_FAILURES);
    throw new ApiError(401, BAD_CREDENTIALS);
  }
  await limiter.clear(key);
  c.set("session", await sessions.rotate(c, session, true));
  return ok(c, await summaryOf(c.get("db"), user, true), { redirect: "/auth" });
});

auth.post("/challenge/resend", loggedin, async (c) => {
  const session = requireSession(c);
  const key = `resend:${session.userId}`;
  if (await c.get("services").limiter.isBlocked(key)) throw new ApiError(429, TOO_MANY);
  await c.get("services").limiter.hit(key, RESENDS_PER_USER);
  const user = await findUser(c.get("db"), session.userId);
  if (!user) throw new ApiError(401, BAD_CREDENTIALS);
  await sendCode(c, user);
  return ok(c, { sent: true });
});

auth.post("/auth/forgot", valid("json", z.object({ username: z.string().trim().max(254) })), async (c) => {
  const { limiter, verifications, mailer } = c.get("services");
  const addressKey = `forgot:address:${clientAddress(c)}`;
  if (await limiter.isBlocked(addressKey)) throw new ApiError(429, "Too many requests from here. Try again later.");
  await limiter.hit(addressKey, FORGOT_PER_ADDRESS);
  const username = normalizeUsername(c.req.valid("json").username);
  const user = await findUserByUsername(c.get("db"), username);
  const accountKey = `forgot:account:${username}`;
  // The answer is the same whether or not the account exists, and whether or not this one was
  // over its own limit: nothing here tells who has an account.
  if (user && !(await limiter.isBlocked(accountKey))) {
    await limiter.hit(accountKey, FORGOT_PER_ACCOUNT);
    const secret = await verifications.issue(user.id, "password-reset");
    const link = `${c.get("config").publicUrl}/forgot?token=${encodeURIComponent(secret)}&username=${
      encodeURIComponent(user.username)
    }`;
    await mailer.send({
      to: user.username,
      userId: user.id,
      template: "password-reset",
      rendered: passwordReset({ link, token: secret }),
    });
  }
  return ok(c, { sent: true });
});

auth.post(
  "/auth/forgot/reset",
  valid("json", z.object({ username: z.string().trim().max(254), token, password })),
  async (c) => {
    const { limiter, verifications, sessions, mailer } = c.get("services");
    const body = c.req.valid("json");
    const username = normalizeUsername(body.username);
    const key = `reset:${username}`;
    if (await limiter.isBlocked(key)) throw new ApiError(429, TOO_MANY);
    const user = await findUserByUsername(c.get("db"), username);
    // Checked against the named user, so a mistyped username does not use up the real owner's link.
    const ownerId = user ? await verifications.consume("password-reset", body.token, user.id) : null;
    if (!user || ownerId !== user.id) {
      await limiter.hit(key, TOKEN_FAILURES);
      throw new ApiError(401, BAD_CREDENTIALS);
    }
    await c.get("db").update(users).set({ passwordHash: await hashPassword(body.password) }).where(
      eq(users.id, user.id),
    );
    // A reset ends every session, this one included: whoever knew the old password is out.
    await sessions.endAll(user.id);
    await sessions.end(c, null);
    await limiter.clear(`login:${username}`);
    await mailer.send({
      to: user.username,
      userId: user.id,
      template: "password-changed",
      rendered: passwordChanged({}),
    });
    flash(c, { title: "Password changed", description: "Sign in with your new password.", color: "success" });
    return ok(c, { ok: true }, { redirect: "/" });
  },
);

auth.get("/account/whoami", loggedin, (c) => ok(c, c.get("user")));
