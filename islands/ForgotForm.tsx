import { type FormEvent, useState } from "react";
import { askPasswordReset, resetPassword } from "./auth/calls.ts";
import { LINK, NewPasswordFields, textOf } from "./auth/fields.tsx";
import { notify } from "./lib/notification-store.ts";
import { withQueries } from "./lib/query-client.tsx";
import { Alert, FormAlert, Status } from "./ui/alert.tsx";
import { TextField } from "./ui/field.tsx";
import { SubmitButton } from "./ui/submit-button.tsx";
import { useForm } from "./ui/use-form.ts";

export interface ForgotFormProps {
  /** From the emailed link: its token and the account's address. Both, or the request form. */
  token?: string | null;
  username?: string | null;
  /** The page was opened from a link that no longer works: say so, and offer a new one. */
  expired?: boolean;
}

const EXPIRED = "This link has expired or was already used.";
const NEW_LINK = "Send yourself a new link: it is valid for one hour.";
const CHANGED = "Password changed. Sign in with your new password.";

/**
 * A forgotten password. Without a link: the address (POST auth/forgot {username}), answered with
 * the same message whether or not an account exists. From the link: a new password, typed twice
 * (POST auth/forgot/reset {username, token, password}); the API layer then goes to '/'. A link
 * that no longer works (on opening, or refused with a 422 naming `token`) offers a new one.
 */
function ForgotForm({ token = null, username = null, expired = false }: ForgotFormProps) {
  // A link refused on submit (used meanwhile, or expired while the password was typed) turns the
  // page into the offer of a new one, as a link refused on opening does (decision 039).
  const [refused, setRefused] = useState(expired);
  return token && username && !refused
    ? <ResetForm token={token} username={username} onExpired={() => setRefused(true)} />
    : <RequestForm expired={refused} username={username} />;
}

function RequestForm({ expired, username }: { expired: boolean; username: string | null }) {
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
            {expired
              ? <Alert title={EXPIRED}>{NEW_LINK}</Alert>
              : (
                <p className="text-neutral-700 dark:text-neutral-300">
                  Enter the email address of your account and we will send you a link to choose a new password.
                </p>
              )}
            <FormAlert error={form.error} fields={form.fields} shown={["username"]} />
            <TextField
              id="forgot-email"
              label="Email"
              name="email"
              type="email"
              autoComplete="username"
              defaultValue={username ?? undefined}
              error={form.fields.username}
            />
            <SubmitButton pending={form.submitting} pendingLabel="Sending…">
              {expired ? "Send me a new link" : "Send me a link"}
            </SubmitButton>
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

function ResetForm({ token, username, onExpired }: { token: string; username: string; onExpired: () => void }) {
  const form = useForm({ call: resetPassword, navigates: true });
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
    } else if (result.failure?.fields?.token) {
      onExpired();
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
      <FormAlert error={form.error} fields={form.fields} shown={["password", "confirm"]} />
      <NewPasswordFields idPrefix="reset" label="New password" errors={form.fields} />
      <SubmitButton pending={form.submitting} pendingLabel="Saving…">Change my password</SubmitButton>
      <Status>{changed ? CHANGED : null}</Status>
    </form>
  );
}

export default withQueries(ForgotForm);
