import { type FormEvent, useState } from "react";
import { checkSecondFactor, resendSecondFactor } from "./auth/calls.ts";
import { BAD_CREDENTIALS, CodeField, codeOf, rememberUser } from "./auth/fields.tsx";
import { notify } from "./lib/notification-store.ts";
import { withQueries } from "./lib/query-client.tsx";
import { FormAlert, Status } from "./ui/alert.tsx";
import { BusyButton, SubmitButton, useHydrated } from "./ui/submit-button.tsx";
import { useForm } from "./ui/use-form.ts";

export interface SecondFactorFormProps {
  /** How the user gets the code: an emailed code, or an authenticator app. */
  method: "email" | "totp";
  /** Where emailed codes go. */
  email: string;
}

/**
 * The second step of signing in: the 6-digit code (POST challenge {token}); the API layer follows
 * the redirect to /auth. A wrong code is refused under the field with the tries left (a 422), and
 * the person stays here (decision 039); a 401 means the session is gone, and goes home. A new code can be emailed (POST challenge/resend), also to a user with an
 * authenticator app, whose button then reads "Email me a code instead".
 */
function SecondFactorForm({ method, email }: SecondFactorFormProps) {
  const check = useForm({
    call: checkSecondFactor,
    navigates: true,
    errorText: (failure) => failure.status === 401 ? BAD_CREDENTIALS : failure.error,
  });
  const resend = useForm({ call: resendSecondFactor });
  const hydrated = useHydrated();
  // Once a code was emailed, the explanation speaks of the email, whatever the method.
  const [emailed, setEmailed] = useState(false);
  const byEmail = method === "email" || emailed;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const token = codeOf(new FormData(event.currentTarget));
    const result = await check.submit({ body: { token } });
    if (result.ok) rememberUser(result.answer);
    else if (result.failure?.status === 401) {
      notify({ id: "second-factor-refused", title: BAD_CREDENTIALS, color: "error" });
    }
  }

  async function sendCode() {
    const result = await resend.submit();
    if (result.ok) setEmailed(true);
  }

  return (
    <div className="space-y-6">
      <form method="post" onSubmit={submit} className="space-y-4" aria-label="Second factor">
        <p className="text-neutral-700 dark:text-neutral-300">
          {byEmail
            ? (
              <>
                We emailed a 6-digit code to <strong className="break-all">{email}</strong>. It is valid for 10 minutes.
              </>
            )
            : "Enter the 6-digit code from your authenticator app."}
        </p>
        <FormAlert error={check.error} fields={check.fields} shown={["token"]} />
        <CodeField id="second-factor-code" label="Code" error={check.fields.token} />
        <SubmitButton pending={check.submitting} pendingLabel="Checking…">Continue</SubmitButton>
      </form>
      <div className="space-y-2 border-t border-neutral-200 pt-4 dark:border-neutral-800">
        <BusyButton
          type="button"
          className="btn-ghost"
          onClick={sendCode}
          disabled={!hydrated}
          busy={resend.submitting}
          aria-busy={resend.submitting || undefined}
        >
          {resend.submitting
            ? "Sending…"
            : method === "totp" && !emailed
            ? "Email me a code instead"
            : "Send me a new code by email"}
        </BusyButton>
        <FormAlert error={resend.error} />
        <Status>
          {emailed && !resend.submitting && !resend.error ? `A new code is on its way to ${email}.` : null}
        </Status>
      </div>
    </div>
  );
}

export default withQueries(SecondFactorForm);
