import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { PAYMENT_STATUSES, type PaymentStatus, STATUS_NAMES } from "../lib/payments/statuses.ts";
import { errorText } from "./lib/api.ts";
import { withQueries } from "./lib/query-client.tsx";
import type { PaymentPage } from "./payments/calls.ts";
import { PAYMENTS_PER_PAGE, paymentsQuery } from "./payments/list-query.ts";
import { readable } from "./payments/pending-queries.ts";
import { StatusBadge } from "./payments/status.tsx";
import { when } from "./payments/timeline.tsx";
import { Alert } from "./ui/alert.tsx";
import { Amount } from "./ui/amount.tsx";
import { Pager } from "./ui/pager.tsx";
import { CELL, EmptyRow, MUTED, NUMBER, PHONE_HIDDEN, PHONE_ONLY, Table } from "./ui/table.tsx";

export interface PaymentsProps {
  accountRef: string;
  /** The customer an administrator was acting for when the page was rendered; null for the customer's own. */
  actingFor: number | null;
  /** The first page of every status, as the server rendered it: the query starts from it. */
  payments: PaymentPage;
}

const COLUMNS = [
  { label: "Date", hiddenOnPhone: true },
  { label: "To" },
  { label: "Status", hiddenOnPhone: true },
  { label: "Debited / they get", numeric: true },
];

/**
 * The account's payments (issue 8 item 6), newest first, a page at a time, of one status or all:
 * the recipient, what is debited and what arrives, each opening the payment's page with its
 * timeline. On a phone the date and status go under the recipient, as on the transactions list.
 */
function Payments({ accountRef, actingFor, payments: initial }: PaymentsProps) {
  const [status, setStatus] = useState<PaymentStatus | "">("");
  const [page, setPage] = useState(1);
  const first = status === "" && page === 1;
  const query = useQuery({
    ...paymentsQuery(accountRef, status, page),
    enabled: readable(actingFor),
    initialData: first ? initial : undefined,
    placeholderData: keepPreviousData,
  });
  const list = query.data;
  const pages = list ? Math.max(1, Math.ceil(list.total / PAYMENTS_PER_PAGE)) : 1;

  return (
    <div className="flex flex-col gap-4">
      <label className="block max-w-xs">
        <span className="field-label">Status</span>
        <select
          className="field-control w-full"
          name="status"
          value={status}
          onChange={(event) => {
            setStatus(event.currentTarget.value as PaymentStatus | "");
            setPage(1);
          }}
        >
          <option value="">All statuses</option>
          {PAYMENT_STATUSES.map((s) => <option key={s} value={s}>{STATUS_NAMES[s]}</option>)}
        </select>
      </label>
      {query.isError ? <Alert>{errorText(query.error)}</Alert> : null}
      <Table caption="Payments" columns={COLUMNS} busy={query.isFetching}>
        {list && list.items.length === 0
          ? (
            <EmptyRow columns={COLUMNS.length}>
              {status ? `No payment has the status “${STATUS_NAMES[status]}”.` : "No payments yet."}
            </EmptyRow>
          )
          : null}
        {list?.items.map((p) => (
          <tr key={p.id} data-payment-id={p.id} data-status={p.status}>
            <td className={`${CELL} ${PHONE_HIDDEN} whitespace-nowrap`}>{when(p.created_at)}</td>
            <td className={CELL}>
              <a className="font-medium underline" href={`/account/pendingpayments/${p.id}`}>
                {p.recipient.name}
              </a>
              {p.reference ? <span className={`block ${MUTED}`}>{p.reference}</span> : null}
              <span className={`${PHONE_ONLY} ${MUTED}`}>{when(p.created_at)}</span>
              <span className={`${PHONE_ONLY} mt-1`}>
                <StatusBadge status={p.status} />
              </span>
            </td>
            <td className={`${CELL} ${PHONE_HIDDEN}`}>
              <StatusBadge status={p.status} />
            </td>
            <td className={NUMBER}>
              <span className="block">
                <span className="sr-only">Debited:</span> <Amount amount={p.sell_amount} currency={p.sell_currency} />
              </span>
              <span className={`block ${MUTED}`}>
                <span className="sr-only">The recipient gets:</span>{" "}
                <Amount amount={p.buy_amount} currency={p.buy_currency} />
              </span>
            </td>
          </tr>
        ))}
      </Table>
      <Pager label="Pages of payments" page={page} pages={pages} onPage={setPage} />
    </div>
  );
}

export default withQueries(Payments);
