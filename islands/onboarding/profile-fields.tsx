/**
 * The profile form's fields, each addressed by its dotted path (the kit's fields, with their value,
 * change and problem read from the profile form's context), and the card that groups them.
 */
import { type ReactNode, useEffect, useRef } from "react";
import { CheckboxField, describedBy, Messages, SelectField, TextField } from "../ui/field.tsx";
import { getIn } from "../ui/paths.ts";
import { fieldId, useProfileForm } from "./profile-context.ts";

/** A group of fields under a legend, as a card. */
export function Section({ legend, hint, children }: { legend: string; hint?: string; children: ReactNode }) {
  return (
    <fieldset className="card min-w-0">
      <legend className="float-left mb-4 w-full text-lg font-semibold text-neutral-900 dark:text-neutral-100">
        {legend}
      </legend>
      {hint ? <p className="clear-left -mt-2 mb-4 field-hint">{hint}</p> : null}
      <div className="clear-left grid gap-4 sm:grid-cols-2">{children}</div>
    </fieldset>
  );
}

export interface PathProps {
  path: string;
  label: string;
  hint?: ReactNode;
  optional?: boolean;
  autoComplete?: string;
  /** Spans both columns of the section's grid. */
  wide?: boolean;
  /**
   * One of the details the identity check compares with the document (decision 085): read-only,
   * with the form's sentence saying why, once the check has started.
   */
  identity?: boolean;
}

export function PathTextField(
  { path, wide, identity, ...field }: PathProps & {
    type?: "text" | "date" | "tel" | "url" | "email";
    inputMode?: "decimal" | "numeric" | "tel" | "url" | "email" | "text";
    placeholder?: string;
  },
) {
  const { values, fields, set, bound } = useProfileForm();
  const locked = identity && bound !== undefined;
  return (
    <TextField
      {...field}
      {...(locked ? { readOnly: true, hint: bound } : {})}
      id={fieldId(path)}
      name={path}
      fieldClassName={wide ? "sm:col-span-2" : undefined}
      value={String(getIn(values, path) ?? "")}
      onChange={(event) => set(path, event.currentTarget.value)}
      error={fields[path]}
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

export function PathSelectField(
  { path, wide, identity, options, placeholder = "Select…", ...field }: PathProps & {
    options: readonly Option[];
    placeholder?: string;
  },
) {
  const { values, fields, set, bound } = useProfileForm();
  const value = String(getIn(values, path) ?? "");
  if (identity && bound !== undefined) {
    // A select cannot be read-only (disabled would take it out of the Tab order and out of what a
    // screen reader reads): its saved choice is shown as a read-only text, and posted unchanged.
    const saved = options.find((o) => optionValue(o) === value);
    return (
      <TextField
        {...field}
        hint={bound}
        readOnly
        id={fieldId(path)}
        name={path}
        fieldClassName={wide ? "sm:col-span-2" : undefined}
        value={saved ? optionLabel(saved) : value}
        error={fields[path]}
      />
    );
  }
  return (
    <SelectField
      {...field}
      id={fieldId(path)}
      name={path}
      required={!field.optional}
      fieldClassName={wide ? "sm:col-span-2" : undefined}
      value={value}
      onChange={(event) => set(path, event.currentTarget.value)}
      error={fields[path]}
    >
      <option value="">{placeholder}</option>
      {withSaved(options, [value]).map((o) => (
        <option key={optionValue(o)} value={optionValue(o)}>{optionLabel(o)}</option>
      ))}
    </SelectField>
  );
}

/** A yes/no question as one checkbox (the value is true or false). */
export function PathCheckbox({ path, label, hint }: { path: string; label: string; hint?: ReactNode }) {
  const { values, fields, set } = useProfileForm();
  return (
    <CheckboxField
      id={fieldId(path)}
      name={path}
      label={label}
      hint={hint}
      error={fields[path]}
      className="sm:col-span-2"
      checked={getIn(values, path) === true}
      onChange={(event) => set(path, event.currentTarget.checked)}
    />
  );
}

/** A list of texts chosen with checkboxes (at least one, says the server). */
export function CheckboxList(
  { path, legend, hint, options }: { path: string; legend: string; hint?: ReactNode; options: readonly string[] },
) {
  const { values, fields, set } = useProfileForm();
  const id = fieldId(path);
  const chosen = (getIn(values, path) as string[] | undefined) ?? [];
  // A message about the list or about one of its entries ("purpose.0") shows under the group.
  const error = fields[path] ?? Object.entries(fields).find(([key]) => key.startsWith(`${path}.`))?.[1];
  const toggle = (option: string, on: boolean) =>
    set(path, on ? [...chosen.filter((v) => v !== option), option] : chosen.filter((v) => v !== option));
  return (
    <fieldset id={id} className="min-w-0 sm:col-span-2" aria-describedby={describedBy(id, hint, error)}>
      <legend className="field-label">{legend}</legend>
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
                className="mt-0.5 field-checkbox"
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
const MAX_LIST_ROWS = 20;

/**
 * A repeatable list of one-line texts with Add and Remove buttons; at least one row is shown.
 * Problems: `path` (the list) under the group, `path.N` under row N.
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
  const { values, fields, set, clearProblems } = useProfileForm();
  const id = fieldId(path);
  const rows = (getIn(values, path) as string[] | undefined) ?? [];
  const shown = rows.length ? rows : [""];
  const error = fields[path];
  const focusRow = useRef<number | null>(null);

  useEffect(() => {
    if (focusRow.current === null) return;
    document.getElementById(fieldId(`${path}.${focusRow.current}`))?.focus();
    focusRow.current = null;
  });

  const replace = (next: string[], focus: number) => {
    // Rows moved: a message about row N would now sit under another row.
    clearProblems(path);
    focusRow.current = focus;
    set(path, next);
  };

  return (
    <fieldset id={id} className="min-w-0 sm:col-span-2" aria-describedby={describedBy(id, hint, error)}>
      <legend className="field-label">{legend}</legend>
      <Messages id={id} hint={hint} error={error} />
      <ol className="mt-2 flex flex-col gap-3">
        {shown.map((row, index) => {
          const rowPath = `${path}.${index}`;
          const rowId = fieldId(rowPath);
          const rowError = fields[rowPath];
          return (
            <li key={index}>
              <label htmlFor={rowId} className="field-label">
                {itemLabel}
                {shown.length > 1 ? <span className="sr-only">{` ${index + 1} of ${shown.length}`}</span> : null}
              </label>
              <div className="mt-1 flex items-start gap-2">
                <input
                  id={rowId}
                  name={rowPath}
                  type="text"
                  autoComplete="off"
                  required
                  aria-invalid={rowError ? true : undefined}
                  aria-describedby={rowError ? `${rowId}-error` : undefined}
                  value={row}
                  onChange={(event) => set(rowPath, event.currentTarget.value)}
                  className="field-control"
                />
                <button
                  type="button"
                  className="btn-ghost shrink-0"
                  aria-label={`${removeLabel} ${index + 1}`}
                  disabled={shown.length <= 1}
                  onClick={() => replace(shown.filter((_, i) => i !== index), Math.max(0, index - 1))}
                >
                  Remove
                </button>
              </div>
              {rowError ? <p id={`${rowId}-error`} className="mt-1 field-error">{rowError}</p> : null}
            </li>
          );
        })}
      </ol>
      <button
        type="button"
        className="btn-outline mt-3"
        disabled={shown.length >= MAX_LIST_ROWS}
        onClick={() => replace([...shown, ""], shown.length)}
      >
        {addLabel}
      </button>
    </fieldset>
  );
}
