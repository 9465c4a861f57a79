import { type FormEvent, useRef, useState } from "react";
import { changePassword } from "./auth/calls.ts";
import { NewPasswordFields } from "./auth/fields.tsx";
import { notify } from "./lib/notification-store.ts";
import { withQueries } from "./lib/query-client.tsx";
import { FormAlert, Status } from "./ui/alert.tsx";
import { TextField } from "./ui/field.tsx";
import { SubmitButton } from "./ui/submit-button.tsx";
import { useForm } from "./ui/use-form.ts";

/** What a change says once it is done: how many other places were signed out. */
export function changedText(otherSessions: number): string {
  if (otherSessions === 0) return "Password changed.";
  const places = otherSessions === 1 ? "1 other place" : `${otherSessions} other places`;
  return `Password changed. You were signed out in ${places}; you stay signed in here.`;
}

/**
 * Changing the password (POST account/password {current_password, password}): the current one
 * first, the new one twice. A wrong current password is refused under its field with the tries
 * left; every other session ends, this one stays.
 */
function PasswordSettings() {
  const form = useForm({ call: changePassword });
  const [done, setDone] = useState<string | null>(null);
  const formRef = useRef<HTMLFormElement>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setDone(null);
    const data = new FormData(event.currentTarget);
    const password = String(data.get("password") ?? "");
    if (data.get("confirm") !== password) return form.show({ confirm: "The two passwords are not the same." });
    const result = await form.submit({
      body: { current_password: String(data.get("current_password") ?? ""), password },
    });
    if (!result.ok) return;
    formRef.current?.reset();
    const text = changedText(result.answer.other_sessions_ended);
    setDone(text);
    notify({ title: text, color: "success" });
  }

  return (
    <section aria-labelledby="password-title" className="space-y-4">
      <h2 id="password-title" className="text-lg font-semibold">Password</h2>
      <Status>{done}</Status>
      <form ref={formRef} method="post" onSubmit={submit} className="space-y-4" aria-label="Change the password">
        <p className="text-neutral-700 dark:text-neutral-300">
          Changing it signs you out everywhere else. We email you to say it changed.
        </p>
        <FormAlert error={form.error} fields={form.fields} shown={["current_password", "password", "confirm"]} />
        <TextField
          id="change-current-password"
          label="Current password"
          name="current_password"
          type="password"
          autoComplete="current-password"
          error={form.fields.current_password}
        />
        <NewPasswordFields idPrefix="change" label="New password" errors={form.fields} />
        <SubmitButton pending={form.submitting} pendingLabel="Saving…">Change password</SubmitButton>
      </form>
    </section>
  );
}

export default withQueries(PasswordSettings);
