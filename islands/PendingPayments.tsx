import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { approveOrRejectBy, NOT_ON_BEHALF } from "../lib/payments/approval-notes.ts";
import { errorText } from "./lib/api.ts";
import { notify } from "./lib/notification-store.ts";
import { withQueries } from "./lib/query-client.tsx";
import { balanceKeys } from "./lib/query-keys.ts";
import { useWrite } from "./lib/write.ts";
import { approvePendingPayment, type Payment, PAYMENT_CHANGES } from "./payments/calls.ts";
import { pendingQuery } from "./payments/pending-queries.ts";
import { when } from "./payments/timeline.tsx";
import { Alert } from "./ui/alert.tsx";
import { Amount } from "./ui/amount.tsx";
import { CELL, EmptyRow, MUTED, NUMBER, PHONE_HIDDEN, PHONE_ONLY, Table } from "./ui/table.tsx";
import { BusyButton } from "./ui/submit-button.tsx";

export interface PendingPaymentsProps {
  accountRef: string;
  /** The customer an administrator was acting for when the page was rendered; null for the customer's own. */
  actingFor: number | null;
  /** As the server rendered them: the query starts from these. */
  payments: Payment[];
  /** The dashboard's short form: no heading sentence when there is nothing to approve. */
  compact?: boolean;
}

/**
 * The account's payments waiting for approval (GET account/pendingpayments/all), oldest first. An
 * approver approves one here or opens it to see everything and reject it with a reason; nobody is
 * offered their own, and an administrator acting on behalf is told why they cannot decide. Setting
 * or clearing on-behalf mode reloads the list (the pending payments' queries, SPEC.md section 4).
 */
function PendingPayments({ accountRef, actingFor, payments: initial, compact = false }: PendingPaymentsProps) {
  const query = useQuery({ ...pendingQuery(accountRef, actingFor), initialData: initial });
  const [failed, setFailed] = useState<string | null>(null);
  const approval = useWrite({
    call: approvePendingPayment,
    idempotent: true,
    invalidates: [balanceKeys.of(accountRef), ...PAYMENT_CHANGES],
    onSuccess(p) {
      setFailed(null);
      notify({
        title: "Payment approved",
        description: `${p.buy_amount} ${p.buy_currency} to ${p.recipient.name}`,
        color: "success",
      });
    },
  });
  const rows = query.data;
  const approving = approval.isPending ? approval.variables?.query?.id : undefined;
  // An administrator on behalf is told once, above the table, why they decide none of them. Any
  // other note is about its own payment ("You prepared this payment…", a rate that expired) and
  // stays on its row, even beside the administrator's.
  const shared = rows.filter((p) => p.actions.note === NOT_ON_BEHALF).length > 1 ? NOT_ON_BEHALF : null;

  if (compact && rows.length === 0) {
    return <p className={MUTED}>No payment is waiting for approval.</p>;
  }

  return (
    <div className="space-y-4">
      {shared ? <Alert tone="info" live={false}>{shared}</Alert> : null}
      {failed ? <Alert>{failed}</Alert> : null}
      <Table
        caption="Payments waiting for approval"
        busy={query.isFetching}
        columns={[
          // On a phone six columns do not fit (the table scrolled sideways, with no hint, and the
          // debited amount and the buttons were off screen): the amounts, when and by whom go
          // under the recipient, beside the buttons (decision 040, phone width).
          { label: "Prepared", hiddenOnPhone: true },
          { label: "By", hiddenOnPhone: true },
          { label: "To" },
          { label: "They get", numeric: true, hiddenOnPhone: true },
          { label: "Debited", numeric: true, hiddenOnPhone: true },
          { label: "Actions", hidden: true },
        ]}
      >
        {rows.length === 0
          ? <EmptyRow columns={6}>No payment is waiting for approval.</EmptyRow>
          : rows.map((p) => (
            <tr key={p.id} data-payment-id={p.id}>
              <td className={`${CELL} ${PHONE_HIDDEN}`}>{when(p.created_at)}</td>
              <td className={`${CELL} ${PHONE_HIDDEN}`}>{p.created_by.name}</td>
              <td className={CELL}>
                {p.recipient.name}
                <span className={PHONE_ONLY}>
                  They get <Amount amount={p.buy_amount} currency={p.buy_currency} />
                </span>
                <span className={PHONE_ONLY} data-phone-debited>
                  Debited <Amount amount={p.sell_amount} currency={p.sell_currency} />
                </span>
                <span className={`${PHONE_ONLY} ${MUTED}`}>{when(p.created_at)} by {p.created_by.name}</span>
              </td>
              <td className={`${NUMBER} ${PHONE_HIDDEN}`}>
                <Amount amount={p.buy_amount} currency={p.buy_currency} />
              </td>
              <td className={`${NUMBER} ${PHONE_HIDDEN}`}>
                <Amount amount={p.sell_amount} currency={p.sell_currency} />
              </td>
              <td className={`${CELL} space-y-1`}>
                <div className="flex flex-wrap gap-2">
                  <a
                    className="btn-outline"
                    href={`/account/pendingpayments/${p.id}`}
                    aria-label={`Review the payment to ${p.recipient.name}`}
                  >
                    Review
                  </a>
                  {p.actions.approve
                    ? (
                      <BusyButton
                        type="button"
                        className="btn-primary"
                        busy={approval.isPending}
                        aria-busy={approving === String(p.id) || undefined}
                        aria-label={`Approve the payment to ${p.recipient.name}`}
                        onClick={() =>
                          approval.mutate({ query: { id: String(p.id) } }, {
                            onError: (err) => setFailed(errorText(err)),
                          })}
                      >
                        {approving === String(p.id) ? "Approving…" : "Approve"}
                      </BusyButton>
                    )
                    : null}
                </div>
                {p.actions.note && p.actions.note !== shared
                  ? <p className={`text-xs max-sm:max-w-36 ${MUTED}`}>{p.actions.note}</p>
                  : null}
                {/* Where the approver decides, the time their notice and email gave them. */}
                {p.actions.approve && p.rate_held_until
                  ? (
                    <p className={`text-xs max-sm:max-w-36 ${MUTED}`}>
                      {approveOrRejectBy(new Date(p.rate_held_until))}
                    </p>
                  )
                  : null}
              </td>
            </tr>
          ))}
      </Table>
    </div>
  );
}

export default withQueries(PendingPayments);
