/**
 * The one form a bulk email is written with (decision 050): empty for a new one on
 * /console/bulkemails, prefilled by "Edit" on a draft's page. It owns only what is typed; the
 * island that shows it makes the call (create or update) and hands back its pending state and error.
 */
import { type FormEvent, type Ref, useState } from "react";
import type * as calls from "../../lib/contracts/bulkemails.ts";
import { type BodyOf, errorText, fieldsOf } from "../lib/api.ts";
import { Alert } from "../ui/alert.tsx";
import { Field, SelectField, TextField } from "../ui/field.tsx";
import { SubmitButton } from "../ui/submit-button.tsx";
import { onEscape } from "../ui/take-focus.ts";

/** What the create and the update both take. */
export type BulkEmailDraft = BodyOf<typeof calls.createBulkEmail>;

export interface ComposeFormProps {
  /** The merge fields and what each is, as the contract defines them. */
  mergeFields: Record<string, string>;
  /** The partners to choose from, by name (their customers are a segment). */
  partners: { id: number; name: string }[];
  /** The draft being corrected; none for a new bulk email. */
  initial?: { subject: string; body: string; segment: Record<string, string | number | undefined> };
  /** The form's name for assistive technology ("New bulk email", "Edit the draft"). */
  label: string;
  submitLabel: string;
  pending: boolean;
  error: Error | null;
  onSubmit: (draft: BulkEmailDraft) => void;
  /** Shown as a Cancel button when given (editing a draft can be given up). */
  onCancel?: () => void;
  /** The subject's field, for a form opened in place: it takes the keyboard (useInPlace's `first`). */
  first?: Ref<HTMLInputElement>;
}

const SEGMENT_TEXTS = ["type", "country", "currency", "signed_up_from", "signed_up_to"] as const;

export function ComposeForm(
  { mergeFields, partners, initial, label, submitLabel, pending, error, onSubmit, onCancel, first }: ComposeFormProps,
) {
  const segment = initial?.segment ?? {};
  const [form, setForm] = useState({
    subject: initial?.subject ?? "",
    body: initial?.body ?? "",
    ...Object.fromEntries(SEGMENT_TEXTS.map((name) => [name, String(segment[name] ?? "")])) as Record<
      typeof SEGMENT_TEXTS[number],
      string
    >,
    partner_id: segment.partner_id === undefined ? "" : String(segment.partner_id),
  });
  const fields = fieldsOf(error);
  const set = (name: keyof typeof form) => (event: { currentTarget: { value: string } }) =>
    setForm({ ...form, [name]: event.currentTarget.value });

  function submit(event: FormEvent) {
    event.preventDefault();
    const segment: Record<string, string | number> = Object.fromEntries(
      SEGMENT_TEXTS.filter((name) => form[name].trim() !== "").map((name) => [name, form[name].trim()]),
    );
    if (form.partner_id) segment.partner_id = Number(form.partner_id);
    onSubmit({ subject: form.subject, body: form.body, segment } as BulkEmailDraft);
  }

  return (
    <form
      className="card flex flex-col gap-4"
      onSubmit={submit}
      // Escape gives it up as its Cancel does (when it has one).
      onKeyDown={onCancel ? onEscape(onCancel) : undefined}
      noValidate
      aria-label={label}
    >
      <TextField
        ref={first}
        id="bulk-subject"
        label="Subject"
        value={form.subject}
        onChange={set("subject")}
        error={fields.subject}
      />
      <Field
        id="bulk-body"
        label="Body"
        hint="Blank lines part paragraphs. An unsubscribe link is added at the foot of every email."
        error={fields.body}
      >
        {(control) => (
          <textarea {...control} className="field-control" rows={10} value={form.body} onChange={set("body")} />
        )}
      </Field>
      <details className="text-sm">
        <summary className="cursor-pointer font-medium">Merge fields</summary>
        <dl className="mt-2 grid gap-1">
          {Object.entries(mergeFields).map(([name, what]) => (
            <div key={name}>
              <dt className="inline font-mono">{`{{${name}}}`}</dt> <dd className="inline">{what}</dd>
            </div>
          ))}
        </dl>
      </details>
      <fieldset className="grid gap-4 sm:grid-cols-2">
        <legend className="mb-2 font-medium">Who it goes to (every filter must hold; none: every customer)</legend>
        <SelectField
          id="bulk-type"
          label="Type"
          optional
          value={form.type}
          onChange={set("type")}
          error={fields["segment.type"]}
        >
          <option value="">Personal and business</option>
          <option value="Personal">Personal</option>
          <option value="Business">Business</option>
        </SelectField>
        <TextField
          id="bulk-country"
          label="Country (two letters)"
          optional
          maxLength={2}
          value={form.country}
          onChange={set("country")}
          error={fields["segment.country"]}
        />
        <TextField
          id="bulk-currency"
          label="Holding currency"
          optional
          maxLength={3}
          value={form.currency}
          onChange={set("currency")}
          error={fields["segment.currency"]}
        />
        <SelectField
          id="bulk-partner"
          label="Brought by partner"
          optional
          value={form.partner_id}
          onChange={set("partner_id")}
          error={fields["segment.partner_id"]}
        >
          <option value="">Any, or none</option>
          {partners.map((p) => <option key={p.id} value={String(p.id)}>{p.name}</option>)}
        </SelectField>
        <TextField
          id="bulk-from"
          type="date"
          label="Signed up from"
          optional
          value={form.signed_up_from}
          onChange={set("signed_up_from")}
          error={fields["segment.signed_up_from"]}
        />
        <TextField
          id="bulk-to"
          type="date"
          label="Signed up to"
          optional
          value={form.signed_up_to}
          onChange={set("signed_up_to")}
          error={fields["segment.signed_up_to"]}
        />
      </fieldset>
      {error && !Object.keys(fields).length ? <Alert>{errorText(error)}</Alert> : null}
      <div className="flex flex-wrap gap-3">
        <SubmitButton pending={pending} pendingLabel="Saving…" className="btn-primary">
          {submitLabel}
        </SubmitButton>
        {onCancel ? <button type="button" className="btn-ghost" onClick={onCancel}>Cancel</button> : null}
      </div>
    </form>
  );
}
