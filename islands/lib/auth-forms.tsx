/**
 * What the sign-in forms share: a labelled field with its hint and error, the one-time-code field,
 * and `useSubmit`, which runs one API call at a time and keeps its pending / error / per-field
 * state. With form-alert.tsx's alert and status and forms.tsx's submit button, re-exported here.
 */
import { type InputHTMLAttributes, type ReactNode, useCallback, useRef, useState } from "react";
import { ApiCallError, FALLBACK_ERROR, isAbort } from "./api.ts";
import { userStore, type UserSummary } from "./user-store.ts";

export { FormAlert, Status } from "./form-alert.tsx";
export { SubmitButton, useHydrated, useIdempotencyKey } from "./forms.tsx";

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

export interface SubmitState {
  pending: boolean;
  /** The general error, for the alert. */
  error: string | null;
  /** Problems by field name (a 422's `fields`, or the form's own checks). */
  fields: Record<string, string>;
}
export interface RunOptions {
  /** The text to show for a failure; default: the server's `error` text. */
  errorText?: (failure: ApiCallError) => string;
  /** A success leaves the page (the API layer follows the redirect): stay pending meanwhile. */
  navigates?: boolean;
}
export type RunResult<T> = { ok: true; value: T } | { ok: false; failure: ApiCallError | null };

const IDLE: SubmitState = { pending: false, error: null, fields: {} };

export function useSubmit() {
  const [state, setState] = useState<SubmitState>(IDLE);
  const busy = useRef(false);

  const run = useCallback(async <T,>(call: () => Promise<T>, options: RunOptions = {}): Promise<RunResult<T>> => {
    if (busy.current) return { ok: false, failure: null };
    busy.current = true;
    setState({ pending: true, error: null, fields: {} });
    try {
      const value = await call();
      if (!options.navigates) {
        busy.current = false;
        setState(IDLE);
      }
      return { ok: true, value };
    } catch (err) {
      busy.current = false;
      const failure = err instanceof ApiCallError ? err : null;
      if (!failure && !isAbort(err)) console.warn("The call failed", err);
      const error = isAbort(err) ? null : failure ? (options.errorText?.(failure) ?? failure.error) : FALLBACK_ERROR;
      setState({ pending: false, error, fields: failure?.fields ?? {} });
      return { ok: false, failure };
    }
  }, []);

  /** Shows problems found before calling (passwords that differ), or clears them. */
  const show = useCallback((fields: Record<string, string>, error: string | null = null) => {
    setState({ pending: false, error, fields });
  }, []);

  return { ...state, run, show };
}

const INPUT =
  "block w-full rounded-md border border-neutral-500 bg-white px-3 py-2 focus:outline-2 focus:outline-primary-600 aria-[invalid=true]:border-red-600 dark:bg-neutral-950 dark:aria-[invalid=true]:border-red-400";

export type FieldProps = InputHTMLAttributes<HTMLInputElement> & {
  id: string;
  label: string;
  hint?: ReactNode;
  error?: string | null;
};

/** A label, its input, an optional hint and the field's error, tied together for screen readers. */
export function Field({ id, label, hint, error, className, ...input }: FieldProps) {
  const described = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium text-neutral-800 dark:text-neutral-200">
        {label}
        {input.required ? null : <span className="font-normal text-neutral-600 dark:text-neutral-400">(optional)</span>}
      </label>
      <input
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={described || undefined}
        className={className ? `${INPUT} ${className}` : INPUT}
        {...input}
      />
      {hint ? <p id={`${id}-hint`} className="text-xs text-neutral-600 dark:text-neutral-400">{hint}</p> : null}
      {error ? <p id={`${id}-error`} className="text-sm text-red-700 dark:text-red-300">{error}</p> : null}
    </div>
  );
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
      <Field
        id={`${idPrefix}-password`}
        label={label}
        name="password"
        {...rules}
        hint={`${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`}
        error={errors.password}
      />
      {confirm
        ? <Field id={`${idPrefix}-confirm`} label={`${label} again`} name="confirm" {...rules} error={errors.confirm} />
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
export function CodeField(props: Omit<FieldProps, "name" | "type">) {
  return (
    <Field
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
