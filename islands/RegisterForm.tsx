import type { FormEvent } from "react";
import { api } from "./lib/api.ts";
import { Field, FormAlert, LINK, NewPasswordFields, SubmitButton, textOf, useSubmit } from "./lib/auth-forms.tsx";

export interface RegisterFormProps {
  /** A referral code from the visitor's link, prefilled and editable. */
  referralCode?: string | null;
  /** Where the visitor came from (utm_*, referrer, landing_path), sent as it is. */
  attribution: Record<string, string>;
}

type AccountType = "Personal" | "Business";
const TYPES: { value: AccountType; title: string; text: string }[] = [
  { value: "Personal", title: "Personal", text: "For you: send money abroad and hold currencies." },
  { value: "Business", title: "Business", text: "For a company: pay suppliers and staff abroad." },
];

/**
 * Opens an account (POST auth/register): Personal or Business, email, password, optional referral
 * code, and the visit's attribution. The answer is the same whether or not the address already has
 * an account; the API layer follows the redirect to /verify. A 422 shows each problem under its field.
 */
export default function RegisterForm({ referralCode = null, attribution }: RegisterFormProps) {
  const { pending, error, fields, run } = useSubmit();

  async function register(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const password = String(data.get("password") ?? "");
    const referral = textOf(data, "referral_code");
    const body = {
      email: textOf(data, "email"),
      password,
      type: data.get("type") === "Business" ? "Business" : "Personal",
      ...(referral ? { referral_code: referral } : {}),
      ...(attribution && Object.keys(attribution).length ? { attribution } : {}),
    };
    // Registering signs nobody in (the emailed link does, decision 023): the API layer goes to /verify.
    await run(() => api.post("auth/register", body), { navigates: true });
  }

  return (
    <form method="post" onSubmit={register} className="space-y-5" aria-label="Open an account">
      <FormAlert error={error} fields={fields} shown={["type", "email", "password", "referral_code"]} />
      <fieldset aria-describedby={fields.type ? "register-type-error" : undefined}>
        <legend className="text-sm font-medium text-neutral-800 dark:text-neutral-200">Account type</legend>
        <div className="mt-2 grid gap-3 sm:grid-cols-2">
          {TYPES.map((t) => (
            <label
              key={t.value}
              className="flex cursor-pointer gap-3 rounded-lg border border-neutral-300 p-4 hover:border-primary-600 has-checked:border-primary-700 has-checked:bg-primary-50 has-focus-visible:outline-2 has-focus-visible:outline-offset-2 has-focus-visible:outline-primary-600 dark:border-neutral-700 dark:has-checked:border-primary-400 dark:has-checked:bg-neutral-800"
            >
              <input
                type="radio"
                name="type"
                value={t.value}
                defaultChecked={t.value === "Personal"}
                required
                className="mt-1 size-4 accent-primary-700"
              />
              <span>
                <span className="block font-semibold">{t.title}</span>
                <span className="block text-sm text-neutral-600 dark:text-neutral-400">{t.text}</span>
              </span>
            </label>
          ))}
        </div>
        {fields.type
          ? <p id="register-type-error" className="mt-1 text-sm text-red-700 dark:text-red-300">{fields.type}</p>
          : null}
      </fieldset>
      <Field
        id="register-email"
        label="Email"
        name="email"
        type="email"
        autoComplete="email"
        required
        error={fields.email}
      />
      <NewPasswordFields idPrefix="register" label="Password" errors={fields} confirm={false} />
      <Field
        id="register-referral"
        label="Referral code"
        name="referral_code"
        type="text"
        autoComplete="off"
        spellCheck={false}
        defaultValue={referralCode ?? ""}
        error={fields.referral_code}
      />
      <SubmitButton pending={pending} pendingLabel="Opening your account…">Open an account</SubmitButton>
      <p className="text-sm text-neutral-700 dark:text-neutral-300">
        Already have an account? <a href="/" className={LINK}>Sign in</a>
      </p>
    </form>
  );
}
