import { type FormEvent, useState } from "react";
import { errorText, fieldsOf, isAbort } from "./api.ts";
import { ERROR, inputClass, LABEL } from "./console-fields.ts";
import { SubmitButton, useIdempotencyKey } from "./forms.tsx";

/**
 * An inline form under a table row that asks for an account_ref and sends it: assigning a pricing
 * plan to an account, allocating a receipt. `field` is the name the call gives the account_ref, so
 * that a refusal naming it shows beside the field; the Idempotency-Key follows the payload, so a
 * retry of the same account_ref is the same request.
 */
export function AccountRefForm<T>({ id, label, field, send, submitLabel, pendingLabel, onCancel, onDone }: {
  /** The field's id; the error's is `${id}-error`. */
  id: string;
  /** The form's accessible name ("Allocate the receipt from Ada Lovelace"). */
  label: string;
  field: string;
  send: (payload: Record<string, string>, idempotencyKey: string) => Promise<T>;
  submitLabel: string;
  pendingLabel: string;
  onCancel: () => void;
  onDone: (answer: T, accountRef: string) => void;
}) {
  const idempotencyKey = useIdempotencyKey();
  const [ref, setRef] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const accountRef = ref.trim();
    if (!accountRef) {
      setError("Enter the account reference.");
      return;
    }
    const payload = { [field]: accountRef };
    setPending(true);
    setError(null);
    let answer: T;
    try {
      answer = await send(payload, idempotencyKey(payload));
    } catch (err) {
      setPending(false);
      if (isAbort(err)) return;
      setError(fieldsOf(err)[field] ?? errorText(err));
      return;
    }
    setPending(false);
    onDone(answer, accountRef);
  }

  return (
    <form onSubmit={submit} noValidate aria-label={label} className="flex flex-wrap items-end gap-3">
      <div>
        <label htmlFor={id} className={LABEL}>Account reference</label>
        <input
          id={id}
          type="text"
          autoFocus
          autoComplete="off"
          spellCheck={false}
          value={ref}
          onChange={(event) => setRef(event.currentTarget.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          className={`mt-1 font-mono ${inputClass(!!error)}`}
        />
      </div>
      <SubmitButton pending={pending} pendingLabel={pendingLabel} className="btn-primary">{submitLabel}</SubmitButton>
      <button type="button" className="btn-ghost" onClick={onCancel}>Cancel</button>
      <p id={`${id}-error`} role="alert" className={error ? `w-full ${ERROR}` : "w-full"}>{error}</p>
    </form>
  );
}
