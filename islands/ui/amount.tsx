/**
 * Amounts as the API writes them: decimal strings with the currency's digits, never numbers (a
 * float would round them). An amount is typed in AmountInput and shown with Amount.
 */
import type { InputHTMLAttributes } from "react";
import { Field, type FieldProps } from "./field.tsx";

/** "100.00 GBP", in figures that line up. */
export function Amount({ amount, currency, className }: { amount: string; currency: string; className?: string }) {
  return <span className={`whitespace-nowrap tabular-nums ${className ?? ""}`}>{`${amount} ${currency}`}</span>;
}

/**
 * A labelled amount: the decimal keypad on phones, no autofill or spelling, figures that line up.
 * What is typed stays text; the server reads it and names what is wrong with it.
 */
export function AmountInput(
  { id, label, hint, error, optional, hideLabel, fieldClassName, className, ...input }:
    & Omit<FieldProps, "children" | "className">
    & { fieldClassName?: string }
    & Omit<InputHTMLAttributes<HTMLInputElement>, "id" | "type" | "inputMode">,
) {
  return (
    <Field {...{ id, label, hint, error, optional, hideLabel }} className={fieldClassName}>
      {(control) => (
        <input
          type="text"
          inputMode="decimal"
          autoComplete="off"
          spellCheck={false}
          required={!optional}
          {...control}
          {...input}
          className={`field-control tabular-nums ${className ?? ""}`}
        />
      )}
    </Field>
  );
}
