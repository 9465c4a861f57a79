/**
 * An inline form under a receipt's row that asks why (declining, discarding or reversing it) and
 * sends the reason; the server keeps it with the receipt and in the audit log.
 */
import type { FormEvent, Ref } from "react";
import type { CallInput, CallShape } from "../lib/api.ts";
import { TextField } from "../ui/field.tsx";
import { SubmitButton } from "../ui/submit-button.tsx";
import { onEscape } from "../ui/take-focus.ts";
import { type FormOptions, useForm } from "../ui/use-form.ts";

export function ReasonForm<C extends CallShape>(
  { id, label, write, input, submitLabel, pendingLabel, first, onCancel, missing }: {
    /** The field's id; the problem's is `${id}-error`. */
    id: string;
    /** The form's accessible name ("Reverse the receipt from Ada Lovelace"). */
    label: string;
    write: FormOptions<C, { reason: string }>;
    /** The rest of the call's input (its path's id). */
    input: Omit<CallInput<C>, "body">;
    submitLabel: string;
    pendingLabel: string;
    /** The reason's field, which takes the keyboard as the form opens (useInPlace's `first`). */
    first: Ref<HTMLInputElement>;
    /** Closed without sending (Cancel, or Escape inside it): the opener takes the focus back (useInPlace). */
    onCancel: () => void;
    /** What an empty reason is told; a receipt's unless given. */
    missing?: string;
  },
) {
  const form = useForm<C, { reason: string }>({ ...write, idempotent: true, values: { reason: "" } });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const reason = form.values.reason.trim();
    if (!reason) return form.show({ reason: missing ?? "Give the reason: it is kept with the receipt." });
    void form.submit({ ...input, body: { reason } } as CallInput<C>);
  }

  const problem = form.fields.reason ?? form.error;
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
        label="Reason"
        fieldClassName="min-w-64 flex-1"
        ref={first}
        type="text"
        autoComplete="off"
        required={false}
        value={form.values.reason}
        onChange={(event) => form.set("reason", event.currentTarget.value)}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${id}-error` : undefined}
      />
      <SubmitButton pending={form.submitting} pendingLabel={pendingLabel} className="btn-primary">
        {submitLabel}
      </SubmitButton>
      <button type="button" className="btn-ghost" onClick={onCancel}>Cancel</button>
      <p id={`${id}-error`} role="alert" className={problem ? "w-full field-error" : "w-full"}>{problem}</p>
    </form>
  );
}
