import type { FormEvent } from "react";
import { withQueries } from "./lib/query-client.tsx";
import { createPartner, type Partner, partnerKeys, updatePartner } from "./partners/calls.ts";
import { FormAlert } from "./ui/alert.tsx";
import { TextField } from "./ui/field.tsx";
import { SubmitButton } from "./ui/submit-button.tsx";
import { useForm } from "./ui/use-form.ts";

export interface ConsolePartnerFormProps {
  /** The partner to change; none to create one. */
  partner?: Pick<Partner, "id" | "name" | "email" | "code" | "share_percent"> | null;
}

const FIELDS = ["name", "email", "code", "share_percent"] as const;

/**
 * Creates a partner (POST console/partners) or changes one (PUT console/partners/{id}): name,
 * contact email, referral code and revenue share in percent. The server checks everything and
 * names the field it refuses; on success it leads to the partner's page (decision 051).
 */
function ConsolePartnerForm({ partner = null }: ConsolePartnerFormProps) {
  const values = {
    name: partner?.name ?? "",
    email: partner?.email ?? "",
    code: partner?.code ?? "",
    share_percent: partner?.share_percent ?? "",
  };
  const options = { idempotent: true, navigates: true, invalidates: [partnerKeys.all], values };
  // One form, two calls: both hooks run on every render (hooks' rule), the partner picks which one sends.
  const creating = useForm({ call: createPartner, ...options });
  const changing = useForm({ call: updatePartner, ...options });
  const form = partner === null ? creating : changing;
  const editing = partner !== null;
  const prefix = editing ? "partner-edit" : "partner-new";

  function send(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const body = {
      name: form.values.name.trim(),
      email: form.values.email.trim() || null,
      code: form.values.code.trim(),
      share_percent: form.values.share_percent.trim(),
    };
    void (partner === null ? creating.submit({ body }) : changing.submit({ params: { id: partner.id }, body }));
  }

  return (
    <form
      onSubmit={send}
      noValidate
      aria-label={editing ? "Change the partner" : "Create a partner"}
      className="flex flex-col gap-4"
    >
      <FormAlert error={form.error} fields={form.fields} shown={[...FIELDS]} />
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField
          id={`${prefix}-name`}
          label="Name"
          autoComplete="off"
          value={form.values.name}
          onChange={(event) => form.set("name", event.currentTarget.value)}
          error={form.fields.name}
        />
        <TextField
          id={`${prefix}-email`}
          label="Email"
          type="email"
          optional
          autoComplete="off"
          value={form.values.email}
          onChange={(event) => form.set("email", event.currentTarget.value)}
          error={form.fields.email}
        />
        <TextField
          id={`${prefix}-code`}
          label="Referral code"
          autoComplete="off"
          hint="Customers type it when they register; kept in capitals."
          value={form.values.code}
          onChange={(event) => form.set("code", event.currentTarget.value)}
          error={form.fields.code}
        />
        <TextField
          id={`${prefix}-share`}
          label="Revenue share (%)"
          inputMode="decimal"
          autoComplete="off"
          hint="Of the fee and markup income of the customers they bring, such as 12.5."
          value={form.values.share_percent}
          onChange={(event) => form.set("share_percent", event.currentTarget.value)}
          error={form.fields.share_percent}
        />
      </div>
      <div>
        <SubmitButton pending={form.submitting} pendingLabel="Saving…" className="btn-primary">
          {editing ? "Save the partner" : "Create the partner"}
        </SubmitButton>
      </div>
    </form>
  );
}

export default withQueries(ConsolePartnerForm);
