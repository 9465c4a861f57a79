import { type FormEvent, useEffect, useState } from "react";
import { api, errorText, fieldsOf, isAbort } from "./lib/api.ts";
import { FormAlert } from "./lib/form-alert.tsx";
import { SubmitButton, useIdempotencyKey } from "./lib/forms.tsx";
import { AccountRefForm } from "./lib/account-ref-form.tsx";
import { ERROR, GHOST, inputClass as consoleInput, LABEL } from "./lib/console-fields.ts";
import { notify } from "./lib/notifications.ts";

/** A receipt of console/receipts. */
export interface Receipt {
  id: number | string;
  amount: string;
  currency: string;
  payer_name: string;
  reference: string;
  received_at: string;
  status: "matched" | "unmatched" | "allocated";
  account_ref: string | null;
}

export interface ConsoleReceiptsProps {
  receipts: Receipt[];
  currencies: { code: string; name: string }[];
}

type Filter = "all" | "unmatched";

/** A field of the receipt form: the console's look, below its label. */
const inputClass = (invalid: boolean) => `mt-1 ${consoleInput(invalid)}`;

/** What a receipt's status says: "Credited to P1234567", "Unmatched", "Allocated to P1234567". */
export function statusText(r: Pick<Receipt, "status" | "account_ref">): string {
  if (r.status === "unmatched") return "Unmatched";
  const verb = r.status === "matched" ? "Credited to" : "Allocated to";
  return r.account_ref ? `${verb} ${r.account_ref}` : r.status === "matched" ? "Credited" : "Allocated";
}

