/**
 * Small form helpers for the KYC profile form (islands/ProfileForm.tsx) and the console's inline
 * forms: values kept as one nested object addressed by dotted paths ("address.country", "ubos.0"),
 * the same paths the server's 422 `fields` use, so each message lands under its input.
 *
 * Fields read the form from a context: `<FormProvider value={form}>` then `<TextField path=... />`.
 * Every input gets its id from its path (fieldId), an aria-describedby for its hint and error, and
 * aria-invalid when the server named it; the form focuses the first `[aria-invalid="true"]`.
 */
import { createContext, type ReactNode, useContext, useEffect, useRef } from "react";
import { ApiCallError, FALLBACK_ERROR } from "./api.ts";

export type Values = Record<string, unknown>;
export type FieldErrors = Record<string, string>;

export interface FormState {
  values: Values;
  errors: FieldErrors;
  /** Sets the value at `path` and drops the errors about it (and about its parents). */
  change(path: string, value: unknown): void;
  /** Drops every error at or under `path` (a list whose rows moved). */
  clearErrors(path: string): void;
}

const FormContext = createContext<FormState | null>(null);
export const FormProvider = FormContext.Provider;

function useForm(): FormState {
  const form = useContext(FormContext);
  if (!form) throw new Error("Form fields need a <FormProvider>");
  return form;
}

// ---------------------------------------------------------------------------------------------
// Paths

