/**
 * A receipt's row in the console's list, with what can be done with it (docs/decisions/026):
 * approve or decline one awaiting a second administrator, release or discard a likely duplicate,
 * allocate an unmatched one, reverse a credited one; and under the row, the form that asks for the
 * account_ref or the reason. A payout's return (decision 093) offers nothing: the payout desk fails
 * the payment, which settles it.
 */
import { useQueryClient } from "@tanstack/react-query";
import { errorText } from "../lib/api.ts";
import { notify } from "../lib/notification-store.ts";
import { receiptKeys } from "../lib/query-keys.ts";
import { useWrite } from "../lib/write.ts";
import { Amount } from "../ui/amount.tsx";
import { CELL, DetailRow, MUTED, NUMBER, ROW_HEADER } from "../ui/table.tsx";
import { AccountRefForm } from "./account-ref-form.tsx";
import {
  allocateReceipt,
  approveReceipt,
  declineReceipt,
  discardReceipt,
  type Receipt,
  releaseReceipt,
  reverseReceipt,
} from "./calls.ts";
import { ReasonForm } from "./reason-form.tsx";
import { BusyButton } from "../ui/submit-button.tsx";
import { useInPlace } from "../ui/take-focus.ts";

export const RECEIPT_COLUMNS = [
  { label: "Received" },
  { label: "Payer" },
  { label: "Reference" },
  { label: "Amount", numeric: true },
  { label: "Status" },
  { label: "Actions", hidden: true },
];

/** The forms a row can open under it. */
export type ReceiptPanel = "allocate" | "decline" | "discard" | "reverse";

/** What a receipt's status says: "Credited to P1234567", "Awaiting approval", "Reversed"... */
export function statusText(
  r: Pick<Receipt, "status" | "account_ref"> & Partial<Pick<Receipt, "returns_payment_id" | "returns_payment_status">>,
): string {
  const to = r.account_ref ? ` (${r.account_ref})` : "";
  // The desk cannot fail a payment marked arrived: the receipt waits until someone asks the bank.
  if (r.returns_payment_id != null && r.status === "unmatched" && r.returns_payment_status === "completed") {
    return `Return of payment ${r.returns_payment_id}, marked arrived: ask the bank`;
  }
  if (r.returns_payment_id != null && r.status === "unmatched") {
    return `Return of payment ${r.returns_payment_id}: fail it on the payout desk`;
  }
  if (r.returns_payment_id != null && r.status === "reversed") {
    return `Return of payment ${r.returns_payment_id}: settled`;
  }
  switch (r.status) {
    case "unmatched":
      return "Unmatched";
    case "matched":
      return r.account_ref ? `Credited to ${r.account_ref}` : "Credited";
    case "allocated":
      return r.account_ref ? `Allocated to ${r.account_ref}` : "Allocated";
    case "awaiting_approval":
      return `Awaiting approval${to}`;
    case "held_duplicate":
      return `Held as a likely duplicate${to}`;
    case "declined":
      return "Declined";
    case "discarded":
      return "Discarded";
    case "reversed":
      return "Reversed";
  }
}

/** The receipts with one of them replaced by the server's answer about it. */
export const withReceipt = (
  rows: Receipt[] | undefined,
  receipt: Receipt,
): Receipt[] => [receipt, ...(rows ?? []).filter((r) => r.id !== receipt.id)];

const TONE = {
  waiting: "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100",
  done: "bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100",
  closed: "bg-neutral-200 text-neutral-800 dark:bg-neutral-800 dark:text-neutral-200",
};

function StatusBadge({ receipt }: { receipt: Receipt }) {
  const tone = ["unmatched", "awaiting_approval", "held_duplicate"].includes(receipt.status)
    ? TONE.waiting
    : ["matched", "allocated"].includes(receipt.status)
    ? TONE.done
    : TONE.closed;
  return (
    <span className={`inline-block rounded-full px-2 py-0.5 text-xs font-medium ${tone}`}>{statusText(receipt)}</span>
  );
}

/** Who recorded it, who approved it, why it was closed: the row's small print. */
function Trail({ receipt }: { receipt: Receipt }) {
  const lines = [`Recorded by ${receipt.recorded_by.email}`];
  if (receipt.duplicate_of !== null) lines.push(`Repeats receipt ${receipt.duplicate_of}`);
  if (receipt.approved_by) lines.push(`Approved by ${receipt.approved_by.email}`);
  if (receipt.closed_by && receipt.reason) lines.push(`${receipt.closed_by.email}: ${receipt.reason}`);
  if (receipt.status === "unmatched" && receipt.returns_payment_status === "completed") {
    lines.push(
      `Payment ${receipt.returns_payment_id} was marked arrived, so the payout desk cannot fail it and this ` +
        "cannot be allocated: ask the bank whether the payment arrived or came back before anything is done",
    );
  }
  return <span className={`block text-xs ${MUTED}`}>{lines.join(" · ")}</span>;
}

