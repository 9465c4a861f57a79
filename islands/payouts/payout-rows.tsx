/**
 * A payment's row in a payout queue, and under it, when opened, the form that fails it with a
 * reason or submits it to the simulated rail with a refusal. Submit and Complete act at once.
 */
import { type FormEvent, type KeyboardEvent, useEffect } from "react";
import { errorText } from "../lib/api.ts";
import { notify } from "../lib/notification-store.ts";
import { payoutKeys } from "../lib/query-keys.ts";
import { useWrite } from "../lib/write.ts";
import { StatusBadge } from "../payments/status.tsx";
import { when } from "../payments/timeline.tsx";
import { Amount } from "../ui/amount.tsx";
import { FormAlert } from "../ui/alert.tsx";
import { TextField } from "../ui/field.tsx";
import { BusyButton, SubmitButton } from "../ui/submit-button.tsx";
import { CELL, DetailRow, MUTED, NUMBER, ROW_HEADER } from "../ui/table.tsx";
import { useForm } from "../ui/use-form.ts";
import { ageText, completePayout, failPayout, type Payout, submitPayout } from "./calls.ts";

export const PAYOUT_COLUMNS = [
  { label: "Payment" },
  { label: "Customer" },
  { label: "Recipient" },
  { label: "Amount", numeric: true },
  { label: "Reference" },
  { label: "Status" },
  { label: "Actions", hidden: true },
];

/** Which form is open under a row. */
export type RowForm = "fail" | "refuse" | null;

const CHANGES = [payoutKeys.all];

/** The bank detail that identifies the recipient's account: its IBAN, else its account number. */
const accountOf = (details: Record<string, string>): string =>
  details.iban ?? details.account_number ?? Object.values(details)[0] ?? "";

/** What the desk just did, said in the notification queue. */
function told(p: Payout, refused: string | null) {
  const what = `Payment ${p.id}: ${p.buy_amount} ${p.buy_currency} to ${p.recipient.name}`;
  if (refused) notify({ title: "The rail refused the payment", description: `${what}. ${refused}`, color: "warning" });
  else if (p.status === "submitted") notify({ title: "Payment sent", description: what, color: "success" });
  else if (p.status === "completed") notify({ title: "Payment marked arrived", description: what, color: "success" });
  else if (p.status === "failed") notify({ title: "Payment failed", description: what, color: "success" });
}

