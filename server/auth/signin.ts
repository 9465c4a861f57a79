import { BAD_CREDENTIALS } from "../../lib/contracts/auth.ts";
import { Unauthenticated } from "../errors.ts";
import { secondFactorCode } from "../mail/index.ts";
import { checkWithinLimit, spendWithinLimit } from "./attempts.ts";
import { authenticatorAccepts } from "./authenticator.ts";
import type { SignInDeps } from "./deps.ts";
import { verifyPassword } from "./password.ts";
import { LOGIN_FAILURES, RESENDS_PER_USER, SECOND_FACTOR_FAILURES } from "./rate-limit.ts";
import { findUser, findUserByUsername, normalizeUsername, type UserRow } from "./users.ts";

/** Signing in: the password, then the second factor (decision 007). */

/** The key under which failed logins of an account are counted (a reset lifts it too). */
export const loginLimitKey = (username: string) => `login:${normalizeUsername(username)}`;

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

/**
 * Checks the password of an account (at most LOGIN_FAILURES wrong ones) and answers the user,
 * whose session then still has the second factor to pass: a code is emailed unless they use an
 * authenticator app. An unknown account costs the same hashing as a known one.
 */
export async function signInWithPassword(deps: SignInDeps, username: string, password: string): Promise<UserRow> {
  const user = await checkWithinLimit(deps.limiter, loginLimitKey(username), LOGIN_FAILURES, async () => {
    const user = await findUserByUsername(deps.db, username);
    return (await verifyPassword(user?.passwordHash, password)) && user ? user : null;
  });
  const validated = user.validated || user.level === "Admin";
  if (validated && !user.totpSecret) await sendCode(deps, user);
  return user;
}

/**
 * Checks a second-factor code of a signed-in user (at most SECOND_FACTOR_FAILURES wrong ones): the
 * authenticator's when they have one, else, or failing that, the emailed one.
 */
export async function passSecondFactor(deps: SignInDeps, userId: number, typed: string): Promise<UserRow> {
  const code = typed.replace(/\s+/g, "");
  return await checkWithinLimit(deps.limiter, `challenge:${userId}`, SECOND_FACTOR_FAILURES, async () => {
    const user = await findUser(deps.db, userId);
    if (!user) return null;
    if (await authenticatorAccepts(deps, user, code)) return user;
    return (await deps.verifications.consume("second-factor", code, user.id)) === null ? null : user;
  });
}

/** Emails a new second-factor code (also to a user with an authenticator app). */
export async function resendCode(deps: SignInDeps, userId: number): Promise<void> {
  await spendWithinLimit(deps.limiter, `resend:${userId}`, RESENDS_PER_USER);
  const user = await findUser(deps.db, userId);
  if (!user) throw new Unauthenticated(BAD_CREDENTIALS);
  await sendCode(deps, user);
}
