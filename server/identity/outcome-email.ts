import type { Database } from "../../db/client.ts";
import { userWithSummary } from "../auth/users.ts";
import { identityCheckOutcome, type Mailer } from "../mail/index.ts";
import type { TellCustomer } from "./webhook.ts";

/**
 * The email of an identity verdict that came by webhook (server/identity/webhook.ts TellCustomer):
 * asked to try again, with a link to the identity page, or refused, with where to write. Sent after
 * the verdict's commit: a mail server that is down loses the email, never the verdict.
 */
export function emailIdentityVerdict(
  deps: { db: Database; mailer: Mailer; publicUrl: string; supportEmail: string },
): TellCustomer {
  return async (check) => {
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
