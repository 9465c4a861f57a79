import type { Context } from "hono";
import { may } from "../../lib/permissions.ts";
import type { AppEnv } from "../../server/env.ts";
import { ApprovalsForYou } from "../islands.ts";
import { paymentActorOf, pendingPaymentsOfRequest } from "../payment-actor.ts";

/**
 * The dashboard's parts from the transactions work (issue 10, part 4), kept apart from
 * routes/pages/money.tsx so that other dashboard sections merge beside them.
 */

/**
 * "Payments waiting for your approval": for someone who may approve, the payments they can approve
 * now. Nothing for anyone else. An island reading the same query as the dashboard's table of
 * pending payments, so that approving there updates it too.
 */
export async function approvalsForYouCard(c: Context<AppEnv>) {
  const { actor, viewer, accountRef, actingFor } = await paymentActorOf(c);
  if (!may(viewer.role, "payments.approve")) return null;
  return (
    <ApprovalsForYou
      accountRef={accountRef}
      actingFor={actingFor}
      payments={await pendingPaymentsOfRequest(c, actor.accountId, viewer)}
    />
  );
}

/** Under the latest movements: the way to every one of them. */
export function AllTransactionsLink() {
  return (
    <div className="mt-4 flex gap-2">
      <a className="btn-ghost" href="/account/transactions">All transactions</a>
    </div>
  );
}
