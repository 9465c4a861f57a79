/** Choosing a currency: "GBP · Pound Sterling" for each one offered. */
import type { SelectHTMLAttributes } from "react";
import { SelectField } from "./field.tsx";
import type { FieldProps } from "./field.tsx";

export interface CurrencyOption {
  code: string;
  name: string;
}

/** The options alone, for a select drawn elsewhere. */
export function CurrencyOptions({ currencies }: { currencies: readonly CurrencyOption[] }) {
  return <>{currencies.map((c) => <option key={c.code} value={c.code}>{`${c.code} · ${c.name}`}</option>)}</>;
}

export function CurrencySelect(
  { currencies, fieldClassName, ...select }:
    & Omit<FieldProps, "children" | "className">
    & { currencies: readonly CurrencyOption[]; fieldClassName?: string }
    & Omit<SelectHTMLAttributes<HTMLSelectElement>, "id" | "children">,
) {
  return (
    <SelectField {...select} fieldClassName={fieldClassName}>
      <CurrencyOptions currencies={currencies} />
    </SelectField>
  );
}
