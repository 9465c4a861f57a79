/**
 * One side of the conversion: its currency, then its amount (placeholder and hidden label alike),
 * an optional hint, and the problems that name it. The amount's problem shows on the side that is
 * fixed.
 */
import { AmountInput } from "../ui/amount.tsx";
import { CurrencySelect } from "../ui/currency-select.tsx";
import type { Currency } from "./calls.ts";

export function ConvertSide(props: {
  legend: string;
  currencyId: string;
  currencyLabel: string;
  currency: string;
  onCurrency: (code: string) => void;
  currencyError: string | undefined;
  currencies: readonly Currency[];
  amountId: string;
  amountLabel: string;
  amount: string;
  onAmount: (value: string) => void;
  amountError: string | undefined;
  hint?: string;
}) {
  return (
    <fieldset className="space-y-2">
      <legend className="field-label">{props.legend}</legend>
      <CurrencySelect
        id={props.currencyId}
        label={props.currencyLabel}
        hideLabel
        currencies={props.currencies}
        value={props.currency}
        onChange={(event) => props.onCurrency(event.currentTarget.value)}
        error={props.currencyError}
      />
      <AmountInput
        id={props.amountId}
        label={props.amountLabel}
        hideLabel
        placeholder={props.amountLabel}
        required={false}
        value={props.amount}
        onChange={(event) => props.onAmount(event.currentTarget.value)}
        hint={props.hint}
        error={props.amountError}
        className="text-lg"
      />
    </fieldset>
  );
}
