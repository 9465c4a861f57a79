import type { FormEvent } from "react";
import { login } from "./auth/calls.ts";
import { INVALID_CREDENTIALS, LINK, rememberUser, textOf } from "./auth/fields.tsx";
import { notify } from "./lib/notification-store.ts";
import { withQueries } from "./lib/query-client.tsx";
import { FormAlert } from "./ui/alert.tsx";
import { TextField } from "./ui/field.tsx";
import { SubmitButton } from "./ui/submit-button.tsx";
import { useForm } from "./ui/use-form.ts";

/**
 * Sign in with email and password (POST auth/login). The API layer follows the answer's redirect
 * to /auth. A 401 shows and toasts 'Invalid credentials' (SPEC.md section 8); any other failure,
 * such as the 429 after too many attempts, shows the server's text.
 */
/** `registerHref`: the registration, with where the visitor came from (lib/attribution.ts). */
function LoginForm({ registerHref = "/register" }: { registerHref?: string }) {
  const form = useForm({
    call: login,
    navigates: true,
    errorText: (failure) => failure.status === 401 ? INVALID_CREDENTIALS : failure.error,
  });

  async function signIn(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const body = { email: textOf(data, "email"), password: String(data.get("password") ?? "") };
    const result = await form.submit({ body });
    if (result.ok) rememberUser(result.answer);
    // One toast however many tries: errors stay until dismissed, and a stack of the same one would
    // cover the form on a phone.
    else if (result.failure?.status === 401) {
      notify({ id: "sign-in-refused", title: INVALID_CREDENTIALS, color: "error" });
    }
  }

  return (
    <form method="post" onSubmit={signIn} className="space-y-4" aria-label="Sign in">
      <FormAlert error={form.error} fields={form.fields} shown={["email", "password"]} />
      <TextField
        id="login-email"
        label="Email"
        name="email"
        type="email"
        autoComplete="username"
        error={form.fields.email}
      />
      <TextField
        id="login-password"
        label="Password"
        name="password"
        type="password"
        autoComplete="current-password"
        error={form.fields.password}
      />
      <SubmitButton pending={form.submitting} pendingLabel="Signing in…">Sign in</SubmitButton>
      <p className="flex flex-wrap justify-between gap-2 text-sm">
        <a href="/forgot" className={LINK}>Forgotten password?</a>
        <a href={registerHref} className={LINK}>Open an account</a>
      </p>
    </form>
  );
}

export default withQueries(LoginForm);
