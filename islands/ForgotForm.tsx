import { type FormEvent, useState } from "react";
import { askPasswordReset, resetPassword } from "./auth/calls.ts";
import { BAD_CREDENTIALS, LINK, NewPasswordFields, textOf } from "./auth/fields.tsx";
import { notify } from "./lib/notification-store.ts";
import { withQueries } from "./lib/query-client.tsx";
import { FormAlert, Status } from "./ui/alert.tsx";
import { TextField } from "./ui/field.tsx";
import { SubmitButton } from "./ui/submit-button.tsx";
import { useForm } from "./ui/use-form.ts";

export interface ForgotFormProps {
  /** From the emailed link: its token and the account's address. Both, or the request form. */
  token?: string | null;
  username?: string | null;
}

const EXPIRED = "This link has expired or was already used.";
const CHANGED = "Password changed. Sign in with your new password.";

/**
 * A forgotten password. Without a link: the address (POST auth/forgot {username}), answered with
 * the same message whether or not an account exists. From the link: a new password, typed twice
 * (POST auth/forgot/reset {username, token, password}); the API layer then goes to '/'.
 */
function ForgotForm({ token = null, username = null }: ForgotFormProps) {
  return token && username ? <ResetForm token={token} username={username} /> : <RequestForm />;
}

function RequestForm() {
  const form = useForm({ call: askPasswordReset });
  const [sentTo, setSentTo] = useState<string | null>(null);

  async function request(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const username = textOf(new FormData(event.currentTarget), "email");
    const result = await form.submit({ body: { username } });
    // Whatever the server answered, the same message: no answer may tell whether the account
    // exists. Only a call that surely did nothing (no answer, too many requests, a server failure)
    // shows its error, so it can be tried again.
    const status = result.ok ? 200 : result.failure?.status ?? 0;
    if (status >= 200 && status < 500 && status !== 429) {
      form.show({});
      setSentTo(username);
    }
  }

  // The status region is always there, so the message is announced when it appears.
  return (
    <div className="space-y-4">
      <Status>
        {sentTo === null
          ? null
          : `If an account exists for ${sentTo}, we have sent a link to reset the password. It is valid for one hour.`}
      </Status>
      {sentTo === null
        ? (
          <form method="post" onSubmit={request} className="space-y-4" aria-label="Forgotten password">
            <p className="text-neutral-700 dark:text-neutral-300">
              Enter the email address of your account and we will send you a link to choose a new password.
            </p>
            <FormAlert error={form.error} fields={form.fields} shown={["username"]} />
            <TextField
              id="forgot-email"
              label="Email"
              name="email"
              type="email"
              autoComplete="username"
              error={form.fields.username}
            />
            <SubmitButton pending={form.submitting} pendingLabel="Sending…">Send me a link</SubmitButton>
            <p className="text-sm">
              <a href="/" className={LINK}>Back to sign in</a>
            </p>
          </form>
        )
        : (
          <p className="flex flex-wrap gap-4 text-sm">
            <a href="/" className={LINK}>Back to sign in</a>
            <button type="button" className={LINK} onClick={() => setSentTo(null)}>Use another address</button>
          </p>
        )}
    </div>
  );
}

function ResetForm({ token, username }: { token: string; username: string }) {
  const form = useForm({
    call: resetPassword,
    navigates: true,
    errorText: (failure) => failure.status === 401 ? BAD_CREDENTIALS : failure.error,
  });
  const [changed, setChanged] = useState(false);

  async function reset(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const password = String(data.get("password") ?? "");
    if (data.get("confirm") !== password) return form.show({ confirm: "The two passwords are not the same." });
    const result = await form.submit({ body: { username, token, password } });
    if (result.ok) {
      setChanged(true);
      notify({ title: CHANGED, color: "success" });
    } else if (result.failure?.status === 401) {
      notify({ title: BAD_CREDENTIALS, description: EXPIRED, color: "error" });
    }
  }

  return (
    <form method="post" onSubmit={reset} className="space-y-4" aria-label="Choose a new password">
      <p className="text-neutral-700 dark:text-neutral-300">
        Choose a new password for{" "}
        <strong className="break-all">{username}</strong>. Every session of the account will be signed out.
      </p>
      {/* For password managers: the account the new password belongs to. */}
      <input type="text" name="username" autoComplete="username" value={username} readOnly hidden />
      <FormAlert
        error={form.error}
        detail={form.error === BAD_CREDENTIALS
          ? (
            <>
              {EXPIRED} <a href="/forgot" className={LINK}>Ask for a new link</a>.
            </>
          )
          : undefined}
        fields={form.fields}
        shown={["password", "confirm"]}
      />
      <NewPasswordFields idPrefix="reset" label="New password" errors={form.fields} />
      <SubmitButton pending={form.submitting} pendingLabel="Saving…">Change my password</SubmitButton>
      <Status>{changed ? CHANGED : null}</Status>
    </form>
  );
}

export default withQueries(ForgotForm);