/** The value at a dotted path ("address.city", "ubos.1"). */
export function getIn(values: unknown, path: string): unknown {
  let at: unknown = values;
  for (const key of path.split(".")) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** A copy of `values` with `value` at the dotted path; arrays stay arrays. */
export function setIn<T>(values: T, path: string, value: unknown): T {
  const [key, ...rest] = path.split(".");
  const copy = (Array.isArray(values) ? [...values] : { ...values }) as Record<string, unknown>;
  copy[key] = rest.length ? setIn(copy[key] ?? (/^\d+$/.test(rest[0]) ? [] : {}), rest.join("."), value) : value;
  return copy as T;
}

/** Errors without those about `path` itself and the parents it belongs to. */
export function withoutErrorsFor(errors: FieldErrors, path: string): FieldErrors {
  const next: FieldErrors = {};
  for (const [key, message] of Object.entries(errors)) {
    if (key !== path && !path.startsWith(`${key}.`)) next[key] = message;
  }
  return next;
}

/** Errors without any at or under `path`. */
export function withoutErrorsUnder(errors: FieldErrors, path: string): FieldErrors {
  const next: FieldErrors = {};
  for (const [key, message] of Object.entries(errors)) {
    if (key !== path && !key.startsWith(`${path}.`)) next[key] = message;
  }
  return next;
}

/** The element id of the input for a path: "address.country" → "pf-address-country". */
export const fieldId = (path: string): string => `pf-${path.replace(/\./g, "-")}`;

// ---------------------------------------------------------------------------------------------
// Errors

/** What to tell the user about a failed call: the server's text, or the fallback (SPEC.md section 8). */
export function errorText(err: unknown): string {
  return err instanceof ApiCallError ? err.error || FALLBACK_ERROR : FALLBACK_ERROR;
}

/**
 * Focuses the first invalid input inside `root` (in page order) each time `tick` changes, else
 * `fallback` (the alert). Used after a refused save.
 */
export function useFocusFirstInvalid(
  tick: number,
  root: { current: HTMLElement | null },
  fallback: { current: HTMLElement | null },
): void {
  useEffect(() => {
    if (!tick) return;
    const invalid = root.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
    (invalid ?? fallback.current)?.focus();
  }, [tick]);
}

// ---------------------------------------------------------------------------------------------
// Presentation

export const INPUT =
  "mt-1 block w-full rounded-md border bg-white px-3 py-2 text-sm text-neutral-900 shadow-sm placeholder:text-neutral-500 focus:outline-2 focus:outline-offset-0 focus:outline-primary-600 dark:bg-neutral-950 dark:text-neutral-100 dark:placeholder:text-neutral-400";
const INPUT_OK = "border-neutral-300 dark:border-neutral-700";
const INPUT_BAD = "border-red-600 dark:border-red-400";
export const inputClass = (invalid: boolean): string => `${INPUT} ${invalid ? INPUT_BAD : INPUT_OK}`;
export const LABEL = "block text-sm font-medium text-neutral-900 dark:text-neutral-100";
export const HINT = "mt-1 text-sm text-neutral-600 dark:text-neutral-300";
export const ERROR = "mt-1 text-sm font-medium text-red-700 dark:text-red-400";
const CHECKBOX =
  "mt-0.5 size-4 shrink-0 rounded border-neutral-400 accent-primary-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-primary-600";

/**
 * An alert box: `error` for a refusal (role=alert), the other tones as a status (role=status).
 * `live={false}` drops the role, for a box inside a live region that is always on the page.
 */
export function Alert(
  { tone = "error", title, children, alertRef, live = true }: {
    tone?: "error" | "info" | "success" | "warning";
    title?: string;
    children: ReactNode;
    alertRef?: { current: HTMLDivElement | null };
    live?: boolean;
  },
) {
  const colours = {
    error: "border-red-600 bg-red-50 text-red-900 dark:border-red-400 dark:bg-red-950 dark:text-red-100",
    warning: "border-amber-500 bg-amber-50 text-amber-900 dark:border-amber-400 dark:bg-amber-950 dark:text-amber-100",
    success:
      "border-emerald-600 bg-emerald-50 text-emerald-900 dark:border-emerald-400 dark:bg-emerald-950 dark:text-emerald-100",
    info: "border-sky-600 bg-sky-50 text-sky-900 dark:border-sky-400 dark:bg-sky-950 dark:text-sky-100",
  }[tone];
  return (
    <div
      ref={alertRef}
      tabIndex={-1}
      role={live ? (tone === "error" ? "alert" : "status") : undefined}
      className={`rounded-md border-l-4 p-4 text-sm focus:outline-2 focus:outline-primary-600 ${colours}`}
    >
      {title ? <p className="font-semibold">{title}</p> : null}
      <div className={title ? "mt-1" : undefined}>{children}</div>
    </div>
  );
}

/** A group of fields under a legend, as a card. */
export function Section({ legend, hint, children }: { legend: string; hint?: string; children: ReactNode }) {
  return (
    <fieldset className="card min-w-0">
      <legend className="float-left mb-4 w-full text-lg font-semibold text-neutral-900 dark:text-neutral-100">
        {legend}
      </legend>
      {hint ? <p className={`clear-left -mt-2 mb-4 ${HINT}`}>{hint}</p> : null}
      <div className="clear-left grid gap-4 sm:grid-cols-2">{children}</div>
    </fieldset>
  );
}

function Optional() {
  return <span className="font-normal text-neutral-600 dark:text-neutral-300">(optional)</span>;
}

/** The ids an input points at with aria-describedby: its hint, then its error. */
function describedBy(id: string, hint: unknown, error: unknown): string | undefined {
  return [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
}

function Messages({ id, hint, error }: { id: string; hint?: ReactNode; error?: string }) {
  return (
    <>
      {hint ? <p id={`${id}-hint`} className={HINT}>{hint}</p> : null}
      {error ? <p id={`${id}-error`} className={ERROR}>{error}</p> : null}
    </>
  );
}

interface BaseProps {
  path: string;
  label: string;
  hint?: ReactNode;
  optional?: boolean;
  autoComplete?: string;
  /** Spans both columns of the section's grid. */
  wide?: boolean;
}

export function TextField(
  { path, label, hint, optional, autoComplete, wide, type = "text", inputMode, placeholder }: BaseProps & {
    type?: "text" | "date" | "tel" | "url" | "email";
    inputMode?: "decimal" | "numeric" | "tel" | "url" | "email" | "text";
    placeholder?: string;
  },
) {
  const { values, errors, change } = useForm();
  const id = fieldId(path);
  const error = errors[path];
  return (
    <div className={wide ? "sm:col-span-2" : undefined}>
      <label htmlFor={id} className={LABEL}>
        {label} {optional ? <Optional /> : null}
      </label>
      <input
        id={id}
        name={path}
        type={type}
        inputMode={inputMode}
        placeholder={placeholder}
        autoComplete={autoComplete}
        required={!optional}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error)}
        value={String(getIn(values, path) ?? "")}
        onChange={(event) => change(path, event.currentTarget.value)}
        className={inputClass(Boolean(error))}
      />
      <Messages id={id} hint={hint} error={error} />
    </div>
  );
}

