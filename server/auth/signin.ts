import { BAD_CREDENTIALS } from "../../lib/contracts/auth.ts";
import { Unauthenticated } from "../errors.ts";
import { secondFactorCode, signInPaused } from "../mail/index.ts";
import { checkFromSource, CODE_NO_LONGER_VALID, forgetAccount, spendWithinLimit, wrongCode } from "./attempts.ts";
import { authenticatorAccepts } from "./authenticator.ts";
import { type DeviceNote, isKnownDevice } from "./devices.ts";
import type { SignInDeps } from "./deps.ts";
import { verifyPassword } from "./password.ts";
import { issueResetLink } from "./password-reset.ts";
import { RESENDS_PER_USER } from "./rate-limit.ts";
import { isDisabledAdministrator, noLinkToSend } from "../console/administrators.ts";
import { findUser, findUserByUsername, normalizeUsername, type UserRow } from "./users.ts";

/** Signing in: the password, then the second factor (decisions 007 and 023). */

/** Where an attempt comes from: the client's address, and whom this browser passed the second factor for. */
export interface Origin {
  address: string;
  /** The browser's known-device note (server/auth/devices.ts), or null. */
  device: DeviceNote | null;
}

/** The keys under which failed logins of an account are counted (a reset forgets them). */
export const loginLimitKey = (username: string) => `login:${normalizeUsername(username)}`;
/** The same for second-factor codes. */
export const challengeLimitKey = (userId: number) => `challenge:${userId}`;

/** Emails a new 6-digit second-factor code, valid 10 minutes. */
async function sendCode(deps: SignInDeps, user: Pick<UserRow, "id" | "username">): Promise<void> {
  const code = await deps.verifications.issue(user.id, "second-factor");
  await deps.mailer.send({
    to: user.username,
    userId: user.id,
    template: "second-factor-code",
    rendered: secondFactorCode({ code }),
  });
}

/** Tells the owner that sign-in to their account is paused, with a link that lets them in. */
async function tellOwnerOfPause(deps: SignInDeps, user: UserRow, guessed: "password" | "code"): Promise<void> {
  // An administrator's invitation waiting for a second administrator has no owner to tell yet, and
  // one disabled has no sign-in to pause: the notice's link would choose a password without the
  // approval (decision 044), or one that signs into nothing.
  if (await noLinkToSend(deps.db, user.id)) return;
  const link = await issueResetLink(deps, user);
  await deps.mailer.send({
    to: user.username,
    userId: user.id,
    template: "sign-in-paused",
    rendered: signInPaused({ guessed, link, supportEmail: deps.supportEmail }),
  });
}

/**
 * Checks the password of an account under the limits per address and per account (decision 023)
 * and answers the user, whose session then still has the second factor to pass: a code is emailed
 * unless they use an authenticator app. An unknown account costs the same Argon2 check as a known
 * one, and is limited and paused the same way.
 */
export async function signInWithPassword(
  deps: SignInDeps,
  username: string,
  password: string,
  origin: Origin,
): Promise<UserRow> {
  const found = await findUserByUsername(deps.db, username);
  const user = await checkFromSource(
    deps.limiter,
    {
      account: loginLimitKey(username),
      address: origin.address,
      knownDevice: await isKnownDevice(origin.device, found),
      onPause: found ? () => tellOwnerOfPause(deps, found, "password") : undefined,
    },
    async () =>
      (await verifyPassword(found?.passwordHash, password)) && found &&
        !(await isDisabledAdministrator(deps.db, found.id))
        ? found
        : null,
  );
  const validated = user.validated || user.level === "Admin";
  if (validated && !user.totpSecret) await sendCode(deps, user);
  return user;
}

/**
 * Checks a second-factor code of a signed-in user under the same limits: the authenticator's when
 * they have one, else, or failing that, the emailed one. A wrong one is refused on the page with
 * the tries left (a 422 naming `token`), not a 401: the session is still theirs (decision 039); an
 * emailed one that expired or was replaced is refused as such (CODE_NO_LONGER_VALID).
 */
export async function passSecondFactor(
  deps: SignInDeps,
  userId: number,
  typed: string,
  origin: Origin,
): Promise<UserRow> {
  const code = typed.replace(/\s+/g, "");
  const owner = await findUser(deps.db, userId);
  let late = false;
  return await checkFromSource(deps.limiter, {
    account: challengeLimitKey(userId),
    address: origin.address,
    knownDevice: await isKnownDevice(origin.device, owner),
    onPause: owner ? () => tellOwnerOfPause(deps, owner, "code") : undefined,
  }, async () => {
    const user = await findUser(deps.db, userId);
    // Disabled between the password and the code: the code no longer signs them in.
    if (!user || await isDisabledAdministrator(deps.db, user.id)) return null;
    if (await authenticatorAccepts(deps, user, code)) return user;
    if ((await deps.verifications.consume("second-factor", code, user.id)) !== null) return user;
    late = await deps.verifications.wasSent("second-factor", code, user.id);
    return null;
  }, (left) => wrongCode("token", left, late ? CODE_NO_LONGER_VALID : undefined));
}

/** Forgets every failed login and code of a user, from everywhere (after a password reset). */
export async function forgetFailures(deps: SignInDeps, user: Pick<UserRow, "id" | "username">): Promise<void> {
  await forgetAccount(deps.limiter, loginLimitKey(user.username));
  await forgetAccount(deps.limiter, challengeLimitKey(user.id));
}

/** Emails a new second-factor code (also to a user with an authenticator app). */
export async function resendCode(deps: SignInDeps, userId: number): Promise<void> {
  await spendWithinLimit(deps.limiter, `resend:${userId}`, RESENDS_PER_USER);
  const user = await findUser(deps.db, userId);
  if (!user) throw new Unauthenticated(BAD_CREDENTIALS);
  await sendCode(deps, user);
}