export function PayoutRows({ payout: p, asOf, form, onForm }: {
  payout: Payout;
  /** The queue's time: ages are counted from it. */
  asOf: string;
  form: RowForm;
  onForm: (form: RowForm) => void;
}) {
  const failed = (err: unknown) => notify({ title: `Payment ${p.id}`, description: errorText(err), color: "error" });
  const done = ({ payment, refused }: { payment: Payout; refused: string | null }) => told(payment, refused);
  const submit = useWrite({ call: submitPayout, idempotent: true, invalidates: CHANGES, onSuccess: done });
  const complete = useWrite({ call: completePayout, idempotent: true, invalidates: CHANGES, onSuccess: done });
  const busy = submit.isPending || complete.isPending;
  const to = `${p.buy_amount} ${p.buy_currency} to ${p.recipient.name}`;
  const detailId = `payout-form-${p.id}`;
  /** Closed without sending (Escape, Cancel): focus goes back to the button that opened it. */
  const cancel = (kind: "fail" | "refuse") => {
    const opener = document.querySelector<HTMLButtonElement>(`#payout-${p.id} [data-opens="${kind}"]`);
    onForm(null);
    opener?.focus();
  };

  return (
    <>
      <tr id={`payout-${p.id}`} data-payout-id={p.id}>
        <th scope="row" className={ROW_HEADER}>
          <span className="block">{`#${p.id}`}</span>
          <span className={`block text-xs font-normal ${MUTED}`} title={when(p.created_at)}>
            {`${ageText(asOf, p.created_at)} ago`}
          </span>
          {p.priority ? <span className="block text-xs font-semibold">Priority</span> : null}
        </th>
        <td className={CELL}>
          <span className="block">{p.customer.name}</span>
          {p.customer.restricted
            ? (
              <span
                className="mt-1 inline-block rounded-full bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-900 dark:bg-amber-900 dark:text-amber-100"
                data-restricted="payout"
              >
                Restricted
              </span>
            )
            : null}
          <span className={`block font-mono text-xs ${MUTED}`}>{p.customer.account_ref}</span>
          <span className={`block text-xs ${MUTED}`}>{`by ${p.created_by.name}`}</span>
        </td>
        <td className={CELL}>
          <span className="block">{`${p.recipient.name} (${p.recipient.country})`}</span>
          <span className={`block font-mono text-xs break-all ${MUTED}`}>{accountOf(p.recipient.details)}</span>
          <span className={`block text-xs ${MUTED}`}>{p.rail_name}</span>
        </td>
        <td className={NUMBER}>
          <Amount amount={p.buy_amount} currency={p.buy_currency} className="block font-semibold" />
          <span className={`block text-xs ${MUTED}`}>{`${p.sell_amount} ${p.sell_currency} debited`}</span>
        </td>
        {/* Wraps between words; a word (an invoice number) is split only if it cannot fit alone. */}
        <td className={`${CELL} break-words`} data-reference="">{p.reference}</td>
        <td className={CELL}>
          <StatusBadge status={p.status} />
          {p.rail_reference ? <span className={`block font-mono text-xs ${MUTED}`}>{p.rail_reference}</span> : null}
          {p.batch_id ? <span className={`block text-xs ${MUTED}`}>{`SEPA file ${p.batch_id}`}</span> : null}
          {p.reason ? <span className="block text-xs">{p.reason}</span> : null}
          {p.returned ? <Returned payout={p} /> : null}
          {p.actions.note ? <span className={`block max-w-xs text-xs ${MUTED}`}>{p.actions.note}</span> : null}
        </td>
        <td className={`${CELL} text-right`}>
          <div className="flex flex-wrap justify-end gap-2">
            {p.actions.submit
              ? (
                <BusyButton
                  type="button"
                  className="btn-primary"
                  busy={busy}
                  aria-busy={submit.isPending || undefined}
                  aria-label={`Submit payment ${p.id}, ${to}`}
                  onClick={() => submit.mutate({ params: { id: p.id }, body: {} }, { onError: failed })}
                >
                  {submit.isPending ? "Submitting…" : "Submit"}
                </BusyButton>
              )
              : null}
            {p.actions.complete
              ? (
                <BusyButton
                  type="button"
                  className="btn-primary"
                  busy={busy}
                  aria-busy={complete.isPending || undefined}
                  aria-label={`Arrived: payment ${p.id}, ${to}`}
                  onClick={() => complete.mutate({ params: { id: p.id } }, { onError: failed })}
                >
                  {complete.isPending ? "Saving…" : "Arrived"}
                </BusyButton>
              )
              : null}
            {p.actions.fail
              ? (
                <BusyButton
                  type="button"
                  className="btn-outline"
                  busy={busy}
                  aria-busy={undefined}
                  aria-expanded={form === "fail"}
                  aria-controls={detailId}
                  data-opens="fail"
                  aria-label={`Fail payment ${p.id}, ${to}`}
                  onClick={() => onForm(form === "fail" ? null : "fail")}
                >
                  Fail…
                </BusyButton>
              )
              : null}
            {p.actions.submit && p.status === "approved"
              ? (
                <BusyButton
                  type="button"
                  className="btn-ghost"
                  busy={busy}
                  aria-busy={undefined}
                  aria-expanded={form === "refuse"}
                  aria-controls={detailId}
                  data-opens="refuse"
                  aria-label={`Refuse on submit: payment ${p.id}, ${to} (the simulated rail refuses it)`}
                  onClick={() => onForm(form === "refuse" ? null : "refuse")}
                >
                  Refuse on submit…
                </BusyButton>
              )
              : null}
          </div>
        </td>
      </tr>
      {form
        ? (
          <DetailRow id={detailId} columns={PAYOUT_COLUMNS.length}>
            <ReasonForm payout={p} kind={form} onClose={() => onForm(null)} onCancel={() => cancel(form)} />
          </DetailRow>
        )
        : null}
    </>
  );
}

/**
 * The bank sent the payment back (decision 093): where its money is held, and what the desk does:
 * fail it (the return's reason is offered), or, marked arrived, ask the bank which is true.
 */
