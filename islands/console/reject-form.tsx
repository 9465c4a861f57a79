/**
 * The compliance review's other answer: reject the application with a reason the customer is told
 * (lib/compliance.ts) and a note for the file they never see. POST console/users/{id}/reject.
 */
import type { Ref } from "react";
import { REJECTION_REASON_TEXT, REJECTION_REASONS, type RejectionReason } from "../../lib/compliance.ts";
import { FormAlert } from "../ui/alert.tsx";
import { SelectField, TextField } from "../ui/field.tsx";
import { SubmitButton } from "../ui/submit-button.tsx";
import { onEscape } from "../ui/take-focus.ts";
import { useForm } from "../ui/use-form.ts";
import { rejectApplication } from "./calls.ts";

export function RejectForm({ customer, first, onCancel, onRejected }: {
  customer: { id: number; name: string };
  /** What the customer is told, which takes the keyboard as the form opens (useInPlace's `first`). */
  first: Ref<HTMLSelectElement>;
  /** Closed without rejecting (Cancel, or Escape inside it): the opener takes the focus back (useInPlace). */
  onCancel: () => void;
  onRejected: () => void;
}) {
  const form = useForm({
    call: rejectApplication,
    idempotent: true,
    values: { reason: "" as RejectionReason | "", note: "" },
    onSuccess: onRejected,
  });
  const base = `reject-${customer.id}`;
  const { reason, note } = form.values;

  function submit(event: { preventDefault(): void }) {
    event.preventDefault();
    if (!reason) return form.show({ reason: "Choose what the customer is told." });
    void form.submit({ params: { id: customer.id }, body: { reason, note: note.trim() } });
  }

  return (
    <form
      onSubmit={submit}
      onKeyDown={onEscape(onCancel)}
      noValidate
      aria-label={`Reject the application of ${customer.name}`}
      className="flex flex-col gap-3"
    >
      <FormAlert error={form.error} fields={form.fields} shown={["reason", "note"]} />
      <SelectField
        ref={first}
        id={`${base}-reason`}
        label="What the customer is told"
        value={reason}
        onChange={(event) => form.set("reason", event.currentTarget.value as RejectionReason)}
        error={form.fields.reason}
        hint={reason ? REJECTION_REASON_TEXT[reason].customer : "Emailed to the customer, and shown on their screen."}
      >
        <option value="">Choose a reason</option>
        {REJECTION_REASONS.map((r) => <option key={r} value={r}>{REJECTION_REASON_TEXT[r].label}</option>)}
      </SelectField>
      <TextField
        id={`${base}-note`}
        label="Note for the file (never shown to the customer)"
        type="text"
        value={note}
        onChange={(event) => form.set("note", event.currentTarget.value)}
        error={form.fields.note}
      />
      <div className="flex gap-2">
        <SubmitButton pending={form.submitting} pendingLabel="Rejecting…" className="btn-primary">
          Reject the application
        </SubmitButton>
        <button type="button" className="btn-ghost" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
