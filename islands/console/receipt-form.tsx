/**
 * Recording a receipt (POST console/receipts): money received in the company's bank account. A
 * reference that is a customer's account_ref credits that account at once.
 */
import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect } from "react";
import { notify } from "../lib/notification-store.ts";
import { receiptKeys } from "../lib/query-keys.ts";
import { FormAlert } from "../ui/alert.tsx";
import { AmountInput } from "../ui/amount.tsx";
import { type CurrencyOption, CurrencySelect } from "../ui/currency-select.tsx";
import { TextField } from "../ui/field.tsx";
import { SubmitButton } from "../ui/submit-button.tsx";
import { useForm } from "../ui/use-form.ts";
import { type Receipt, type ReceiptInput, recordReceipt } from "./calls.ts";
import { statusText, withReceipt } from "./receipt-rows.tsx";

/** Today as YYYY-MM-DD on this browser's calendar. */
function today(): string {
  const d = new Date();
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

export function ReceiptForm({ currencies }: { currencies: readonly CurrencyOption[] }) {
  const queries = useQueryClient();
  const form = useForm({
    call: recordReceipt,
    // Two identical receipts are two payments: after a success the next one is a new request.
    idempotent: true,
    values: {
      amount: "",
      currency: currencies.find((c) => c.code === "GBP")?.code ?? currencies[0]?.code ?? "",
      payer_name: "",
      reference: "",
      received_at: "",
    } satisfies ReceiptInput,
    onSuccess(receipt) {
      queries.setQueryData<Receipt[]>(receiptKeys.all, (rows) => withReceipt(rows, receipt));
      for (const name of ["amount", "payer_name", "reference"]) form.set(name, "");
      notify({
        title: `Receipt of ${receipt.amount} ${receipt.currency} recorded`,
        description: statusText(receipt),
        color: receipt.status === "unmatched" ? "warning" : "success",
      });
    },
  });
  const { values, fields } = form;

  // The date defaults to today once in the browser (the server's today may be another day).
  useEffect(() => {
    if (!values.received_at) form.set("received_at", today());
  }, []);

  function record(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void form.submit({
      body: {
        amount: values.amount.trim(),
        currency: values.currency,
        payer_name: values.payer_name.trim(),
        reference: values.reference.trim(),
        received_at: values.received_at,
      },
    });
  }

  const text = (name: keyof ReceiptInput) => ({
    value: values[name],
    onChange: (event: { currentTarget: { value: string } }) => form.set(name, event.currentTarget.value),
    error: fields[name],
  });

  return (
    <form onSubmit={record} noValidate aria-labelledby="receipt-form-title" className="card flex flex-col gap-4">
      <h2 id="receipt-form-title" className="text-lg font-semibold">Record a receipt</h2>
      <FormAlert
        error={form.error}
        fields={fields}
        shown={["amount", "currency", "payer_name", "reference", "received_at"]}
      />
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
        <AmountInput id="receipt-amount" label="Amount" className="font-mono" {...text("amount")} />
        <CurrencySelect id="receipt-currency" label="Currency" currencies={currencies} {...text("currency")} />
        <TextField id="receipt-received-at" label="Received on" type="date" {...text("received_at")} />
        <TextField id="receipt-payer-name" label="Payer's name" autoComplete="off" {...text("payer_name")} />
        <TextField
          id="receipt-reference"
          label="Reference on the payment"
          autoComplete="off"
          spellCheck={false}
          hint="A reference that is a customer's account reference credits that account at once."
          {...text("reference")}
        />
      </div>
      <div>
        <SubmitButton pending={form.submitting} pendingLabel="Recording…" className="btn-primary">
          Record the receipt
        </SubmitButton>
      </div>
    </form>
  );
}
