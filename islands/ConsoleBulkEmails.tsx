import { type FormEvent, useState } from "react";
import { bulkEmailKeys, createBulkEmail } from "./bulkemails/calls.ts";
import { errorText, fieldsOf } from "./lib/api.ts";
import { withQueries } from "./lib/query-client.tsx";
import { useWrite } from "./lib/write.ts";
import { Alert } from "./ui/alert.tsx";
import { Field, SelectField, TextField } from "./ui/field.tsx";
import { SubmitButton } from "./ui/submit-button.tsx";

export interface ConsoleBulkEmailsProps {
  /** The merge fields and what each is, as the contract defines them. */
  mergeFields: Record<string, string>;
  /** The partners to choose from, by name (their customers are a segment). */
  partners: { id: number; name: string }[];
}

/**
 * /console/bulkemails: write a bulk email (subject, body with merge fields) and choose who it goes
 * to. Saving makes a draft, whose page previews it with a customer's data and sends it.
 */
function ConsoleBulkEmails({ mergeFields, partners }: ConsoleBulkEmailsProps) {
  const [form, setForm] = useState({
    subject: "",
    body: "",
    type: "",
    country: "",
    currency: "",
    signed_up_from: "",
    signed_up_to: "",
    partner_id: "",
  });
  const create = useWrite({
    call: createBulkEmail,
    idempotent: true,
    invalidates: [bulkEmailKeys.all],
    onSuccess: (email) => location.assign(`/console/bulkemails/${email.id}`),
  });
  const fields = fieldsOf(create.error);
  const set = (name: keyof typeof form) => (event: { currentTarget: { value: string } }) =>
    setForm({ ...form, [name]: event.currentTarget.value });

  function submit(event: FormEvent) {
    event.preventDefault();
    const segment: Record<string, string | number> = Object.fromEntries(
      (["type", "country", "currency", "signed_up_from", "signed_up_to"] as const)
        .filter((name) => form[name].trim() !== "").map((name) => [name, form[name].trim()]),
    );
    if (form.partner_id) segment.partner_id = Number(form.partner_id);
    create.mutate({ body: { subject: form.subject, body: form.body, segment } });
  }

  return (
    <form className="card flex flex-col gap-4" onSubmit={submit} noValidate aria-label="New bulk email">
      <TextField
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
      {create.isError && !Object.keys(fields).length ? <Alert>{errorText(create.error)}</Alert> : null}
      <div>
        <SubmitButton pending={create.isPending} pendingLabel="Saving…" className="btn-primary">
          Save and preview
        </SubmitButton>
      </div>
    </form>
  );
}

export default withQueries(ConsoleBulkEmails);