/** Today as YYYY-MM-DD on this browser's calendar. */
function today(): string {
  const d = new Date();
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

const EMPTY = { amount: "", currency: "", payer_name: "", reference: "", received_at: "" };

/**
 * The administrators' receipts (money customers sent to the company's bank account): a form that
 * records one (POST console/receipts; a reference that names an account credits it at once), the
 * list with a filter (all / unmatched), and for an unmatched receipt an inline "Allocate" form
 * (POST console/receipts/{id}/allocate {account_ref}).
 */
export default function ConsoleReceipts({ receipts: initial, currencies }: ConsoleReceiptsProps) {
  const idempotencyKey = useIdempotencyKey();
  const [receipts, setReceipts] = useState(initial);
  const [filter, setFilter] = useState<Filter>("all");
  const [form, setForm] = useState({
    ...EMPTY,
    currency: currencies.find((c) => c.code === "GBP")?.code ?? currencies[0]?.code ?? "",
  });
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [allocating, setAllocating] = useState<Receipt["id"] | null>(null);

  // The date defaults to today once in the browser (the server's today may be another day).
  useEffect(() => setForm((f) => (f.received_at ? f : { ...f, received_at: today() })), []);

  const set = (name: keyof typeof EMPTY) => (event: { currentTarget: { value: string } }) => {
    const value = event.currentTarget.value;
    setForm((f) => ({ ...f, [name]: value }));
  };

  async function record(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (pending) return;
    const payload = {
      amount: form.amount.trim(),
      currency: form.currency,
      payer_name: form.payer_name.trim(),
      reference: form.reference.trim(),
      received_at: form.received_at,
    };
    setPending(true);
    setError(null);
    setFields({});
    try {
      const receipt = await api.post<Receipt>("console/receipts", payload, { idempotencyKey: idempotencyKey(payload) });
      // Two identical receipts are two payments: the next one is a new request.
      idempotencyKey.reset();
      setReceipts((rows) => [receipt, ...rows.filter((r) => r.id !== receipt.id)]);
      setForm((f) => ({ ...f, amount: "", payer_name: "", reference: "" }));
      notify({
        title: `Receipt of ${receipt.amount} ${receipt.currency} recorded`,
        description: statusText(receipt),
        color: receipt.status === "unmatched" ? "warning" : "success",
      });
    } catch (err) {
      if (!isAbort(err)) {
        setError(errorText(err));
        setFields(fieldsOf(err));
      }
    } finally {
      setPending(false);
    }
  }

  function allocated(receipt: Receipt) {
    setReceipts((rows) => rows.map((r) => (r.id === receipt.id ? receipt : r)));
    setAllocating(null);
    notify({
      title: `${receipt.amount} ${receipt.currency} allocated`,
      description: statusText(receipt),
      color: "success",
    });
  }

  const field = (name: keyof typeof EMPTY, label: string, extra: Record<string, unknown> = {}) => {
    const id = `receipt-${name.replace("_", "-")}`;
    const problem = fields[name];
    return (
      <div>
        <label htmlFor={id} className={LABEL}>{label}</label>
        <input
          id={id}
          type="text"
          autoComplete="off"
          required
          value={form[name]}
          onChange={set(name)}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? `${id}-error` : undefined}
          className={inputClass(!!problem)}
          {...extra}
        />
        {problem ? <p id={`${id}-error`} className={ERROR}>{problem}</p> : null}
      </div>
    );
  };

  const shown = receipts.filter((r) => filter === "all" || r.status === "unmatched");
  const unmatched = receipts.filter((r) => r.status === "unmatched").length;

  return (
    <div className="flex flex-col gap-6">
      <form onSubmit={record} noValidate aria-labelledby="receipt-form-title" className="card flex flex-col gap-4">
        <h2 id="receipt-form-title" className="text-lg font-semibold">Record a receipt</h2>
        <FormAlert
          error={error}
          fields={fields}
          shown={["amount", "currency", "payer_name", "reference", "received_at"]}
        />
        <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
          {field("amount", "Amount", {
            inputMode: "decimal",
            className: `${inputClass(!!fields.amount)} font-mono tabular-nums`,
          })}
          <div>
            <label htmlFor="receipt-currency" className={LABEL}>Currency</label>
            <select
              id="receipt-currency"
              value={form.currency}
              onChange={set("currency")}
              aria-invalid={fields.currency ? true : undefined}
              aria-describedby={fields.currency ? "receipt-currency-error" : undefined}
              className={inputClass(!!fields.currency)}
            >
              {currencies.map((c) => <option key={c.code} value={c.code}>{`${c.code} · ${c.name}`}</option>)}
            </select>
            {fields.currency ? <p id="receipt-currency-error" className={ERROR}>{fields.currency}</p> : null}
          </div>
          {field("received_at", "Received on", { type: "date" })}
          {field("payer_name", "Payer's name")}
          {field("reference", "Reference on the payment", {
            spellCheck: false,
            "aria-describedby": fields.reference ? "receipt-reference-error" : "receipt-reference-hint",
          })}
        </div>
        <p id="receipt-reference-hint" className="text-sm text-neutral-600 dark:text-neutral-300">
          A reference that is a customer's account reference credits that account at once.
        </p>
        <div>
          <SubmitButton pending={pending} pendingLabel="Recording…" className="btn-primary">
            Record the receipt
          </SubmitButton>
        </div>
      </form>

      <div className="flex flex-wrap items-center justify-between gap-3">
        <div role="group" aria-label="Show" className="flex gap-2">
          {(["all", "unmatched"] as const).map((f) => (
            <button
              key={f}
              type="button"
              aria-pressed={filter === f}
              onClick={() => setFilter(f)}
              className={filter === f ? "btn-primary" : GHOST}
            >
              {f === "all" ? "All" : `Unmatched (${unmatched})`}
            </button>
          ))}
        </div>
        <p role="status" className="text-sm text-neutral-600 dark:text-neutral-300">
          {shown.length === 1 ? "1 receipt" : `${shown.length} receipts`}
        </p>
      </div>

      <div className="overflow-x-auto rounded-xl border border-neutral-200 dark:border-neutral-800">
        <table className="w-full text-left text-sm">
          <thead className="bg-neutral-50 text-neutral-700 dark:bg-neutral-900 dark:text-neutral-300">
            <tr>
              <th scope="col" className="px-4 py-3 font-semibold">Received</th>
              <th scope="col" className="px-4 py-3 font-semibold">Payer</th>
              <th scope="col" className="px-4 py-3 font-semibold">Reference</th>
              <th scope="col" className="px-4 py-3 text-right font-semibold">Amount</th>
              <th scope="col" className="px-4 py-3 font-semibold">Status</th>
              <th scope="col" className="px-4 py-3 font-semibold">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-neutral-200 dark:divide-neutral-800">
            {shown.length === 0
              ? (
                <tr>
                  <td colSpan={6} className="px-4 py-6 text-center text-neutral-600 dark:text-neutral-300">
                    {filter === "all" ? "No receipts yet." : "No unmatched receipts."}
                  </td>
                </tr>
              )
              : null}
            {shown.map((r) => (
              <ReceiptRows
                key={r.id}
                receipt={r}
                allocating={allocating === r.id}
                onAllocate={(open) => setAllocating(open ? r.id : null)}
                onAllocated={allocated}
              />
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function StatusBadge({ receipt }: { receipt: Receipt }) {
  const tone = receipt.status === "unmatched"
    ? "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100"
    : "bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100";
  return (
    <span className={`inline-block rounded-full px-2 py-0.5 text-xs font-medium ${tone}`}>{statusText(receipt)}</span>
  );
}

function ReceiptRows({ receipt, allocating, onAllocate, onAllocated }: {
  receipt: Receipt;
  allocating: boolean;
  onAllocate: (open: boolean) => void;
  onAllocated: (receipt: Receipt) => void;
}) {
  return (
    <>
      <tr>
        <td className="px-4 py-3 whitespace-nowrap">{String(receipt.received_at).slice(0, 10)}</td>
        <th scope="row" className="px-4 py-3 font-medium text-neutral-900 dark:text-neutral-100">
          {receipt.payer_name}
        </th>
        <td className="px-4 py-3 font-mono break-all">{receipt.reference}</td>
        <td className="px-4 py-3 text-right whitespace-nowrap tabular-nums">
          {`${receipt.amount} ${receipt.currency}`}
        </td>
        <td className="px-4 py-3">
          <StatusBadge receipt={receipt} />
        </td>
        <td className="px-4 py-3 text-right">
          {receipt.status === "unmatched"
            ? (
              <button
                type="button"
                className={GHOST}
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
          <tr id={`allocate-row-${receipt.id}`}>
            <td colSpan={6} className="bg-neutral-50 px-4 py-4 dark:bg-neutral-900">
              <AllocateForm receipt={receipt} onCancel={() => onAllocate(false)} onAllocated={onAllocated} />
            </td>
          </tr>
        )
        : null}
    </>
  );
}

function AllocateForm({ receipt, onCancel, onAllocated }: {
  receipt: Receipt;
  onCancel: () => void;
  onAllocated: (receipt: Receipt) => void;
}) {
  return (
    <AccountRefForm<Receipt>
      id={`allocate-${receipt.id}`}
      label={`Allocate the receipt from ${receipt.payer_name}`}
      field="account_ref"
      send={(payload, idempotencyKey) =>
        api.post(`console/receipts/${receipt.id}/allocate`, payload, { idempotencyKey })}
      submitLabel="Allocate and credit"
      pendingLabel="Allocating…"
      onCancel={onCancel}
      onDone={(answer) => onAllocated({ ...receipt, ...answer })}
    />
  );
}
