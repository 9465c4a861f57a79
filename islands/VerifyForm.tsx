import { type FormEvent, useEffect, useState } from "react";
import { resendValidation, validateEmail } from "./auth/calls.ts";
import { BAD_CREDENTIALS, LINK, rememberUser } from "./auth/fields.tsx";
import { notify } from "./lib/notification-store.ts";
import { withQueries } from "./lib/query-client.tsx";
import { FormAlert, Status } from "./ui/alert.tsx";
import { TextField } from "./ui/field.tsx";
import { BusyButton, SubmitButton, useHydrated } from "./ui/submit-button.tsx";
import { useForm } from "./ui/use-form.ts";

export interface VerifyFormProps {
  /** The token of the emailed link, when the page was opened from it. */
  token?: string | null;
  /** The signed-in user's address, for "a new link is on its way to ...". */
  email?: string | null;
  signedIn: boolean;
}

const EXPIRED = "This link has expired or was already used.";

/** A pasted whole link ("https://…/verify?token=…") gives its token; anything else is the token. */
export function tokenFrom(text: string): string {
  const match = /[?&]token=([^&#\s]+)/.exec(text);
  if (!match) return text.trim();
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1];
  }
}

/**
 * Confirms the email address (POST validation/validate {token}). Opened from the emailed link, it
 * sends the token at once and shows its progress; otherwise the emailed 6-digit code (or the whole
 * link) can be typed. A wrong one is refused here with the tries left (decision 039). The API layer follows the redirect to /register-personal or /register-business. A
 * signed-in user can ask for a new link (POST validation/resend).
 */
function VerifyForm({ token = null, email = null, signedIn }: VerifyFormProps) {
  const check = useForm({
    call: validateEmail,
    navigates: true,
    errorText: (failure) => failure.status === 401 ? BAD_CREDENTIALS : failure.error,
  });
  const resend = useForm({ call: resendValidation });
  const hydrated = useHydrated();
  // While the link's token is being checked, the page shows only the progress.
  const [checkingLink, setCheckingLink] = useState(!!token);
  const [confirmed, setConfirmed] = useState(false);
  const [sent, setSent] = useState(false);

  async function validate(value: string) {
    const result = await check.submit({ body: { token: value } });
    if (result.ok) {
      // Only a browser the answer signed in (past the second factor) has a user: one where nobody
      // is (the link opened on a phone) is sent to sign in, and a remembered user there would make
      // the sign-in page reload itself for them and lose its notice (decision 077).
      if (result.answer?.secondFactor) rememberUser(result.answer);
      setConfirmed(true);
      return;
    }
    setCheckingLink(false);
    if (result.failure?.status === 401) {
      notify({ id: "verify-refused", title: BAD_CREDENTIALS, description: EXPIRED, color: "error" });
    }
  }

  useEffect(() => {
    if (token) void validate(token);
  }, []);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    await validate(tokenFrom(String(new FormData(event.currentTarget).get("token") ?? "")));
  }

  async function sendLink() {
    setSent(false);
    const result = await resend.submit();
    if (result.ok) setSent(true);
  }

  if (confirmed || checkingLink) {
    return (
      <div
        role="status"
        aria-busy={!confirmed}
        className="flex items-center gap-3 text-neutral-700 dark:text-neutral-300"
      >
        {confirmed ? null : (
          <span
            aria-hidden="true"
            className="size-5 animate-spin rounded-full border-2 border-neutral-300 border-t-primary-700 motion-reduce:animate-none dark:border-neutral-600 dark:border-t-primary-300"
          />
        )}
        <p>{confirmed ? "Email address confirmed. Taking you to the next step…" : "Checking your link…"}</p>
      </div>
    );
  }

  return (
    <div className="space-y-6">
      <form method="post" onSubmit={submit} className="space-y-4" aria-label="Confirm your email address">
        <p className="text-neutral-700 dark:text-neutral-300">
          {email
            ? (
              <>
                We sent a link and a 6-digit code to{" "}
                <strong className="break-all">{email}</strong>. Open the link to confirm your email address, or type the
                code here.
              </>
            )
            // The code is only ever checked for the person of this browser (decision 039): here,
            // where nobody is known, the link is the way.
            : "We sent you a link and a 6-digit code by email. Open the link to confirm your email address, or paste it here. The code works in the browser where you opened your account."}
        </p>
        <FormAlert
          error={check.error}
          detail={check.error === BAD_CREDENTIALS ? EXPIRED : undefined}
          fields={check.fields}
          shown={["token"]}
        />
        <TextField
          id="verify-token"
          label="Code from the email (or its link)"
          name="token"
          type="text"
          autoComplete="off"
          spellCheck={false}
          error={check.fields.token}
        />
        <SubmitButton pending={check.submitting} pendingLabel="Confirming…">Confirm my email address</SubmitButton>
      </form>
      <div className="space-y-2 border-t border-neutral-200 pt-4 dark:border-neutral-800">
        {signedIn
          ? (
            <>
              <BusyButton
                type="button"
                className="btn-ghost"
                onClick={sendLink}
                disabled={!hydrated}
                busy={resend.submitting}
                aria-busy={resend.submitting || undefined}
              >
                {resend.submitting ? "Sending…" : "Send a new link"}
              </BusyButton>
              <FormAlert error={resend.error} />
              <Status>{sent ? `A new link is on its way to ${email ?? "your email address"}.` : null}</Status>
            </>
          )
          : (
            <p className="text-sm text-neutral-700 dark:text-neutral-300">
              Need a new link? <a href="/" className={LINK}>Sign in</a> first, then ask for one here.
            </p>
          )}
      </div>
    </div>
  );
}

export default withQueries(VerifyForm);
