import type { FormEvent } from "react";
import { api } from "./lib/api.ts";
import {
  Field,
  FormAlert,
  INVALID_CREDENTIALS,
  LINK,
  rememberUser,
  SubmitButton,
  textOf,
  useSubmit,
} from "./lib/auth-forms.tsx";
import { notify } from "./lib/notifications.ts";

/**
 * Sign in with email and password (POST auth/login). The API layer follows the answer's redirect
 * to /auth. A 401 shows and toasts 'Invalid credentials' (SPEC.md section 8); any other failure,
 * such as the 429 after too many attempts, shows the server's text.
 */
export default function LoginForm() {
  const { pending, error, fields, run } = useSubmit();

  async function signIn(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const body = { email: textOf(data, "email"), password: String(data.get("password") ?? "") };
    const result = await run(() => api.post("auth/login", body), {
      navigates: true,
      errorText: (failure) => failure.status === 401 ? INVALID_CREDENTIALS : failure.error,
    });
    if (result.ok) rememberUser(result.value);
    else if (result.failure?.status === 401) notify({ title: INVALID_CREDENTIALS, color: "error" });
  }

  return (
    <form method="post" onSubmit={signIn} className="space-y-4" aria-label="Sign in">
      <FormAlert error={error} fields={fields} shown={["email", "password"]} />
      <Field
        id="login-email"
        label="Email"
        name="email"
        type="email"
        autoComplete="username"
        required
        error={fields.email}
      />
      <Field
        id="login-password"
        label="Password"
        name="password"
        type="password"
        autoComplete="current-password"
        required
        error={fields.password}
      />
      <SubmitButton pending={pending} pendingLabel="Signing in…">Sign in</SubmitButton>
      <p className="flex flex-wrap justify-between gap-2 text-sm">
        <a href="/forgot" className={LINK}>Forgotten password?</a>
        <a href="/register" className={LINK}>Open an account</a>
      </p>
    </form>
  );
}
