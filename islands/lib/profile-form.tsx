/**
 * The KYC profile form (SPEC.md section 3), what its two kinds share: islands/PersonalProfileForm.tsx
 * and islands/BusinessProfileForm.tsx each add the sections of their customer type, so a page loads
 * the form of its type only.
 *
 * Values are kept as one nested object addressed by dotted paths ("address.country", "ubos.0"), the
 * same paths the server's 422 `fields` use, so each message lands under its input. Fields read the
 * form from a context: `<FormProvider value={form}>` then `<TextField path=... />`. Every input
 * gets its id from its path (fieldId), an aria-describedby for its hint and error, and
 * aria-invalid when the server named it; the form focuses the first `[aria-invalid="true"]`.
 */
import { createContext, type ReactNode, useContext, useEffect, useMemo, useRef, useState } from "react";
import { api, errorText, fieldsOf, isAbort } from "./api.ts";
import { SubmitButton, useIdempotencyKey } from "./forms.tsx";

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
const FormProvider = FormContext.Provider;

export function useForm(): FormState {
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
function setIn<T>(values: T, path: string, value: unknown): T {
  const [key, ...rest] = path.split(".");
  const copy = (Array.isArray(values) ? [...values] : { ...values }) as Record<string, unknown>;
  copy[key] = rest.length ? setIn(copy[key] ?? (/^\d+$/.test(rest[0]) ? [] : {}), rest.join("."), value) : value;
  return copy as T;
}

/**
 * Errors without those about `path` itself and the parents it belongs to ("address" for
 * "address.city"), or with `under`, without any at or under `path` (a list whose rows moved).
 */
function withoutErrors(errors: FieldErrors, path: string, under = false): FieldErrors {
  const next: FieldErrors = {};
  for (const [key, message] of Object.entries(errors)) {
    if (key !== path && !(under ? key.startsWith(`${path}.`) : path.startsWith(`${key}.`))) next[key] = message;
  }
  return next;
}

/** The element id of the input for a path: "address.country" → "pf-address-country". */
export const fieldId = (path: string): string => `pf-${path.replace(/\./g, "-")}`;

// ---------------------------------------------------------------------------------------------
// Errors

/**
 * Focuses the first invalid input inside `root` (in page order) each time `tick` changes, else
 * `fallback` (the alert). Used after a refused save.
 */
function useFocusFirstInvalid(
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

const INPUT =
  "mt-1 block w-full rounded-md border bg-white px-3 py-2 text-sm text-neutral-900 shadow-sm placeholder:text-neutral-500 focus:outline-2 focus:outline-offset-0 focus:outline-primary-600 dark:bg-neutral-950 dark:text-neutral-100 dark:placeholder:text-neutral-400";
const INPUT_OK = "border-neutral-300 dark:border-neutral-700";
const INPUT_BAD = "border-red-600 dark:border-red-400";
export const inputClass = (invalid: boolean): string => `${INPUT} ${invalid ? INPUT_BAD : INPUT_OK}`;
export const LABEL = "block text-sm font-medium text-neutral-900 dark:text-neutral-100";
const HINT = "mt-1 text-sm text-neutral-600 dark:text-neutral-300";
export const ERROR = "mt-1 text-sm font-medium text-red-700 dark:text-red-400";
export const CHECKBOX =
  "mt-0.5 size-4 shrink-0 rounded border-neutral-400 accent-primary-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-primary-600";

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
export function describedBy(id: string, hint: unknown, error: unknown): string | undefined {
  return [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
}

export function Messages({ id, hint, error }: { id: string; hint?: ReactNode; error?: string }) {
  return (
    <>
      {hint ? <p id={`${id}-hint`} className={HINT}>{hint}</p> : null}
      {error ? <p id={`${id}-error`} className={ERROR}>{error}</p> : null}
    </>
  );
}

export interface BaseProps {
  path: string;
  label: string;
  hint?: ReactNode;
  optional?: boolean;
  autoComplete?: string;
  /** Spans both columns of the section's grid. */
  wide?: boolean;
}

/**
 * What a text field and a select share: the label (with "(optional)"), the hint and the error,
 * and the attributes that tie the control to them. `control` renders the input or select.
 */
function LabelledField(
  { path, label, hint, optional, autoComplete, wide, control }: BaseProps & {
    control: (attributes: ControlAttributes, value: string) => ReactNode;
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
      {control(
        {
          id,
          name: path,
          autoComplete,
          required: !optional,
          "aria-invalid": error ? true : undefined,
          "aria-describedby": describedBy(id, hint, error),
          onChange: (event) => change(path, event.currentTarget.value),
          className: inputClass(Boolean(error)),
        },
        String(getIn(values, path) ?? ""),
      )}
      <Messages id={id} hint={hint} error={error} />
    </div>
  );
}

interface ControlAttributes {
  id: string;
  name: string;
  autoComplete?: string;
  required: boolean;
  "aria-invalid"?: true;
  "aria-describedby"?: string;
  onChange: (event: { currentTarget: { value: string } }) => void;
  className: string;
}

export function TextField(
  { type = "text", inputMode, placeholder, ...field }: BaseProps & {
    type?: "text" | "date" | "tel" | "url" | "email";
    inputMode?: "decimal" | "numeric" | "tel" | "url" | "email" | "text";
    placeholder?: string;
  },
) {
  return (
    <LabelledField
      {...field}
      control={(attributes, value) => (
        <input {...attributes} type={type} inputMode={inputMode} placeholder={placeholder} value={value} />
      )}
    />
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
  { options, placeholder = "Select…", ...field }: BaseProps & {
    options: readonly Option[];
    placeholder?: string;
  },
) {
  return (
    <LabelledField
      {...field}
      control={(attributes, value) => (
        <select {...attributes} value={value}>
          <option value="">{placeholder}</option>
          {withSaved(options, [value]).map((o) => (
            <option key={optionValue(o)} value={optionValue(o)}>{optionLabel(o)}</option>
          ))}
        </select>
      )}
    />
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

// ---------------------------------------------------------------------------------------------
// The form

export interface CountryOption {
  /** ISO 3166-1 alpha-2, upper case. */
  code: string;
  name: string;
  /** False where addresses carry no postcode (the field is then optional); true when absent. */
  postcode?: boolean;
}

const DISCOVERY = [
  "Search engine",
  "Social media",
  "Friend, family or colleague",
  "Online advert",
  "Comparison website",
  "News or press",
  "Other",
];

/** Whether some input of the form shows the message about `path`. */
export function displayed(values: Values, path: string): boolean {
  const [top, sub] = path.split(".");
  if (!(top in values)) return false;
  if (top === "agency_of") return values.agency === true;
  const value = values[top];
  // Lists show a message about the list or any entry; the address shows its parts, not itself.
  if (Array.isArray(value) || typeof value !== "object" || value === null) return true;
  return sub !== undefined && sub in value;
}

/** What a customer type's form adds to the shared frame. */
export interface ProfileSections {
  /** The sections before the address. */
  first: ReactNode;
  /** The address section's hint. */
  addressHint: string;
  /** The sections after the address. */
  then: ReactNode;
  /** Questions of "A few more questions" before "How did you hear about us?". */
  more?: ReactNode;
}

/**
 * The KYC profile form (SPEC.md section 3): every field of the customer's type, posted as JSON to
 * account/profile; the server validates, and the API layer follows its redirect to /identity. A 422
 * puts each `fields` message under its input (dotted paths such as "address.country" or "ubos.1"),
 * the general `error` in an alert at the top, and focuses the first invalid input.
 *
 * `values` are the form's values to start from, every field of the type (lib/profile-values.ts, on
 * the server); `sections` lays out the type's own fields around the shared ones; `payload` adjusts
 * what is sent (default: the values as they are).
 */
export function ProfileForm({ values: initial, countries, sections, payload = (values) => values }: {
  values: Values;
  countries: CountryOption[];
  sections: (values: Values, countries: { value: string; label: string }[]) => ProfileSections;
  payload?: (values: Values) => Values;
}) {
  const [values, setValues] = useState<Values>(initial);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [alert, setAlert] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [failures, setFailures] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  const alertRef = useRef<HTMLDivElement>(null);
  // The same Idempotency-Key while the same profile is sent again (a retry), a new one once it
  // changes (the server replays the answer to a repeated key and refuses it with another body).
  const idempotencyKey = useIdempotencyKey();

  useFocusFirstInvalid(failures, formRef, alertRef);

  const form = useMemo<FormState>(() => ({
    values,
    errors,
    change(path, value) {
      setValues((current) => setIn(current, path, value));
      setErrors((current) => withoutErrors(current, path));
    },
    clearErrors(path) {
      setErrors((current) => withoutErrors(current, path, true));
    },
  }), [values, errors]);

  const countryOptions = useMemo(() => countries.map((c) => ({ value: c.code, label: c.name })), [countries]);
  const addressCountry = countries.find((c) => c.code === getIn(values, "address.country"));
  const postcodeOptional = addressCountry?.postcode === false;

  async function submit(event: { preventDefault(): void }) {
    event.preventDefault();
    if (busy) return;
    const body = payload(values);
    setBusy(true);
    setAlert(null);
    try {
      await api.post("account/profile", body, { idempotencyKey: idempotencyKey(body) });
      // Saved: the API layer is already on its way to /identity; the button stays disabled.
    } catch (err) {
      setBusy(false);
      if (isAbort(err)) return;
      setErrors(fieldsOf(err));
      setAlert(errorText(err));
      setFailures((n) => n + 1);
    }
  }

  const marked = Object.keys(errors).filter((path) => displayed(values, path)).length;
  // Messages no field shows (a path the form has no input for) are listed in the alert.
  const others = Object.entries(errors).filter(([path, problem]) => !displayed(values, path) && problem !== alert);
  const { first, addressHint, then, more } = sections(values, countryOptions);

  return (
    <FormProvider value={form}>
      <form
        ref={formRef}
        method="post"
        noValidate
        onSubmit={submit}
        aria-busy={busy || undefined}
        className="flex flex-col gap-6"
      >
        {alert
          ? (
            <div
              ref={alertRef}
              tabIndex={-1}
              role="alert"
              className="rounded-md border-l-4 p-4 text-sm focus:outline-2 focus:outline-primary-600 border-red-600 bg-red-50 text-red-900 dark:border-red-400 dark:bg-red-950 dark:text-red-100"
            >
              <p className="font-semibold">Your details could not be saved</p>
              <div className="mt-1">
                <p>{alert}</p>
                {others.length
                  ? (
                    <ul className="mt-1 list-disc pl-5">
                      {others.map(([path, problem]) => <li key={path}>{problem}</li>)}
                    </ul>
                  )
                  : null}
                {marked > 1 ? <p className="mt-1">{`Check the ${marked} fields marked below.`}</p> : null}
              </div>
            </div>
          )
          : null}

        {first}

        <Section legend="Address" hint={addressHint}>
          <TextField path="address.line1" label="Address line 1" autoComplete="address-line1" wide />
          <TextField path="address.line2" label="Address line 2" autoComplete="address-line2" optional wide />
          <TextField path="address.city" label="Town or city" autoComplete="address-level2" />
          <TextField path="address.region" label="County, state or region" autoComplete="address-level1" optional />
          <TextField
            path="address.postcode"
            label="Postcode"
            autoComplete="postal-code"
            optional={postcodeOptional}
            hint={postcodeOptional ? "Addresses in this country have no postcode." : undefined}
          />
          <SelectField
            path="address.country"
            label="Country"
            autoComplete="country"
            options={countryOptions}
            placeholder="Select a country"
          />
        </Section>

        {then}

        <Section legend="A few more questions">
          {more}
          <SelectField path="discovery" label="How did you hear about us?" options={DISCOVERY} optional wide />
        </Section>

        {
          /* Sent by script only: the button waits for hydration, so a click never sends the profile as
            a native form submission. */
        }
        <div className="flex justify-end">
          <SubmitButton pending={busy} pendingLabel="Saving…" className="btn-primary">Save and continue</SubmitButton>
        </div>
      </form>
    </FormProvider>
  );
}
