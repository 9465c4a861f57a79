/** One side of the public calculator: an amount above its currency. */
import { AmountInput } from "../ui/amount.tsx";
import { CurrencySelect } from "../ui/currency-select.tsx";
import type { Currency } from "./calls.ts";

export function CalculatorSide(props: {
  amountId: string;
  amountLabel: string;
  amount: string;
  onAmount: (value: string) => void;
  currencyId: string;
  currencyLabel: string;
  currency: string;
  onCurrency: (code: string) => void;
  currencies: readonly Currency[];
  /** The problem of the amount, shown once below the two sides (its id is `errorId`). */
  invalid: boolean;
  errorId: string | undefined;
}) {
  return (
    <div className="space-y-2">
      <AmountInput
        id={props.amountId}
        label={props.amountLabel}
        required={false}
        value={props.amount}
        onChange={(event) => props.onAmount(event.currentTarget.value)}
        aria-invalid={props.invalid || undefined}
        aria-describedby={props.errorId}
        className="text-lg"
      />
      <CurrencySelect
        id={props.currencyId}
        label={props.currencyLabel}
        hideLabel
        currencies={props.currencies}
        value={props.currency}
        onChange={(event) => props.onCurrency(event.currentTarget.value)}
      />
    </div>
  );
}
