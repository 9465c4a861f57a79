/**
 * An inline form under a table row that asks for an account_ref and sends it: assigning a pricing
 * plan to an account, allocating a receipt. `field` is the name the call gives the account_ref, so
 * that a refusal naming it shows beside the field.
 */
import type { FormEvent, Ref } from "react";
import type { CallInput, CallShape } from "../lib/api.ts";
import { TextField } from "../ui/field.tsx";
import { SubmitButton } from "../ui/submit-button.tsx";
import { onEscape } from "../ui/take-focus.ts";
import { type FormOptions, useForm } from "../ui/use-form.ts";

export function AccountRefForm<C extends CallShape>(
  { id, label, field, write, input, submitLabel, pendingLabel, first, onCancel }: {
    /** The field's id; the problem's is `${id}-error`. */
    id: string;
    /** The form's accessible name ("Allocate the receipt from Ada Lovelace"). */
    label: string;
    field: string;
    /** The call and what it changes; the account_ref goes in its body as `field`. */
    write: FormOptions<C, { ref: string }>;
    /** The rest of the call's input (its path's id). */
    input: Omit<CallInput<C>, "body">;
    submitLabel: string;
    pendingLabel: string;
    /** The account_ref's field, which takes the keyboard as the form opens (useInPlace's `first`). */
    first: Ref<HTMLInputElement>;
    /** Closed without sending (Cancel, or Escape inside it): the opener takes the focus back (useInPlace). */
    onCancel: () => void;
  },
) {
  // A retry of the same account_ref is the same request (the Idempotency-Key follows the input).
  const form = useForm<C, { ref: string }>({ ...write, idempotent: true, values: { ref: "" } });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const accountRef = form.values.ref.trim();
    if (!accountRef) return form.show({ [field]: "Enter the account reference." });
    void form.submit({ ...input, body: { [field]: accountRef } } as CallInput<C>);
  }

  const problem = form.fields[field] ?? form.error;
  return (
    <form
      onSubmit={submit}
      onKeyDown={onEscape(onCancel)}
      noValidate
      aria-label={label}
      className="flex flex-wrap items-end gap-3"
    >
      <TextField
        id={id}
        label="Account reference"
        ref={first}
        type="text"
        autoComplete="off"
        spellCheck={false}
        required={false}
        value={form.values.ref}
        onChange={(event) => form.set("ref", event.currentTarget.value)}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${id}-error` : undefined}
        className="font-mono"
      />
      <SubmitButton pending={form.submitting} pendingLabel={pendingLabel} className="btn-primary">
        {submitLabel}
      </SubmitButton>
      <button type="button" className="btn-ghost" onClick={onCancel}>Cancel</button>
      <p id={`${id}-error`} role="alert" className={problem ? "w-full field-error" : "w-full"}>{problem}</p>
    </form>
  );
}