export type Option = string | { value: string; label: string };
const optionValue = (o: Option) => (typeof o === "string" ? o : o.value);
const optionLabel = (o: Option) => (typeof o === "string" ? o : o.label);

/** Options plus any saved value they lack, so a saved answer is never silently lost. */
function withSaved(options: readonly Option[], saved: readonly string[]): Option[] {
  const known = new Set(options.map(optionValue));
  return [...options, ...saved.filter((v) => v !== "" && !known.has(v))];
}

export function SelectField(
  { path, label, hint, optional, autoComplete, wide, options, placeholder = "Select…" }: BaseProps & {
    options: readonly Option[];
    placeholder?: string;
  },
) {
  const { values, errors, change } = useForm();
  const id = fieldId(path);
  const error = errors[path];
  const value = String(getIn(values, path) ?? "");
  return (
    <div className={wide ? "sm:col-span-2" : undefined}>
      <label htmlFor={id} className={LABEL}>
        {label} {optional ? <Optional /> : null}
      </label>
      <select
        id={id}
        name={path}
        autoComplete={autoComplete}
        required={!optional}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error)}
        value={value}
        onChange={(event) => change(path, event.currentTarget.value)}
        className={inputClass(Boolean(error))}
      >
        <option value="">{placeholder}</option>
        {withSaved(options, [value]).map((o) => (
          <option key={optionValue(o)} value={optionValue(o)}>{optionLabel(o)}</option>
        ))}
      </select>
      <Messages id={id} hint={hint} error={error} />
    </div>
  );
}

/** A yes/no question as one checkbox (the value is true or false). */
export function CheckboxField({ path, label, hint }: { path: string; label: string; hint?: ReactNode }) {
  const { values, errors, change } = useForm();
  const id = fieldId(path);
  const error = errors[path];
  return (
    <div className="sm:col-span-2">
      <div className="flex items-start gap-3">
        <input
          id={id}
          name={path}
          type="checkbox"
          checked={getIn(values, path) === true}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy(id, hint, error)}
          onChange={(event) => change(path, event.currentTarget.checked)}
          className={CHECKBOX}
        />
        <label htmlFor={id} className="text-sm text-neutral-900 dark:text-neutral-100">{label}</label>
      </div>
      <div className="pl-7">
        <Messages id={id} hint={hint} error={error} />
      </div>
    </div>
  );
}

