import type { FormEvent } from "react";
import { api } from "./lib/api.ts";
import { Field, FormAlert, LINK, NewPasswordFields, SubmitButton, textOf, useSubmit } from "./lib/auth-forms.tsx";

export interface SetupFormProps {
  /** An administrator exists already: nothing to set up. */
  done: boolean;
}

/**
 * First start: creates the administrator (POST setup {email, password}); the API layer then goes
 * to '/'. Once one exists the server refuses (403) and the form shows its text.
 */
export default function SetupForm({ done }: SetupFormProps) {
  const { pending, error, fields, run, show } = useSubmit();

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
    if (data.get("confirm") !== password) return show({ confirm: "The two passwords are not the same." });
    await run(() => api.post("setup", { email: textOf(data, "email"), password }), { navigates: true });
  }

  return (
    <form method="post" onSubmit={setUp} className="space-y-4" aria-label="Create the administrator">
      <p className="text-neutral-700 dark:text-neutral-300">
        No administrator exists yet. Create the first one: this page works only once.
      </p>
      <FormAlert error={error} fields={fields} shown={["email", "password", "confirm"]} />
      <Field
        id="setup-email"
        label="Administrator's email"
        name="email"
        type="email"
        autoComplete="email"
        required
        error={fields.email}
      />
      <NewPasswordFields idPrefix="setup" label="Password" errors={fields} />
      <SubmitButton pending={pending} pendingLabel="Creating…">Create the administrator</SubmitButton>
    </form>
  );
}
