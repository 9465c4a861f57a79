import type { Context } from "hono";
import { may } from "../../lib/permissions.ts";
import type { AppEnv } from "../../server/env.ts";
import { paymentActorOf, pendingPaymentsOfRequest } from "../payment-actor.ts";

/**
 * The dashboard's parts from the transactions work (issue 10, part 4), kept apart from
 * routes/pages/money.tsx so that other dashboard sections merge beside them.
 */

/** How many of the payments waiting for the user's approval the card names; the rest are counted. */
const NAMED = 3;

/**
 * "Payments waiting for your approval": for someone who may approve, the payments they can approve
 * now (not their own: nobody approves their own payment), oldest first. Nothing for anyone else.
 */
export async function approvalsForYouCard(c: Context<AppEnv>) {
  const { actor, viewer } = await paymentActorOf(c);
  if (!may(viewer.role, "payments.approve")) return null;
  const yours = (await pendingPaymentsOfRequest(c, actor.accountId, viewer)).filter((p) => p.actions.approve);
  return (
    <section aria-labelledby="approvals-heading" className="card lg:col-span-2" data-approvals={yours.length}>
      <h2 id="approvals-heading" className="mb-4 text-lg font-semibold">
        Payments waiting for your approval{" "}
        <span className="ml-1 rounded-full bg-neutral-200 px-2 py-0.5 text-sm dark:bg-neutral-800">{yours.length}</span>
      </h2>
      {yours.length === 0
        ? <p className="text-neutral-600 dark:text-neutral-400">Nothing waits for you.</p>
        : (
          <ul className="space-y-2">
            {yours.slice(0, NAMED).map((p) => (
              <li key={p.id}>
                <a className="underline" href={`/account/pendingpayments/${p.id}`}>
                  {p.sell_amount} {p.sell_currency} to {p.recipient.name}
                </a>{" "}
                <span className="text-neutral-600 dark:text-neutral-400">· prepared by {p.created_by.name}</span>
              </li>
            ))}
          </ul>
        )}
      {yours.length > NAMED && (
        <p className="mt-2 text-sm text-neutral-600 dark:text-neutral-400">and {yours.length - NAMED} more.</p>
      )}
    </section>
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
