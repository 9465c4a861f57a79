/**
 * The quote held for the customer: what they sell and receive, the rate and the fee, the seconds
 * left, and Confirm (or, once it has run out, "Get a new quote").
 */
import { Amount } from "../ui/amount.tsx";
import type { HeldQuote } from "./calls.ts";

const TERM = "text-neutral-600 dark:text-neutral-400";

export function HeldQuotePanel({ quote, left, hydrated, pending, onConfirm, onCancel }: {
  quote: HeldQuote;
  /** Seconds left; 0 once it has run out. */
  left: number;
  hydrated: boolean;
  pending: "quote" | "confirm" | null;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const expired = left === 0;
  return (
    <section
      aria-labelledby="convert-quote-title"
      className="space-y-4 rounded-lg bg-neutral-50 p-4 dark:bg-neutral-900"
    >
      <h2 id="convert-quote-title" className="text-base font-semibold">Your quote</h2>
      <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-2 text-sm">
        <dt className={TERM}>You sell</dt>
        <dd className="text-right font-semibold">
          <Amount amount={quote.sell_amount} currency={quote.sell_currency} />
        </dd>
        <dt className={TERM}>You receive</dt>
        <dd className="text-right font-semibold">
          <Amount amount={quote.buy_amount} currency={quote.buy_currency} />
        </dd>
        <dt className={TERM}>Rate</dt>
        <dd className="text-right tabular-nums">{`1 ${quote.sell_currency} = ${quote.rate} ${quote.buy_currency}`}</dd>
        <dt className={TERM}>Fee (included in what you sell)</dt>
        <dd className="text-right">
          <Amount amount={quote.fee} currency={quote.fee_currency} />
        </dd>
      </dl>
      <p
        aria-live="polite"
        aria-atomic="true"
        className={`text-sm font-medium ${
          expired ? "text-red-700 dark:text-red-300" : "text-neutral-800 dark:text-neutral-200"
        }`}
      >
        {expired ? "This quote has expired." : (
          <>
            This quote is valid for <span className="tabular-nums">{left}</span> {left === 1 ? "second" : "seconds"}.
          </>
        )}
      </p>
      <div className="flex flex-wrap gap-3">
        <button
          type="button"
          className="btn-primary"
          onClick={onConfirm}
          disabled={!hydrated || expired || pending !== null}
          aria-busy={pending === "confirm" || undefined}
        >
          {pending === "confirm" ? "Converting…" : "Confirm"}
        </button>
        {expired
          ? (
            <button type="submit" className="btn-outline" disabled={!hydrated || pending !== null}>
              {pending === "quote" ? "Getting a quote…" : "Get a new quote"}
            </button>
          )
          : (
            <button type="button" className="btn-ghost" onClick={onCancel} disabled={pending !== null}>
              Cancel
            </button>
          )}
      </div>
    </section>
  );
}
