/**
 * The full price of a conversion, as the calculator and the convert form show it, in one component
 * so that both say the same: the mid-market rate, our rate, what our markup on the rate costs in
 * money, the fee, and the amounts ("1 GBP = 1.170000 EUR" as everywhere). Without a price (nothing
 * typed yet, or a refused amount) each value is a dash.
 */
import type { DetailedHTMLProps, HTMLAttributes } from "react";
import type { Quote } from "./calls.ts";

// Labels wrap, values never do: on a phone "1 GBP = 1.137656 EUR" stays on one line.
const TERM = "text-neutral-600 dark:text-neutral-400";

type Price = Pick<
  Quote,
  | "sell_currency"
  | "buy_currency"
  | "sell_amount"
  | "buy_amount"
  | "mid_rate"
  | "rate"
  | "markup"
  | "fee"
  | "fee_currency"
>;

/** An amount row: its label, and which side's amount it shows. */
export interface AmountLine {
  label: string;
  side: "sell" | "buy";
}

const amountOf = (price: Price, side: AmountLine["side"]) =>
  side === "sell" ? `${price.sell_amount} ${price.sell_currency}` : `${price.buy_amount} ${price.buy_currency}`;

export function PriceList({ price, sell, buy, first, last, className = "", ...list }: {
  price: Price | null;
  /** The currencies chosen: the rates' words while there is no price yet. */
  sell: string;
  buy: string;
  /** An amount shown before the rates ("You sell"). */
  first?: AmountLine;
  /** The amount that matters most, last and bold ("They receive"). */
  last: AmountLine;
} & DetailedHTMLProps<HTMLAttributes<HTMLDListElement>, HTMLDListElement>) {
  const dash = "—";
  return (
    <dl className={`grid grid-cols-[minmax(0,1fr)_auto] gap-x-4 gap-y-2 text-sm ${className}`} {...list}>
      {first && (
        <>
          <dt className={TERM}>{first.label}</dt>
          <dd className="text-right font-semibold whitespace-nowrap tabular-nums">
            {price ? amountOf(price, first.side) : dash}
          </dd>
        </>
      )}
      <dt className={TERM}>Mid-market rate</dt>
      <dd className="text-right whitespace-nowrap tabular-nums">
        {price ? `1 ${sell} = ${price.mid_rate} ${buy}` : dash}
      </dd>
      <dt className={TERM}>Our rate</dt>
      <dd className="text-right whitespace-nowrap tabular-nums">{price ? `1 ${sell} = ${price.rate} ${buy}` : dash}</dd>
      <dt className={TERM}>Our markup on the rate</dt>
      <dd className="text-right whitespace-nowrap tabular-nums">
        {price ? `${price.markup} ${price.sell_currency}` : dash}
      </dd>
      <dt className={TERM}>Fee</dt>
      <dd className="text-right whitespace-nowrap tabular-nums">
        {price ? `${price.fee} ${price.fee_currency}` : dash}
      </dd>
      <dt className="font-semibold">{last.label}</dt>
      <dd className="text-right text-base font-semibold whitespace-nowrap tabular-nums">
        {price ? amountOf(price, last.side) : dash}
      </dd>
    </dl>
  );
}
