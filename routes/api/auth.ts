import { Hono } from "hono";
import type { Context } from "hono";
import * as calls from "../../lib/contracts/auth.ts";
import type { SignInDeps } from "../../server/auth/deps.ts";
import { knownDeviceOf, rememberDevice } from "../../server/auth/devices.ts";
import { requestPasswordReset, resetPassword } from "../../server/auth/password-reset.ts";
import {
  CONFIRMED_SIGN_IN,
  confirmedByLink,
  confirmedElsewhere,
  registerCustomer,
  resendForRegistration,
  resendValidation,
  validateEmail,
} from "../../server/auth/registration.ts";
import { forgetRegistration, registrationOf, rememberRegistration } from "../../server/auth/registration-cookie.ts";
import { clientAddress, type SessionRow } from "../../server/auth/sessions.ts";
import { type Origin, passSecondFactor, resendCode, signInWithPassword } from "../../server/auth/signin.ts";
import { findUser, sessionSummary, summaryOf, type UserRow } from "../../server/auth/users.ts";
import type { AppEnv } from "../../server/env.ts";
import { registerScreen } from "../../server/guards.ts";
import { ApiError } from "../../server/http/api.ts";
import { reply, route } from "../../server/http/route.ts";
import { flash } from "../../server/render/flash.ts";
import { recordSignIn } from "../../server/console/administrators.ts";

/** Registering, validating the email address, signing in and out, forgotten passwords (decision 007). */

function deps(c: Context<AppEnv>): SignInDeps {
  const { limiter, verifications, mailer, sessions, secretBox, now } = c.get("services");
  return {
    db: c.get("db"),
    limiter,
    verifications,
    mailer,
    sessions,
    secretBox,
    now,
    publicUrl: c.get("config").publicUrl,
    supportEmail: c.get("config").supportEmail,
  };
}

/** Cookies are Secure outside development and tests, as the session's are. */
export const secureCookies = (c: Context<AppEnv>) => c.get("config").appEnv === "production";

/** Where an attempt comes from: the address, and whom this browser passed the second factor for. */
async function originOf(c: Context<AppEnv>): Promise<Origin> {
  const { secretBox, now } = c.get("services");
  return { address: clientAddress(c), device: await knownDeviceOf(c, secretBox, now()) };
}

/** This browser has just passed the second factor for the user: a known device from now on. */
export async function remember(c: Context<AppEnv>, user: Pick<UserRow, "id" | "passwordHash">): Promise<void> {
  const { secretBox, now } = c.get("services");
  await rememberDevice(c, secretBox, user, { now: now(), secure: secureCookies(c) });
}

/** This request's session: the second factor is passed on the session the password started. */
function sessionOf(c: Context<AppEnv>): SessionRow {
  const session = c.get("session");
  if (!session || !c.get("user")) throw new ApiError(401, "Please sign in.", { redirect: "/" });
  return session;
}

export const auth = new Hono<AppEnv>();

route(auth, calls.register, async (c, { body }) => {
  const registration = await registerCustomer(deps(c), body, clientAddress(c));
  // Whoever was signed in at this browser is not any more: a new person is registering here.
  await c.get("services").sessions.end(c, c.get("session"));
  const { secretBox, now } = c.get("services");
  await rememberRegistration(c, secretBox, registration, { now: now(), secure: secureCookies(c) });
  return reply({ email: registration.email }, { redirect: "/verify" });
});

route(auth, calls.resendValidation, async (c) => {
  if (c.get("user")) {
    await resendValidation(deps(c), sessionOf(c).userId);
    return { sent: true } as const;
  }
  const { secretBox, now } = c.get("services");
  const registration = await registrationOf(c, secretBox, now());
  if (!registration) throw new ApiError(401, "Please sign in.", { redirect: "/" });
  await resendForRegistration(deps(c), registration);
  return { sent: true } as const;
});

