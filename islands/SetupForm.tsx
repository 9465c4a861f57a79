import type { FormEvent } from "react";
import { setup } from "./auth/calls.ts";
import { LINK, NewPasswordFields, textOf } from "./auth/fields.tsx";
import { withQueries } from "./lib/query-client.tsx";
import { FormAlert } from "./ui/alert.tsx";
import { TextField } from "./ui/field.tsx";
import { SubmitButton } from "./ui/submit-button.tsx";
import { useForm } from "./ui/use-form.ts";

export interface SetupFormProps {
  /** An administrator exists already: nothing to set up. */
  done: boolean;
}

/**
 * First start: creates the administrator (POST setup {email, password}); the API layer then goes
 * to '/'. Once one exists the server refuses (403) and the form shows its text.
 */
function SetupForm({ done }: SetupFormProps) {
  const form = useForm({ call: setup, navigates: true });

  if (done) {
    return (
      <p className="text-neutral-700 dark:text-neutral-300">
        Setup is done: an administrator exists. Sign in on the <a href="/" className={LINK}>home page</a>.
      </p>
    );
  }

  async function setUp(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const password = String(data.get("password") ?? "");
    if (data.get("confirm") !== password) return form.show({ confirm: "The two passwords are not the same." });
    await form.submit({ body: { email: textOf(data, "email"), password } });
  }

  return (
    <form method="post" onSubmit={setUp} className="space-y-4" aria-label="Create the administrator">
      <p className="text-neutral-700 dark:text-neutral-300">
        No administrator exists yet. Create the first one: this page works only once.
      </p>
      <FormAlert error={form.error} fields={form.fields} shown={["email", "password", "confirm"]} />
      <TextField
        id="setup-email"
        label="Administrator's email"
        name="email"
        type="email"
        autoComplete="email"
        error={form.fields.email}
      />
      <NewPasswordFields idPrefix="setup" label="Password" errors={form.fields} />
      <SubmitButton pending={form.submitting} pendingLabel="Creating…">Create the administrator</SubmitButton>
    </form>
  );
}

export default withQueries(SetupForm);
