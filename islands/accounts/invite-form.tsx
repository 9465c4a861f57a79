/**
 * Invites someone to the account by email with a role (POST account/users). The invitation's link
 * is emailed by the server; the form says so and the invitation joins the list of those waiting.
 */
import { useQueryClient } from "@tanstack/react-query";
import type { FormEvent } from "react";
import { notify } from "../lib/notification-store.ts";
import { invitationKeys } from "../lib/query-keys.ts";
import { FormAlert } from "../ui/alert.tsx";
import { SelectField, TextField } from "../ui/field.tsx";
import { SubmitButton } from "../ui/submit-button.tsx";
import { useForm } from "../ui/use-form.ts";
import { type Invitation, inviteAccountUser, type Role, type RoleChoice } from "./calls.ts";

export function InviteForm({ accountRef, roles }: { accountRef: string; roles: RoleChoice[] }) {
  const queries = useQueryClient();
  const form = useForm({
    call: inviteAccountUser,
    idempotent: true,
    values: { email: "", role: "payer" as Role },
    invalidates: [invitationKeys.of(accountRef)],
    onSuccess(invitation) {
      queries.setQueryData<Invitation[]>(
        invitationKeys.of(accountRef),
        (rows) => [...(rows ?? []).filter((r) => r.email !== invitation.email), invitation],
      );
      notify({
        title: "Invitation sent",
        description: `We emailed ${invitation.email} a link to join as ${invitation.role}.`,
        color: "success",
      });
      form.set("email", "");
    },
  });
  const chosen = roles.find((r) => r.role === form.values.role);

  function send(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const email = form.values.email.trim();
    if (!email) return form.show({ email: "Enter the email address to invite." });
    void form.submit({ body: { email, role: form.values.role } });
  }

  return (
    <form onSubmit={send} noValidate aria-label="Invite someone" className="flex flex-col gap-4">
      <FormAlert error={form.error} fields={form.fields} shown={["email", "role"]} />
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField
          id="invite-email"
          label="Email"
          type="email"
          autoComplete="off"
          value={form.values.email}
          onChange={(event) => form.set("email", event.currentTarget.value)}
          error={form.fields.email}
        />
        <SelectField
          id="invite-role"
          label="Role"
          value={form.values.role}
          onChange={(event) => form.set("role", event.currentTarget.value)}
          error={form.fields.role}
          hint={chosen?.description}
        >
          {roles.map((r) => <option key={r.role} value={r.role}>{r.role}</option>)}
        </SelectField>
      </div>
      <p className="field-hint">The link works once, for 7 days, for this email address only.</p>
      <div>
        <SubmitButton pending={form.submitting} pendingLabel="Sending…" className="btn-primary">
          Send the invitation
        </SubmitButton>
      </div>
    </form>
  );
}
