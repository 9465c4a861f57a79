/**
 * A form field: its label, its control, a hint and the field's problem, tied together for screen
 * readers (aria-describedby names the hint, then the problem; aria-invalid marks the control). Every
 * island's fields are drawn by these, with the look of styles.css (field-*).
 *
 * Ids are given by each form, not made with useId: an island is rendered on the server deep inside
 * the page's tree but hydrated as a root of its own, so useId would differ between the two.
 */
import { forwardRef, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes } from "react";

/** The ids a control points at with aria-describedby: its hint, then its problem. */
export function describedBy(id: string, hint: unknown, error: unknown): string | undefined {
  return [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
}

/** The attributes that tie a control to its label, hint and problem. */
export interface ControlAttributes {
  id: string;
  "aria-invalid"?: true;
  "aria-describedby"?: string;
}

export function controlAttributes(id: string, hint?: unknown, error?: unknown): ControlAttributes {
  return { id, "aria-invalid": error ? true : undefined, "aria-describedby": describedBy(id, hint, error) };
}

/** The hint and the problem under a control (or a group of them). */
export function Messages({ id, hint, error }: { id: string; hint?: ReactNode; error?: string | null }) {
  return (
    <>
      {hint ? <p id={`${id}-hint`} className="mt-1 field-hint">{hint}</p> : null}
      {error ? <p id={`${id}-error`} className="mt-1 field-error">{error}</p> : null}
    </>
  );
}

export function Optional() {
  return <span className="font-normal text-neutral-600 dark:text-neutral-300">(optional)</span>;
}

export interface FieldProps {
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  error?: string | null;
  /** Says "(optional)" after the label. */
  optional?: boolean;
  /** The label for screen readers only (the table's header or a placeholder shows it). */
  hideLabel?: boolean;
  className?: string;
  /** Draws the control with the attributes that tie it to the label, hint and problem. */
  children: (control: ControlAttributes) => ReactNode;
}

export function Field({ id, label, hint, error, optional, hideLabel, className, children }: FieldProps) {
  return (
    <div className={className}>
      <label htmlFor={id} className={hideLabel ? "sr-only" : "mb-1 field-label"}>
        {label}
        {optional ? " " : null}
        {optional ? <Optional /> : null}
      </label>
      {children(controlAttributes(id, hint, error))}
      <Messages id={id} hint={hint} error={error} />
    </div>
  );
}

type Common = Omit<FieldProps, "children" | "className"> & { fieldClassName?: string };

/**
 * A labelled text input; the rest of the props go to the <input>, and its ref (forwardRef: the
 * islands run on preact/compat, decision 033, which passes a function component's ref on only so).
 */
export const TextField = forwardRef<
  HTMLInputElement,
  & Common
  & Omit<InputHTMLAttributes<HTMLInputElement>, "id">
>(function TextField({ id, label, hint, error, optional, hideLabel, fieldClassName, className, ...input }, ref) {
  return (
    <Field {...{ id, label, hint, error, optional, hideLabel }} className={fieldClassName}>
      {(control) => (
        <input
          ref={ref}
          required={!optional}
          {...control}
          {...input}
          className={className ? `field-control ${className}` : "field-control"}
        />
      )}
    </Field>
  );
});

/** A labelled select; the rest of the props go to the <select> (its ref too), the options are its children. */
export const SelectField = forwardRef<
  HTMLSelectElement,
  & Common
  & Omit<SelectHTMLAttributes<HTMLSelectElement>, "id">
>(function SelectField(
  { id, label, hint, error, optional, hideLabel, fieldClassName, className, children, ...select },
  ref,
) {
  return (
    <Field {...{ id, label, hint, error, optional, hideLabel }} className={fieldClassName}>
      {(control) => (
        <select
          ref={ref}
          {...control}
          {...select}
          className={className ? `field-control ${className}` : "field-control"}
        >
          {children}
        </select>
      )}
    </Field>
  );
});

/** A yes/no question as one checkbox after its label; the rest of the props go to the <input> (its ref too). */
export const CheckboxField = forwardRef<
  HTMLInputElement,
  & Omit<FieldProps, "children" | "optional" | "hideLabel">
  & Omit<InputHTMLAttributes<HTMLInputElement>, "id" | "type">
>(function CheckboxField({ id, label, hint, error, className, ...input }, ref) {
  return (
    <div className={className}>
      <div className="flex items-start gap-3">
        <input
          ref={ref}
          type="checkbox"
          {...input}
          {...controlAttributes(id, hint, error)}
          className="mt-0.5 field-checkbox"
        />
        <label htmlFor={id} className="text-sm text-neutral-900 dark:text-neutral-100">{label}</label>
      </div>
      <div className="pl-7">
        <Messages id={id} hint={hint} error={error} />
      </div>
    </div>
  );
});
