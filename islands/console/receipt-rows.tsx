/** A receipt's row in the console's list, and under an unmatched one, the form that allocates it. */
import { useQueryClient } from "@tanstack/react-query";
import { notify } from "../lib/notification-store.ts";
import { receiptKeys } from "../lib/query-keys.ts";
import { Amount } from "../ui/amount.tsx";
import { CELL, DetailRow, NUMBER, ROW_HEADER } from "../ui/table.tsx";
import { AccountRefForm } from "./account-ref-form.tsx";
import { allocateReceipt, type Receipt } from "./calls.ts";

export const RECEIPT_COLUMNS = [
  { label: "Received" },
  { label: "Payer" },
  { label: "Reference" },
  { label: "Amount", numeric: true },
  { label: "Status" },
  { label: "Actions", hidden: true },
];

/** What a receipt's status says: "Credited to P1234567", "Unmatched", "Allocated to P1234567". */
export function statusText(r: Pick<Receipt, "status" | "account_ref">): string {
  if (r.status === "unmatched") return "Unmatched";
  const verb = r.status === "matched" ? "Credited to" : "Allocated to";
  return r.account_ref ? `${verb} ${r.account_ref}` : r.status === "matched" ? "Credited" : "Allocated";
}

/** The receipts with one of them replaced by the server's answer about it. */
export const withReceipt = (
  rows: Receipt[] | undefined,
  receipt: Receipt,
): Receipt[] => [receipt, ...(rows ?? []).filter((r) => r.id !== receipt.id)];

function StatusBadge({ receipt }: { receipt: Receipt }) {
  const tone = receipt.status === "unmatched"
    ? "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100"
    : "bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100";
  return (
    <span className={`inline-block rounded-full px-2 py-0.5 text-xs font-medium ${tone}`}>{statusText(receipt)}</span>
  );
}

export function ReceiptRows({ receipt, allocating, onAllocate }: {
  receipt: Receipt;
  allocating: boolean;
  onAllocate: (open: boolean) => void;
}) {
  const queries = useQueryClient();
  return (
    <>
      <tr>
        <td className={`${CELL} whitespace-nowrap`}>{String(receipt.received_at).slice(0, 10)}</td>
        <th scope="row" className={ROW_HEADER}>{receipt.payer_name}</th>
        <td className={`${CELL} font-mono break-all`}>{receipt.reference}</td>
        <td className={NUMBER}>
          <Amount amount={receipt.amount} currency={receipt.currency} />
        </td>
        <td className={CELL}>
          <StatusBadge receipt={receipt} />
        </td>
        <td className={`${CELL} text-right`}>
          {receipt.status === "unmatched"
            ? (
              <button
                type="button"
                className="btn-outline"
                aria-expanded={allocating}
                aria-controls={`allocate-row-${receipt.id}`}
                aria-label={`Allocate ${receipt.amount} ${receipt.currency} from ${receipt.payer_name}`}
                onClick={() => onAllocate(!allocating)}
              >
                Allocate
              </button>
            )
            : null}
        </td>
      </tr>
      {allocating && receipt.status === "unmatched"
        ? (
          <DetailRow id={`allocate-row-${receipt.id}`} columns={RECEIPT_COLUMNS.length}>
            <AccountRefForm
              id={`allocate-${receipt.id}`}
              label={`Allocate the receipt from ${receipt.payer_name}`}
              field="account_ref"
              write={{
                call: allocateReceipt,
                onSuccess(answer) {
                  const allocated = { ...receipt, ...answer };
                  queries.setQueryData<Receipt[]>(
                    receiptKeys.all,
                    (rows) => rows?.map((r) => (r.id === allocated.id ? allocated : r)),
                  );
                  onAllocate(false);
                  notify({
                    title: `${allocated.amount} ${allocated.currency} allocated`,
                    description: statusText(allocated),
                    color: "success",
                  });
                },
              }}
              input={{ params: { id: receipt.id } }}
              submitLabel="Allocate and credit"
              pendingLabel="Allocating…"
              onCancel={() => onAllocate(false)}
            />
          </DetailRow>
        )
        : null}
    </>
  );
}
