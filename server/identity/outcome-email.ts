import type { Database } from "../../db/client.ts";
import { openAtOnceIfEligible } from "../accounts/onboarding.ts";
import { userWithSummary } from "../auth/users.ts";
import { identityCheckOutcome, type Mailer } from "../mail/index.ts";
import type { TellCustomer } from "./webhook.ts";

/**
 * What an identity verdict that came by webhook does for the customer (server/identity/webhook.ts
 * TellCustomer, decision 088): approved, their account opens now if they need no review, as it
 * would on the identity page, and the account-opened email tells them; asked to try again, an email
 * with a link to the identity page; refused, an email with where to write. After the verdict's
 * commit: a mail server that is down loses the email, never the verdict.
 */
export function emailIdentityVerdict(
  deps: { db: Database; mailer: Mailer; publicUrl: string; supportEmail: string; now: Date },
): TellCustomer {
  return async (check) => {
    if (check.status === "approved") return await openAtOnceIfEligible(deps, check.userId, deps.now);
    if (check.status !== "retry" && check.status !== "rejected") return;
    const found = await userWithSummary(deps.db, check.userId, false);
    if (!found) return;
    await deps.mailer.send({
      to: found.user.username,
      userId: found.user.id,
      template: check.status === "retry" ? "identity-check-retry" : "identity-check-refused",
      rendered: identityCheckOutcome({
        name: found.summary.name,
        status: check.status,
        comment: check.moderationComment,
        link: `${deps.publicUrl}/identity`,
        supportEmail: deps.supportEmail,
      }),
    });
  };
}
