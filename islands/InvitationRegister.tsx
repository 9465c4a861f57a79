import type { FormEvent } from "react";
import { registerThroughInvitation } from "./accounts/calls.ts";
import { NewPasswordFields } from "./auth/fields.tsx";
import { withQueries } from "./lib/query-client.tsx";
import { FormAlert } from "./ui/alert.tsx";
import { TextField } from "./ui/field.tsx";
import { SubmitButton } from "./ui/submit-button.tsx";
import { useForm } from "./ui/use-form.ts";

export interface InvitationRegisterProps {
  /** The invitation's token, from its link. */
  token: string;
  /** The address the invitation was sent to: the new login's username. */
  email: string;
}

/**
 * A new person's registration through an invitation (POST invitations/register {token, password}):
 * the address is the invitation's and counts as confirmed; they choose a password, and the server
 * emails a sign-in code and sends the browser to /second-factor.
 */
function InvitationRegister({ token, email }: InvitationRegisterProps) {
  const form = useForm({ call: registerThroughInvitation, navigates: true });

  async function register(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const password = String(data.get("password") ?? "");
    if (data.get("confirm") !== password) return form.show({ confirm: "The two passwords are not the same." });
    await form.submit({ body: { token, password } });
  }

  return (
    <form method="post" onSubmit={register} aria-label="Create your login" className="space-y-4">
      <FormAlert error={form.error} fields={form.fields} shown={["password", "confirm"]} />
      <TextField
        id="invitation-email"
        label="Email"
        name="email"
        type="email"
        autoComplete="username"
        value={email}
        readOnly
        hint="The address the invitation was sent to."
      />
      <NewPasswordFields idPrefix="invitation" label="Password" errors={form.fields} />
      <SubmitButton pending={form.submitting} pendingLabel="Creating…">Create my login</SubmitButton>
    </form>
  );
}

export default withQueries(InvitationRegister);
