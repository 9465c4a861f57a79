import { afterAnswer } from "../background.ts";
import { noLinkToSend } from "../console/administrators.ts";
import { InvalidInput } from "../errors.ts";
import { passwordChanged, passwordReset } from "../mail/index.ts";
import { checkWithinLimit, sourceKey, spendWithinLimit } from "./attempts.ts";
import type { SignInDeps } from "./deps.ts";
import { hashPassword } from "./password.ts";
import { FAILURES_PER_SOURCE, FORGOT_PER_ACCOUNT, FORGOT_PER_ADDRESS } from "./rate-limit.ts";
import { forgetFailures } from "./signin.ts";
import { findUserByUsername, normalizeUsername, setPasswordHash, type UserRow } from "./users.ts";
import { SETS_A_PASSWORD } from "./verification.ts";

/** A forgotten password: a link by email, then a new password with its token (SPEC.md section 3). */

/**
 * Emails a reset link when the account exists. Nothing here tells who has an account: the request
 * does the same work whoever is named (the per-address limit) and answers; finding the account,
 * its own limit, the token and the email come after the answer (decision 023), so that neither the
 * answer nor its time depends on them.
 */
export async function requestPasswordReset(deps: SignInDeps, typed: string, address: string): Promise<void> {
  await spendWithinLimit(
    deps.limiter,
    `forgot:address:${address}`,
    FORGOT_PER_ADDRESS,
    "Too many requests from here. Try again later.",
  );
  afterAnswer("password reset email", () => emailResetLink(deps, normalizeUsername(typed)));
}

async function emailResetLink(deps: SignInDeps, username: string): Promise<void> {
  const user = await findUserByUsername(deps.db, username);
  if (!user || !(await deps.limiter.claim(`forgot:account:${username}`, FORGOT_PER_ACCOUNT))) return;
  // An administrator's invitation waiting for a second administrator, or one disabled: no link.
  if (await noLinkToSend(deps.db, user.id)) return;
  const link = await issueResetLink(deps, user);
  await deps.mailer.send({
    to: user.username,
    userId: user.id,
    template: "password-reset",
    rendered: passwordReset({ link }),
  });
}

/** A new reset link for a user (any earlier one stops working), valid one hour. */
export async function issueResetLink(deps: SignInDeps, user: Pick<UserRow, "id" | "username">): Promise<string> {
  const secret = await deps.verifications.issue(user.id, "password-reset");
  return `${deps.publicUrl}/forgot?token=${encodeURIComponent(secret)}&username=${encodeURIComponent(user.username)}`;
}

/**
 * What a reset link that no longer works says, on /forgot with the offer of a new one (decision
 * 039): not 'Bad credentials', which sent the person home with nothing to do.
 */
export const RESET_LINK_EXPIRED = "This link has expired or was already used.";

/**
 * Whether a reset link would still work, without using it: /forgot says at once that it is used or
 * expired, before a new password is typed. The same answer for an unknown address.
 */
export async function resetLinkWorks(
  deps: Pick<SignInDeps, "db" | "verifications">,
  typedUsername: string,
  token: string,
): Promise<boolean> {
  const user = await findUserByUsername(deps.db, normalizeUsername(typedUsername));
  if (!user) return false;
  return await deps.verifications.isLive("password-reset", token, user.id) ||
    await deps.verifications.isLive("admin-invitation", token, user.id);
}

/**
 * Sets a new password with the emailed token. Wrong tokens are limited per address and account
 * (FAILURES_PER_SOURCE), never for the account as a whole; a wrong one is a 422 naming `token`: someone else's guesses must not stop
 * the owner's link (decision 023). Every session of the user ends: whoever knew the old password is
 * out; every block and pause of the user's sign-in is lifted.
 */
export async function resetPassword(
  deps: SignInDeps,
  input: { username: string; token: string; password: string },
  address: string,
): Promise<void> {
  const username = normalizeUsername(input.username);
  const key = sourceKey(`reset:${username}`, address);
  const user = await checkWithinLimit(deps.limiter, key, FAILURES_PER_SOURCE, async () => {
    const user = await findUserByUsername(deps.db, username);
    // Checked against the named user, so a mistyped username does not use up the real owner's link.
    // An administrator's invitation sets the first password the same way (decision 044).
    const ownerId = user
      ? await deps.verifications.consume("password-reset", input.token, user.id) ??
        await deps.verifications.consume("admin-invitation", input.token, user.id)
      : null;
    return user && ownerId === user.id ? user : null;
  }, () => new InvalidInput(RESET_LINK_EXPIRED, "token"));
  await setPasswordHash(deps.db, user.id, await hashPassword(input.password));
  // The other link that chooses a password (an administrator's invitation after a reset link, or
  // the reverse) would choose another one after this: it stops working.
  await deps.verifications.retire(user.id, SETS_A_PASSWORD);
  await deps.sessions.endAll(user.id);
  await forgetFailures(deps, user);
  await deps.mailer.send({
    to: user.username,
    userId: user.id,
    template: "password-changed",
    rendered: passwordChanged({ how: "reset", supportEmail: deps.supportEmail }),
  });
}
