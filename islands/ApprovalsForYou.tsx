import { useQuery } from "@tanstack/react-query";
import { withQueries } from "./lib/query-client.tsx";
import type { Payment } from "./payments/calls.ts";
import { pendingQuery } from "./payments/pending-queries.ts";

export interface ApprovalsForYouProps {
  accountRef: string;
  /** The customer an administrator was acting for when the page was rendered; null for the customer's own. */
  actingFor: number | null;
  /** The account's pending payments as the server rendered them (the same as the dashboard's table). */
  payments: Payment[];
}

/** How many of the payments waiting for the user's approval the card names; the rest are counted. */
const NAMED = 3;

/**
 * The dashboard's "Payments waiting for your approval": the payments the viewer can approve now
 * (not their own), oldest first, each as what arrives to whom, as the payment's title and
 * notifications say it (not what is debited). It reads the pending payments' query, the one the dashboard's
 * table reads, so approving there (which invalidates it) updates both (decisions 016/053).
 */
function ApprovalsForYou({ accountRef, actingFor, payments: initial }: ApprovalsForYouProps) {
  const query = useQuery({ ...pendingQuery(accountRef, actingFor), initialData: initial });
  const yours = query.data.filter((p) => p.actions.approve);
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
                  {p.buy_amount} {p.buy_currency} to {p.recipient.name}
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

export default withQueries(ApprovalsForYou);