route(auth, calls.validateEmail, async (c, { body }) => {
  const signedIn = c.get("user");
  const { sessions, secretBox, now } = c.get("services");
  const registration = await registrationOf(c, secretBox, now());
  if (signedIn?.validated) {
    // Confirmed since this page was opened (the link on another device): nothing left to type.
    return reply(await sessionSummary(c.get("db"), signedIn.id, signedIn.secondFactor), { redirect: "/auth" });
  }
  if (!signedIn) {
    // This browser's registration was confirmed on another device: the code is spent and the link
    // used, so whatever is tried here is answered by saying so and sending them to sign in. The
    // registration alone signs nobody in (decisions 023, 077): the password and the second factor do.
    // The link opened again where nobody is signed in: the address it confirmed is confirmed.
    const confirmed = await confirmedElsewhere(deps(c), registration) ?? await confirmedByLink(deps(c), body.token);
    if (confirmed !== null) {
      flash(c, CONFIRMED_SIGN_IN);
      // Nobody is signed in here: whoever holds the link (a browser's history, a forwarded email, a
      // mail scanner) learns nothing of the person, as a sign-in form would tell them nothing.
      return reply(null, { redirect: "/" });
    }
  }
  const userId = await validateEmail(
    deps(c),
    body.token,
    signedIn ? { userId: signedIn.id } : { address: clientAddress(c), registration },
  );
  // Opening the emailed link, or typing its code, proves control of the mailbox, as an emailed
  // second-factor code would: in the browser that registered this user (or signed in as them), it
  // signs them in past the second factor, with a fresh session token. A registration of an address
  // that had an account names no user, so it never signs anyone in (decision 023).
  const session = c.get("session");
  const secondFactor = session?.userId === userId || (!signedIn && registration?.userId === userId);
  if (secondFactor) {
    c.set("session", session ? await sessions.rotate(c, session, true) : await sessions.start(c, userId, true));
    await recordSignIn(c.get("db"), userId, new Date(now()));
    forgetRegistration(c);
    const user = await findUser(c.get("db"), userId);
    if (user) await remember(c, user);
  }
  if (secondFactor) {
    const user = await sessionSummary(c.get("db"), userId, true);
    return reply(user, { redirect: registerScreen(user) });
  }
  // Confirmed where nobody is signed in as them (a phone): the link proves the mailbox, not the
  // password, so the person signs in here, told why, rather than meeting a bare sign-in form
  // (decision 077); the profile screen would only have sent them home. Not signed in, the browser
  // is told nothing of them.
  flash(c, CONFIRMED_SIGN_IN);
  return reply(null, { redirect: "/" });
});

route(auth, calls.login, async (c, { body }) => {
  const user = await signInWithPassword(deps(c), body.email, body.password, await originOf(c));
  const { sessions } = c.get("services");
  await sessions.end(c, c.get("session"));
  c.set("session", await sessions.start(c, user.id, false));
  return reply(await summaryOf(c.get("db"), user, false), { redirect: "/auth" });
});

route(auth, calls.logout, async (c) => {
  await c.get("services").sessions.end(c, c.get("session"));
  return reply({ ok: true } as const, { redirect: "/" });
});

route(auth, calls.challenge, async (c, { body }) => {
  const session = sessionOf(c);
  const user = await passSecondFactor(deps(c), session.userId, body.token, await originOf(c));
  c.set("session", await c.get("services").sessions.rotate(c, session, true));
  await recordSignIn(c.get("db"), user.id, new Date(c.get("services").now()));
  await remember(c, user);
  return reply(await summaryOf(c.get("db"), user, true), { redirect: "/auth" });
});

route(auth, calls.resendCode, async (c) => {
  await resendCode(deps(c), sessionOf(c).userId);
  return { sent: true } as const;
});

route(auth, calls.forgotPassword, async (c, { body }) => {
  await requestPasswordReset(deps(c), body.username, clientAddress(c));
  return { sent: true } as const;
});

route(auth, calls.resetPassword, async (c, { body }) => {
  await resetPassword(deps(c), body, clientAddress(c));
  // This browser's session is among those that ended: its cookie goes too.
  await c.get("services").sessions.end(c, null);
  flash(c, { title: "Password changed", description: "Sign in with your new password.", color: "success" });
  return reply({ ok: true } as const, { redirect: "/" });
});

route(auth, calls.whoami, (c) => c.get("user")!);