/** A list of texts chosen with checkboxes (at least one, says the server). */
export function CheckboxList(
  { path, legend, hint, options }: { path: string; legend: string; hint?: ReactNode; options: readonly string[] },
) {
  const { values, errors, change } = useForm();
  const id = fieldId(path);
  const chosen = (getIn(values, path) as string[] | undefined) ?? [];
  // A message about the list or about one of its entries ("purpose.0") shows under the group.
  const error = errors[path] ?? Object.entries(errors).find(([key]) => key.startsWith(`${path}.`))?.[1];
  const toggle = (option: string, on: boolean) =>
    change(path, on ? [...chosen.filter((v) => v !== option), option] : chosen.filter((v) => v !== option));
  return (
    <fieldset id={id} className="min-w-0 sm:col-span-2" aria-describedby={describedBy(id, hint, error)}>
      <legend className={LABEL}>{legend}</legend>
      <Messages id={id} hint={hint} />
      <div className="mt-2 grid gap-2 sm:grid-cols-2">
        {withSaved(options, chosen).map((o) => {
          const option = optionValue(o);
          const optionId = `${id}-${option.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
          return (
            <div key={option} className="flex items-start gap-3">
              <input
                id={optionId}
                type="checkbox"
                name={path}
                value={option}
                checked={chosen.includes(option)}
                aria-invalid={error ? true : undefined}
                onChange={(event) => toggle(option, event.currentTarget.checked)}
                className={CHECKBOX}
              />
              <label htmlFor={optionId} className="text-sm text-neutral-900 dark:text-neutral-100">{option}</label>
            </div>
          );
        })}
      </div>
      <Messages id={id} error={error} />
    </fieldset>
  );
}

/** The most rows a repeatable list offers (the server's limit). */
export const MAX_LIST_ROWS = 20;

/**
 * A repeatable list of one-line texts with Add and Remove buttons; at least one row is shown.
 * Errors: `path` (the list) under the group, `path.N` under row N.
 */
export function TextList(
  { path, legend, hint, itemLabel, addLabel, removeLabel }: {
    path: string;
    legend: string;
    hint?: ReactNode;
    itemLabel: string;
    addLabel: string;
    /** The accessible name of row N's Remove button: "Remove beneficial owner 2". */
    removeLabel: string;
  },
) {
  const { values, errors, change, clearErrors } = useForm();
  const id = fieldId(path);
  const rows = (getIn(values, path) as string[] | undefined) ?? [];
  const shown = rows.length ? rows : [""];
  const error = errors[path];
  const focusRow = useRef<number | null>(null);

  useEffect(() => {
    if (focusRow.current === null) return;
    document.getElementById(fieldId(`${path}.${focusRow.current}`))?.focus();
    focusRow.current = null;
  });

  const replace = (next: string[], focus: number) => {
    // Rows moved: a message about row N would now sit under another row.
    clearErrors(path);
    focusRow.current = focus;
    change(path, next);
  };

  return (
    <fieldset id={id} className="min-w-0 sm:col-span-2" aria-describedby={describedBy(id, hint, error)}>
      <legend className={LABEL}>{legend}</legend>
      <Messages id={id} hint={hint} error={error} />
      <ol className="mt-2 flex flex-col gap-3">
        {shown.map((row, index) => {
          const rowPath = `${path}.${index}`;
          const rowId = fieldId(rowPath);
          const rowError = errors[rowPath];
          return (
            <li key={index}>
              <label htmlFor={rowId} className={LABEL}>
                {itemLabel}
                {shown.length > 1 ? <span className="sr-only">{` ${index + 1} of ${shown.length}`}</span> : null}
              </label>
              <div className="flex items-start gap-2">
                <input
                  id={rowId}
                  name={rowPath}
                  type="text"
                  autoComplete="off"
                  required
                  aria-invalid={rowError ? true : undefined}
                  aria-describedby={rowError ? `${rowId}-error` : undefined}
                  value={row}
                  onChange={(event) => change(rowPath, event.currentTarget.value)}
                  className={inputClass(Boolean(rowError))}
                />
                <button
                  type="button"
                  className="btn-ghost mt-1 shrink-0"
                  aria-label={`${removeLabel} ${index + 1}`}
                  disabled={shown.length <= 1}
                  onClick={() => replace(shown.filter((_, i) => i !== index), Math.max(0, index - 1))}
                >
                  Remove
                </button>
              </div>
              {rowError ? <p id={`${rowId}-error`} className={ERROR}>{rowError}</p> : null}
            </li>
          );
        })}
      </ol>
      <button
        type="button"
        className="btn-ghost mt-3 border border-neutral-300 dark:border-neutral-700"
        disabled={shown.length >= MAX_LIST_ROWS}
        onClick={() => replace([...shown, ""], shown.length)}
      >
        {addLabel}
      </button>
    </fieldset>
  );
}
