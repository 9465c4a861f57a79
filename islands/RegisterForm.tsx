import type { FormEvent } from "react";
import { referrerFromElsewhere } from "../lib/attribution.ts";
import type * as auth from "../lib/contracts/auth.ts";
import { register } from "./auth/calls.ts";
import type { BodyOf } from "./lib/api.ts";
import { LINK, NewPasswordFields, textOf } from "./auth/fields.tsx";
import { withQueries } from "./lib/query-client.tsx";
import { FormAlert } from "./ui/alert.tsx";
import { TextField } from "./ui/field.tsx";
import { SubmitButton } from "./ui/submit-button.tsx";
import { useForm } from "./ui/use-form.ts";

export interface RegisterFormProps {
  /** A referral code from the visitor's link, prefilled and editable. */
  referralCode?: string | null;
  /**
   * Where the visitor came from, as the address says it (utm_*, landing_path), sent as it is with
   * the referrer the browser knows (another site's only): the page is the same for every visitor
   * (decision 069).
   */
  attribution: Record<string, string>;
}

type AccountType = BodyOf<typeof auth.register>["type"];
const TYPES: { value: AccountType; title: string; text: string }[] = [
  { value: "Personal", title: "Personal", text: "For you: send money abroad and hold currencies." },
  { value: "Business", title: "Business", text: "For a company: pay suppliers and staff abroad." },
];

/**
 * Opens an account (POST auth/register): Personal or Business, email, password, optional referral
 * code, and the visit's attribution (with the referring site, read here). The answer is the same whether or not the address already has
 * an account; the API layer follows the redirect to /verify. A 422 shows each problem under its field.
 */
function RegisterForm({ referralCode = null, attribution }: RegisterFormProps) {
  const form = useForm({ call: register, navigates: true });
  const { fields } = form;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const referral = textOf(data, "referral_code");
    const referrer = referrerFromElsewhere(document.referrer, location.href);
    const sent = referrer ? { ...attribution, referrer } : attribution;
    const body = {
      email: textOf(data, "email"),
      password: String(data.get("password") ?? ""),
      type: data.get("type") === "Business" ? "Business" as const : "Personal" as const,
      ...(referral ? { referral_code: referral } : {}),
      ...(sent && Object.keys(sent).length ? { attribution: sent } : {}),
    };
    // Registering signs nobody in (the emailed link does, decision 023): the API layer goes to /verify.
    await form.submit({ body });
  }

  return (
    <form method="post" onSubmit={submit} className="space-y-5" aria-label="Open an account">
      <FormAlert error={form.error} fields={fields} shown={["type", "email", "password", "referral_code"]} />
      <fieldset aria-describedby={fields.type ? "register-type-error" : undefined}>
        <legend className="field-label">Account type</legend>
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
        {fields.type ? <p id="register-type-error" className="mt-1 field-error">{fields.type}</p> : null}
      </fieldset>
      <TextField
        id="register-email"
        label="Email"
        name="email"
        type="email"
        autoComplete="email"
        error={fields.email}
      />
      <NewPasswordFields idPrefix="register" label="Password" errors={fields} confirm={false} />
      <TextField
        id="register-referral"
        label="Referral code"
        name="referral_code"
        type="text"
        optional
        autoComplete="off"
        spellCheck={false}
        defaultValue={referralCode ?? ""}
        error={fields.referral_code}
      />
      <SubmitButton pending={form.submitting} pendingLabel="Opening your account…">Open an account</SubmitButton>
      <p className="text-sm text-neutral-700 dark:text-neutral-300">
        Already have an account? <a href="/" className={LINK}>Sign in</a>
      </p>
    </form>
  );
}

export default withQueries(RegisterForm);
