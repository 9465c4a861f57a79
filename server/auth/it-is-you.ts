import type { Database } from "../../db/client.ts";
import { InvalidInput } from "../errors.ts";
import { checkWithinLimit, triesLeft } from "./attempts.ts";
import { authenticatorAccepts } from "./authenticator.ts";
import type { SecretBox } from "./encryption.ts";
import { verifyPassword } from "./password.ts";
import { FAILURES_PER_SOURCE, type RateLimiter } from "./rate-limit.ts";
import { findUser } from "./users.ts";

/**
 * Asks a signed-in person again who they are before their second factor changes (decision 023):
 * their password, or a current code from the authenticator app in use. A signed-in browser left
 * unattended is not enough to take the app away or put another in its place. A wrong answer is a
 * 422 naming the field, with the tries left (decision 039): the person stays signed in. At most 5
 * wrong ones in 15 minutes.
 */
export async function confirmItIsYou(
  deps: { db: Database; limiter: RateLimiter; secretBox: SecretBox; now: () => number },
  userId: number,
  proof: { password?: string; code?: string },
): Promise<void> {
  const field = proof.password ? "password" : "code";
  await checkWithinLimit(
    deps.limiter,
    `it-is-you:${userId}`,
    FAILURES_PER_SOURCE,
    async () => {
      const user = await findUser(deps.db, userId);
      if (!user) return null;
      const confirmed = proof.password
        ? await verifyPassword(user.passwordHash, proof.password)
        : await authenticatorAccepts(deps, user, (proof.code ?? "").replace(/\s+/g, ""));
      return confirmed ? user : null;
    },
    (left) =>
      new InvalidInput(
        `${field === "password" ? "That password is not right." : "That code is not right."} ${triesLeft(left)}`,
        field,
      ),
  );
}
