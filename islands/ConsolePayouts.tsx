import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { read, withQueries } from "./lib/query-client.tsx";
import { payoutKeys } from "./lib/query-keys.ts";
import { listPayouts, type PayoutBatch, type PayoutQueue, type QueueName } from "./payouts/calls.ts";
import { PAYOUT_COLUMNS, PayoutRows, type RowForm } from "./payouts/payout-rows.tsx";
import { SepaFiles } from "./payouts/sepa-files.tsx";
import { Alert } from "./ui/alert.tsx";
import { type CurrencyOption, CurrencyOptions } from "./ui/currency-select.tsx";
import { SelectField } from "./ui/field.tsx";
import { EmptyRow, Table } from "./ui/table.tsx";

export interface ConsolePayoutsProps {
  queue: QueueName;
  /** The one payment the address asks for (?payment=, an audit entry's link), or null for the queue. */
  payment?: number | null;
  /** The queue as the server rendered it (no filter but `payment`): the query starts from it. */
  initial: PayoutQueue;
  /** /console/local's SEPA files; null on /console/transfer. */
  batches: PayoutBatch[] | null;
  currencies: CurrencyOption[];
}

const STATUSES = [
  ["", "To do: approved and sent"],
  ["approved", "Approved, to send"],
  ["submitted", "Sent, not arrived"],
  ["completed", "Arrived"],
  ["failed", "Failed"],
  // Not a status: payments the bank sent back whose return waits, whatever their status (decision 093).
  ["returned", "Returned by the bank, not settled"],
] as const;

type Status = (typeof STATUSES)[number][0];

/**
 * The payout desk (issue 8 item 7): /console/local (SEPA, Faster Payments, ACH and other local
 * rails) or /console/transfer (SWIFT), a queue filtered by status and payout currency (GET
 * console/payouts). Each payment is submitted to its rail, marked arrived or failed with a reason;
 * on /console/local, approved SEPA payments leave in a SEPA file. Every write refreshes the queue
 * and the files.
 */
function ConsolePayouts({ queue, payment = null, initial, batches, currencies }: ConsolePayoutsProps) {
  const [status, setStatus] = useState<Status>("");
  const [currency, setCurrency] = useState("");
  const [open, setOpen] = useState<{ id: number; form: RowForm } | null>(null);
  const unfiltered = status === "" && currency === "";
  const query = useQuery({
    ...read(payoutKeys.queue(queue, { status, currency, payment }), listPayouts, {
      query: {
        rail: queue,
        ...(status === "returned" ? { returned: "true" as const } : status ? { status } : {}),
        ...(currency ? { currency } : {}),
        ...(payment ? { payment: String(payment) } : {}),
      },
    }),
    initialData: unfiltered ? initial : undefined,
    placeholderData: keepPreviousData,
  });
  const data = query.data ?? initial;
  const shown = data.items.length;

  return (
    <div className="flex flex-col gap-6">
      <Alert tone="info" title="Where Submit sends payments" live={false}>{data.rail_note}</Alert>
      {batches ? <SepaFiles batches={batches} /> : null}

      <section className="space-y-4" aria-labelledby="payout-queue-title">
        <h2 id="payout-queue-title" className="text-lg font-semibold">
          {queue === "local" ? "Payments on local rails" : "International transfers"}
        </h2>
        <div className="flex flex-wrap items-end gap-4" role="group" aria-label="Filter the queue">
          <SelectField
            id="payouts-status"
            label="Status"
            value={status}
            onChange={(event) => setStatus(event.currentTarget.value as Status)}
          >
            {STATUSES.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
          </SelectField>
          <SelectField
            id="payouts-currency"
            label="Payout currency"
            value={currency}
            onChange={(event) => setCurrency(event.currentTarget.value)}
          >
            <option value="">All currencies</option>
            <CurrencyOptions currencies={currencies} />
          </SelectField>
          {payment
            ? (
              <p className="text-sm">
                {`Payment #${payment} only. `}
                <a className="underline" href={`/console/${queue}`}>Show the whole queue</a>
              </p>
            )
            : null}
          <p role="status" className="text-sm text-neutral-600 dark:text-neutral-300">
            {data.total > shown
              ? `The first ${shown} of ${data.total} payments`
              : shown === 1
              ? "1 payment"
              : `${shown} payments`}
          </p>
        </div>
        {query.isError ? <Alert>The queue could not be loaded. Try again in a moment.</Alert> : null}
        <Table caption="Payout queue" columns={PAYOUT_COLUMNS} busy={query.isFetching}>
          {shown === 0 ? <EmptyRow columns={PAYOUT_COLUMNS.length}>No payments here.</EmptyRow> : null}
          {data.items.map((p) => (
            <PayoutRows
              key={p.id}
              payout={p}
              asOf={data.as_of}
              form={open?.id === p.id ? open.form : null}
              onForm={(form) => setOpen(form ? { id: p.id, form } : null)}
            />
          ))}
        </Table>
      </section>
    </div>
  );
}

export default withQueries(ConsolePayouts);
