/**
 * Invites an administrator by email (POST console/admins). The server emails the link at once only
 * for the portal's only administrator so far, otherwise after a second one approves; the new row
 * joins the list as invited or waiting. With no other administrator active, nobody here can approve
 * a waiting one: its notice says who can (decision 044, amended).
 */
import { useQueryClient } from "@tanstack/react-query";
import type { FormEvent } from "react";
import { notify } from "../lib/notification-store.ts";
import { administratorKeys } from "../lib/query-keys.ts";
import { FormAlert } from "../ui/alert.tsx";
import { TextField } from "../ui/field.tsx";
import { SubmitButton } from "../ui/submit-button.tsx";
import { useForm } from "../ui/use-form.ts";
import { type Administrator, inviteAdministrator } from "./calls.ts";

/** Where a waiting invitation goes when no other administrator is active to approve it. */
export const NOBODY_TO_APPROVE =
  "No other administrator is active to approve it: whoever runs the portal's server adds one (deno task admin:create), who then approves it here.";

export function InviteAdministratorForm({ othersActive }: {
  /** Whether an administrator other than the one looking is active, and so can approve an invitation. */
  othersActive: boolean;
}) {
  const queries = useQueryClient();
  const form = useForm({
    call: inviteAdministrator,
    idempotent: true,
    values: { email: "", name: "" },
    invalidates: [administratorKeys.all],
    onSuccess(invited) {
      queries.setQueryData<Administrator[]>(
        administratorKeys.all,
        (rows) => [...(rows ?? []).filter((r) => r.id !== invited.id), invited],
      );
      notify(
        invited.status === "waiting"
          ? {
            title: "Invitation waiting for approval",
            description: othersActive
              ? `Another administrator approves it; then we email ${invited.email} a link to choose a password.`
              : NOBODY_TO_APPROVE,
            color: othersActive ? "success" : "warning",
          }
          : {
            title: "Invitation sent",
            description: `We emailed ${invited.email} a link to choose a password.`,
            color: "success",
          },
      );
      form.set("email", "");
      form.set("name", "");
    },
  });

  function send(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const email = form.values.email.trim();
    const name = form.values.name.trim();
    if (!name) return form.show({ name: "Enter the name of the administrator to invite." });
    if (!email) return form.show({ email: "Enter the email address of the administrator to invite." });
    void form.submit({ body: { email, name } });
  }

  return (
    <form onSubmit={send} noValidate aria-label="Invite an administrator" className="flex flex-col gap-4">
      <FormAlert error={form.error} fields={form.fields} shown={["email", "name"]} />
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField
          id="admin-invite-name"
          label="Name"
          autoComplete="off"
          value={form.values.name}
          onChange={(event) => form.set("name", event.currentTarget.value)}
          error={form.fields.name}
        />
        <TextField
          id="admin-invite-email"
          label="Email"
          type="email"
          autoComplete="off"
          value={form.values.email}
          onChange={(event) => form.set("email", event.currentTarget.value)}
          error={form.fields.email}
        />
      </div>
      <p className="field-hint">
        Another active administrator approves the invitation before we email it; only the portal's first administrator
        invites alone. The link works once, for 72 hours. After choosing a password they sign in with a second factor,
        like every administrator.
      </p>
      <div>
        <SubmitButton pending={form.submitting} pendingLabel="Sending…" className="btn-primary">
          Send the invitation
        </SubmitButton>
      </div>
    </form>
  );
}