export function ReceiptRows({ receipt, panel, onPanel }: {
  receipt: Receipt;
  /** The form open under this row, if any. */
  panel: ReceiptPanel | null;
  onPanel: (panel: ReceiptPanel | null) => void;
}) {
  const queries = useQueryClient();
  const what = `${receipt.amount} ${receipt.currency} from ${receipt.payer_name}`;

  /** The server's answer about the receipt replaces its row; a line says what happened. */
  function changed(answer: Receipt, title: string) {
    queries.setQueryData<Receipt[]>(receiptKeys.all, (rows) => rows?.map((r) => (r.id === answer.id ? answer : r)));
    onPanel(null);
    notify({ title, description: statusText(answer), color: "success" });
  }
  const failed = (err: unknown) => notify({ title: "Not done", description: errorText(err), color: "error" });

  const approve = useWrite({ call: approveReceipt, idempotent: true });
  const release = useWrite({ call: releaseReceipt, idempotent: true });
  const busy = approve.isPending || release.isPending;

  // One form at a time under the row, opened by one of its buttons: given up (Cancel, Escape), it
  // gives the keyboard back to that button.
  const place = useInPlace({ open: panel !== null, setOpen: (shown) => !shown && onPanel(null) });
  const button = (
    label: string,
    onClick: (event: { currentTarget: HTMLButtonElement }) => void,
    aria: string,
    controls?: ReceiptPanel,
  ) => (
    <BusyButton
      type="button"
      className="btn-outline"
      busy={busy}
      aria-busy={undefined}
      aria-label={aria}
      aria-expanded={controls ? panel === controls : undefined}
      aria-controls={controls ? `${controls}-row-${receipt.id}` : undefined}
      onClick={onClick}
    >
      {label}
    </BusyButton>
  );
  const toggle = (p: ReceiptPanel) => (event: { currentTarget: HTMLButtonElement }) => {
    if (panel === p) return place.dismiss();
    place.showFrom(event.currentTarget);
    onPanel(p);
  };

  let actions = null;
  if (receipt.status === "awaiting_approval") {
    actions = (
      <>
        {button("Approve", () =>
          approve.mutate({ params: { id: receipt.id } }, {
            onSuccess: (answer) => changed(answer, `${what} approved`),
            onError: failed,
          }), `Approve ${what}`)}
        {button("Decline", toggle("decline"), `Decline ${what}`, "decline")}
      </>
    );
  } else if (receipt.status === "held_duplicate") {
    actions = (
      <>
        {button("Release", () =>
          release.mutate({ params: { id: receipt.id } }, {
            onSuccess: (answer) => changed(answer, `${what} released`),
            onError: failed,
          }), `Release ${what}`)}
        {button("Discard", toggle("discard"), `Discard ${what}`, "discard")}
      </>
    );
  } else if (receipt.status === "unmatched" && receipt.returns_payment_id === null) {
    actions = (
      <>
        {button("Allocate", toggle("allocate"), `Allocate ${what}`, "allocate")}
        {button("Reverse", toggle("reverse"), `Reverse ${what}`, "reverse")}
      </>
    );
  } else if (receipt.status === "matched" || receipt.status === "allocated") {
    actions = button("Reverse", toggle("reverse"), `Reverse ${what}`, "reverse");
  }

  /** The reason form of a decline, a discard or a reversal. */
  const reasonForm = (p: Exclude<ReceiptPanel, "allocate">) => {
    const common = {
      id: `${p}-${receipt.id}`,
      label: `${
        p === "reverse" ? "Reverse" : p === "decline" ? "Decline" : "Discard"
      } the receipt from ${receipt.payer_name}`,
      input: { params: { id: receipt.id } },
      first: place.first,
      onCancel: place.dismiss,
    };
    if (p === "decline") {
      return (
        <ReasonForm
          {...common}
          write={{ call: declineReceipt, onSuccess: (answer) => changed(answer, `${what} declined`) }}
          submitLabel="Decline"
          pendingLabel="Declining…"
        />
      );
    }
    if (p === "discard") {
      return (
        <ReasonForm
          {...common}
          write={{ call: discardReceipt, onSuccess: (answer) => changed(answer, `${what} discarded`) }}
          submitLabel="Discard"
          pendingLabel="Discarding…"
        />
      );
    }
    return (
      <ReasonForm
        {...common}
        write={{ call: reverseReceipt, onSuccess: (answer) => changed(answer, `${what} reversed`) }}
        submitLabel="Reverse the credit"
        pendingLabel="Reversing…"
      />
    );
  };

  return (
    <>
      <tr id={`receipt-${receipt.id}`}>
        <td className={`${CELL} whitespace-nowrap`}>{String(receipt.received_at).slice(0, 10)}</td>
        <th scope="row" className={ROW_HEADER}>
          {receipt.payer_name}
          <Trail receipt={receipt} />
        </th>
        <td className={`${CELL} font-mono break-all`}>{receipt.reference}</td>
        <td className={NUMBER}>
          <Amount amount={receipt.amount} currency={receipt.currency} />
        </td>
        <td className={CELL}>
          <StatusBadge receipt={receipt} />
        </td>
        <td className={`${CELL} text-right`}>
          <div className="flex flex-wrap justify-end gap-2">{actions}</div>
        </td>
      </tr>
      {panel === "allocate" && receipt.status === "unmatched" && receipt.returns_payment_id === null
        ? (
          <DetailRow id={`allocate-row-${receipt.id}`} columns={RECEIPT_COLUMNS.length}>
            <AccountRefForm
              id={`allocate-${receipt.id}`}
              label={`Allocate the receipt from ${receipt.payer_name}`}
              field="account_ref"
              write={{ call: allocateReceipt, onSuccess: (answer) => changed(answer, `${what} allocated`) }}
              input={{ params: { id: receipt.id } }}
              submitLabel="Allocate and credit"
              pendingLabel="Allocating…"
              first={place.first}
              onCancel={place.dismiss}
            />
          </DetailRow>
        )
        : null}
      {panel && panel !== "allocate"
        ? (
          <DetailRow id={`${panel}-row-${receipt.id}`} columns={RECEIPT_COLUMNS.length}>
            {reasonForm(panel)}
          </DetailRow>
        )
        : null}
    </>
  );
}
