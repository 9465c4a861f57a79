import { Hono } from "hono";
import type { Context } from "hono";
import * as calls from "../../lib/contracts/security.ts";
import {
  disableAuthenticator,
  enableAuthenticator,
  newAuthenticatorKey,
  tellOwnerOfAuthenticator,
} from "../../server/auth/authenticator.ts";
import { forgetKeyBeingSetUp, keyBeingSetUp, rememberKeyBeingSetUp } from "../../server/auth/authenticator-setup.ts";
import { confirmItIsYou } from "../../server/auth/it-is-you.ts";
import { changePassword } from "../../server/auth/password-change.ts";
import { findUser, sessionSummary } from "../../server/auth/users.ts";
import type { AppEnv } from "../../server/env.ts";
import { route } from "../../server/http/route.ts";
import { remember, secureCookies } from "./auth.ts";

/**
 * The password, changed with the current one (the other sessions end). The authenticator app (TOTP): enrol with a key and a first code, or turn it off; setting up and
 * turning off first ask for the password or a current code (decision 023), and turning on takes a
 * code for the key setup handed to this browser, never a key from the client (decision 072).
 */

export const security = new Hono<AppEnv>();

/** The signed-in user (the guards require one) after the change, still past the second factor. */
const summary = (c: Context<AppEnv>) => sessionSummary(c.get("db"), c.get("user")!.id, true);

/** What telling the owner of a change needs. */
const mailDeps = (c: Context<AppEnv>) => ({
  mailer: c.get("services").mailer,
  supportEmail: c.get("config").supportEmail,
});

/** What confirming who is there needs. */
const itIsYouDeps = (c: Context<AppEnv>) => {
  const { limiter, secretBox, now } = c.get("services");
  return { db: c.get("db"), limiter, secretBox, now };
};

route(security, calls.changePassword, async (c, { body }) => {
  const { limiter, sessions, mailer, verifications } = c.get("services");
  const ended = await changePassword(
    { db: c.get("db"), limiter, sessions, mailer, verifications, supportEmail: c.get("config").supportEmail },
    c.get("user")!.id,
    // Every signed-in request has its session (server/auth/session.ts); null only where none is kept.
    c.get("session")?.id ?? null,
    body,
  );
  // The new password forgets every device known before (server/auth/devices.ts), but this one, where
  // the owner just proved the old password, stays known.
  const user = await findUser(c.get("db"), c.get("user")!.id);
  if (user && c.get("user")!.secondFactor) await remember(c, user);
  return { ok: true, other_sessions_ended: ended } as const;
});

route(security, calls.startAuthenticator, async (c, { body }) => {
  const user = c.get("user")!;
  await confirmItIsYou(itIsYouDeps(c), user.id, body);
  const { key, ...answer } = await newAuthenticatorKey(user.username);
  // The key the next code must come from: enabling never takes one from the client (decision 072).
  const { secretBox, now } = c.get("services");
  await rememberKeyBeingSetUp(c, secretBox, { userId: user.id, key }, { now: now(), secure: secureCookies(c) });
  return answer;
});

route(security, calls.enableAuthenticator, async (c, { body }) => {
  const { secretBox, now } = c.get("services");
  const userId = c.get("user")!.id;
  const key = await keyBeingSetUp(c, secretBox, userId, now());
  await enableAuthenticator({ db: c.get("db"), secretBox, now }, userId, key, body);
  forgetKeyBeingSetUp(c);
  await tellOwnerOfAuthenticator(mailDeps(c), c.get("user")!, true);
  return await summary(c);
});

route(security, calls.disableAuthenticator, async (c, { body }) => {
  await confirmItIsYou(itIsYouDeps(c), c.get("user")!.id, body);
  await disableAuthenticator(c.get("db"), c.get("user")!.id);
  forgetKeyBeingSetUp(c);
  await tellOwnerOfAuthenticator(mailDeps(c), c.get("user")!, false);
  return await summary(c);
});
