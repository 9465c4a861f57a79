import type { FormEvent } from "react";
import { acceptInvitation } from "./accounts/calls.ts";
import { withQueries } from "./lib/query-client.tsx";
import { FormAlert } from "./ui/alert.tsx";
import { SubmitButton } from "./ui/submit-button.tsx";
import { useForm } from "./ui/use-form.ts";

export interface InvitationAcceptProps {
  /** The invitation's token, from its link. */
  token: string;
  accountName: string;
}

/**
 * Accepting an invitation when signed in as the address it was sent to (POST account/users/accept):
 * the session then works on the account joined, and the server sends the browser on to /auth.
 */
function InvitationAccept({ token, accountName }: InvitationAcceptProps) {
  const form = useForm({ call: acceptInvitation, navigates: true });

  function accept(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void form.submit({ body: { token } });
  }

  return (
    <form onSubmit={accept} aria-label="Accept the invitation" className="flex flex-col gap-4">
      <FormAlert error={form.error} fields={form.fields} shown={[]} />
      <div>
        <SubmitButton pending={form.submitting} pendingLabel="Joining…" className="btn-primary">
          Accept and join {accountName}
        </SubmitButton>
      </div>
    </form>
  );
}

export default withQueries(InvitationAccept);
