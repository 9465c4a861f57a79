/**
 * What the sign-in forms share beyond the kit (islands/ui): the texts SPEC.md gives, the password
 * rules, a new password typed once or twice, the one-time-code field, and keeping the client's copy
 * of the user when a call answers one.
 */
import type { ComponentProps } from "react";
import { userStore, type UserSummary } from "../lib/user-store.ts";
import { TextField } from "../ui/field.tsx";

/** SPEC.md section 8: the text of a 401 on second factor, token validation, password reset. */
export const BAD_CREDENTIALS = "Bad credentials";
/** SPEC.md section 8: what a failed login shows (the toast and the form). */
export const INVALID_CREDENTIALS = "Invalid credentials";
/**
 * The server's password limits (server/auth/password.ts). Checked by the browser (minLength,
 * maxLength); the server's 422 says the same under the field if one gets through.
 */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

/** A text entry of a submitted form, trimmed (never a password: those are sent as typed). */
export const textOf = (data: FormData, name: string): string => String(data.get(name) ?? "").trim();

/** Keeps the client's copy of the session user when a call answers one. */
export function rememberUser(value: unknown): void {
  if (value && typeof value === "object" && "id" in value) userStore.set(value as UserSummary);
}

/**
 * A new password (its length rule as the hint) and, unless `confirm` is false, the same again:
 * registration, the administrator's set-up and a password reset ask the same way.
 */
export function NewPasswordFields({ idPrefix, label, errors, confirm = true }: {
  idPrefix: string;
  label: string;
  errors: Record<string, string | undefined>;
  confirm?: boolean;
}) {
  const rules = {
    type: "password",
    autoComplete: "new-password",
    minLength: PASSWORD_MIN,
    maxLength: PASSWORD_MAX,
    required: true,
  };
  return (
    <>
      <TextField
        id={`${idPrefix}-password`}
        label={label}
        name="password"
        {...rules}
        hint={`${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`}
        error={errors.password}
      />
      {confirm
        ? (
          <TextField
            id={`${idPrefix}-confirm`}
            label={`${label} again`}
            name="confirm"
            {...rules}
            error={errors.confirm}
          />
        )
        : null}
    </>
  );
}

/** A link in the forms' text colour, readable in both colour modes. */
export const LINK = "font-medium text-primary-700 underline-offset-4 hover:underline dark:text-primary-300";

/**
 * A 6-digit one-time code: numeric keypad, the platform's code autofill, digits only (a pasted
 * "123 456" becomes "123456").
 */
export function CodeField(props: Omit<ComponentProps<typeof TextField>, "name" | "type">) {
  return (
    <TextField
      name="code"
      type="text"
      inputMode="numeric"
      autoComplete="one-time-code"
      pattern="[0-9]{6}"
      maxLength={6}
      required
      spellCheck={false}
      hint="6 digits"
      className="max-w-40 font-mono tracking-widest"
      onInput={(event) => {
        const input = event.currentTarget;
        const digits = input.value.replace(/\D/g, "").slice(0, 6);
        if (digits !== input.value) input.value = digits;
      }}
      {...props}
    />
  );
}

/** The code of a submitted CodeField, digits only. */
export const codeOf = (data: FormData): string => String(data.get("code") ?? "").replace(/\D/g, "");
