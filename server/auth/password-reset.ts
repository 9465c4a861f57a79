import { passwordChanged, passwordReset } from "../mail/index.ts";
import { checkWithinLimit, spendWithinLimit } from "./attempts.ts";
import type { SignInDeps } from "./deps.ts";
import { hashPassword } from "./password.ts";
import { FORGOT_PER_ACCOUNT, FORGOT_PER_ADDRESS, TOKEN_FAILURES } from "./rate-limit.ts";
import { loginLimitKey } from "./signin.ts";
import { findUserByUsername, normalizeUsername, setPasswordHash } from "./users.ts";

/** A forgotten password: a link by email, then a new password with its token (SPEC.md section 3). */

/**
 * Emails a reset link when the account exists. Nothing here tells who has an account: the caller
 * answers the same whether or not it exists, and whether or not it was over its own limit.
 */
export async function requestPasswordReset(deps: SignInDeps, typed: string, address: string): Promise<void> {
  await spendWithinLimit(
    deps.limiter,
    `forgot:address:${address}`,
    FORGOT_PER_ADDRESS,
    "Too many requests from here. Try again later.",
  );
  const username = normalizeUsername(typed);
  const user = await findUserByUsername(deps.db, username);
  if (!user || !(await deps.limiter.claim(`forgot:account:${username}`, FORGOT_PER_ACCOUNT))) return;
  const secret = await deps.verifications.issue(user.id, "password-reset");
  const link = `${deps.publicUrl}/forgot?token=${encodeURIComponent(secret)}&username=${
    encodeURIComponent(user.username)
  }`;
  await deps.mailer.send({
    to: user.username,
    userId: user.id,
    template: "password-reset",
    rendered: passwordReset({ link, token: secret }),
  });
}

/**
 * Sets a new password with the emailed token (at most TOKEN_FAILURES wrong ones for the account).
 * Every session of the user ends: whoever knew the old password is out; a login lockout is lifted.
 */
export async function resetPassword(
  deps: SignInDeps,
  input: { username: string; token: string; password: string },
): Promise<void> {
  const username = normalizeUsername(input.username);
  const user = await checkWithinLimit(deps.limiter, `reset:${username}`, TOKEN_FAILURES, async () => {
    const user = await findUserByUsername(deps.db, username);
    // Checked against the named user, so a mistyped username does not use up the real owner's link.
    const ownerId = user ? await deps.verifications.consume("password-reset", input.token, user.id) : null;
    return user && ownerId === user.id ? user : null;
  });
  await setPasswordHash(deps.db, user.id, await hashPassword(input.password));
  await deps.sessions.endAll(user.id);
  await deps.limiter.clear(loginLimitKey(username));
  await deps.mailer.send({
    to: user.username,
    userId: user.id,
    template: "password-changed",
    rendered: passwordChanged({}),
  });
}