function Returned({ payout: p }: { payout: Payout }) {
  const r = p.returned!;
  const said = `Returned by the bank: receipt ${r.receipt_id}, ${r.amount} ${r.currency}` +
    (r.reason ? ` (${r.reason})` : "");
  const todo = r.settled
    ? "Settled: the payment failed and its customer was refunded."
    : p.status === "completed"
    ? "It was marked arrived, so it cannot be failed here: ask the bank whether it arrived or came back."
    : "Fail it to refund the customer; the receipt is then settled.";
  return (
    <span className="mt-1 block max-w-xs text-xs" data-returned={r.receipt_id}>
      <span className="block font-semibold">{said}</span>
      <span className="block">{todo}</span>
    </span>
  );
}

/**
 * The reason Fail offers for a payment the bank sent back: the return, in the bank's words. The
 * customer reads it, so it names no receipt of ours (the row and the audit entry do).
 */
const returnedReason = (p: Payout): string =>
  p.returned && !p.returned.settled
    ? `Returned by the beneficiary's bank${p.returned.reason ? `: ${p.returned.reason}` : ""}`.slice(0, 500)
    : "";

const FORMS = {
  fail: {
    label: "Why did the payment fail?",
    hint: "The customer reads this reason. All their money goes back to their balance, the fee included.",
    field: "reason",
    submit: "Fail the payment",
    pending: "Failing…",
  },
  refuse: {
    label: "What the simulated rail says",
    hint: "The simulated rail refuses the payment with these words, as a real rail refusing it at once would: " +
      "the payment fails and the customer gets all their money back.",
    field: "simulate_refusal",
    submit: "Submit, to be refused",
    pending: "Submitting…",
  },
} as const;

/** The reason a payment fails, or the words the simulated rail refuses it with. */
function ReasonForm({ payout: p, kind, onClose, onCancel }: {
  payout: Payout;
  kind: "fail" | "refuse";
  /** Done: the payment failed or was submitted. */
  onClose: () => void;
  /** Closed without sending. */
  onCancel: () => void;
}) {
  const text = FORMS[kind];
  const onSuccess = ({ payment, refused }: { payment: Payout; refused: string | null }) => {
    told(payment, refused);
    onClose();
  };
  const failing = useForm({
    call: failPayout,
    idempotent: true,
    invalidates: CHANGES,
    onSuccess,
    values: { text: returnedReason(p) },
  });
  const refusing = useForm({
    call: submitPayout,
    idempotent: true,
    invalidates: CHANGES,
    onSuccess,
    values: { text: "" },
  });
  const form = kind === "fail" ? failing : refusing;
  const id = `payout-${kind}-${p.id}`;
  // The reason box takes the focus when the form opens (islands run on preact, where autoFocus
  // only works on page load); focusing also scrolls the desk's wide table to it on a phone.
  useEffect(() => document.getElementById(id)?.focus(), [id]);
  const escape = (event: KeyboardEvent<HTMLFormElement>) => {
    if (event.key !== "Escape") return;
    event.preventDefault();
    onCancel();
  };

  function send(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const words = form.values.text.trim();
    if (!words) return form.show({ [text.field]: kind === "fail" ? "Say why the payment failed." : "Give the words." });
    const input = { params: { id: p.id } };
    if (kind === "fail") void failing.submit({ ...input, body: { reason: words } });
    else void refusing.submit({ ...input, body: { simulate_refusal: words } });
  }

  return (
    <form
      onSubmit={send}
      onKeyDown={escape}
      noValidate
      aria-label={`${text.submit}: payment ${p.id}`}
      // The row spans the whole wide table, which scrolls sideways on a phone: the form keeps to
      // the visible part (held at its left edge, no wider than the screen) wherever it is scrolled.
      className="sticky left-4 flex max-w-[calc(100vw-4rem)] flex-wrap items-end gap-3"
    >
      <TextField
        id={id}
        label={text.label}
        hint={text.hint}
        fieldClassName="min-w-0 basis-64 grow"
        type="text"
        autoComplete="off"
        maxLength={kind === "fail" ? 500 : 300}
        required={false}
        value={form.values.text}
        onChange={(event) => form.set("text", event.currentTarget.value)}
        error={form.fields[text.field]}
      />
      <SubmitButton pending={form.submitting} pendingLabel={text.pending} className="btn-primary">
        {text.submit}
      </SubmitButton>
      <button type="button" className="btn-ghost" onClick={onCancel}>Cancel</button>
      <div className="w-full">
        <FormAlert error={form.error} fields={form.fields} shown={[text.field]} />
      </div>
    </form>
  );
}
