import { passwordChanged } from "../mail/index.ts";
import { InvalidInput } from "../errors.ts";
import { checkWithinLimit, triesLeft } from "./attempts.ts";
import type { SignInDeps } from "./deps.ts";
import { hashPassword, verifyPassword } from "./password.ts";
import { FAILURES_PER_SOURCE } from "./rate-limit.ts";
import { findUser, setPasswordHash } from "./users.ts";
import { SETS_A_PASSWORD } from "./verification.ts";

/**
 * A signed-in person changes their password (issue 15): the current one first, so that a browser
 * left unattended cannot take the account over; wrong ones are refused on the page with the tries
 * left, at most 5 in 15 minutes per user, as asking who is there again is (decision 023). Every
 * other session ends, since whoever knew the old password may be signed in somewhere; this one
 * stays. A link asked for before that chooses a password (SETS_A_PASSWORD: a reset link, the one in a
 * "sign-in paused" email) stops working: it would let whoever holds it, someone reading the person's
 * mail, undo the change. The owner is
 * emailed, as after a reset. Answers how many other sessions ended.
 */
export async function changePassword(
  deps: Pick<SignInDeps, "db" | "limiter" | "sessions" | "mailer" | "verifications" | "supportEmail">,
  userId: number,
  currentSession: string | null,
  input: { current_password: string; password: string },
): Promise<number> {
  const user = await checkWithinLimit(
    deps.limiter,
    `password-change:${userId}`,
    FAILURES_PER_SOURCE,
    async () => {
      const user = await findUser(deps.db, userId);
      return user && await verifyPassword(user.passwordHash, input.current_password) ? user : null;
    },
    (left) => new InvalidInput(`That password is not right. ${triesLeft(left)}`, "current_password"),
  );
  if (input.password === input.current_password) {
    throw new InvalidInput("Choose a new password, not the one you have now.", "password");
  }
  await setPasswordHash(deps.db, user.id, await hashPassword(input.password));
  await deps.verifications.retire(user.id, SETS_A_PASSWORD);
  const ended = await deps.sessions.endAll(user.id, currentSession ?? undefined);
  await deps.mailer.send({
    to: user.username,
    userId: user.id,
    template: "password-changed",
    rendered: passwordChanged({ how: "change", supportEmail: deps.supportEmail }),
  });
  return ended;
}
