import { Hono } from "hono";
import type { Context } from "hono";
import * as calls from "../../lib/contracts/auth.ts";
import type { SignInDeps } from "../../server/auth/deps.ts";
import { requestPasswordReset, resetPassword } from "../../server/auth/password-reset.ts";
import { registerCustomer, resendValidation, validateEmail } from "../../server/auth/registration.ts";
import { clientAddress, type SessionRow } from "../../server/auth/sessions.ts";
import { passSecondFactor, resendCode, signInWithPassword } from "../../server/auth/signin.ts";
import { sessionSummary, summaryOf } from "../../server/auth/users.ts";
import type { AppEnv } from "../../server/env.ts";
import { registerScreen } from "../../server/guards.ts";
import { ApiError } from "../../server/http/api.ts";
import { reply, route } from "../../server/http/route.ts";
import { flash } from "../../server/render/flash.ts";

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
  };
}

/** This request's session: the second factor is passed on the session the password started. */
function sessionOf(c: Context<AppEnv>): SessionRow {
  const session = c.get("session");
  if (!session || !c.get("user")) throw new ApiError(401, "Please sign in.", { redirect: "/" });
  return session;
}

export const auth = new Hono<AppEnv>();

route(auth, calls.register, async (c, { body }) => {
  const user = await registerCustomer(deps(c), body, clientAddress(c));
  c.set("session", await c.get("services").sessions.start(c, user.id, false));
  return reply(await summaryOf(c.get("db"), user, false), { redirect: "/verify" });
});

route(auth, calls.resendValidation, async (c) => {
  await resendValidation(deps(c), sessionOf(c).userId);
  return { sent: true } as const;
});

route(auth, calls.validateEmail, async (c, { body }) => {
  const signedIn = c.get("user");
  const userId = await validateEmail(
    deps(c),
    body.token,
    signedIn ? { userId: signedIn.id } : { address: clientAddress(c) },
  );
  // Opening the emailed token proves control of the mailbox, as an emailed code would: the
  // session that registered passes its second factor, with a fresh token.
  const session = c.get("session");
  const secondFactor = session?.userId === userId;
  if (session && secondFactor) c.set("session", await c.get("services").sessions.rotate(c, session, true));
  const user = await sessionSummary(c.get("db"), userId, secondFactor);
  return reply(user, { redirect: registerScreen(user) });
});

route(auth, calls.login, async (c, { body }) => {
  const user = await signInWithPassword(deps(c), body.email, body.password);
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
  const user = await passSecondFactor(deps(c), session.userId, body.token);
  c.set("session", await c.get("services").sessions.rotate(c, session, true));
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
  await resetPassword(deps(c), body);
  // This browser's session is among those that ended: its cookie goes too.
  await c.get("services").sessions.end(c, null);
  flash(c, { title: "Password changed", description: "Sign in with your new password.", color: "success" });
  return reply({ ok: true } as const, { redirect: "/" });
});

route(auth, calls.whoami, (c) => c.get("user")!);
