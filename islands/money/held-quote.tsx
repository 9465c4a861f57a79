/**
 * The quote held for the customer: what they sell and receive, the rates, the markup and the fee
 * (the calculator's PriceList), the seconds left, and Confirm (or, once it has run out, "Get a new quote").
 */
import { focusLost, useTakeFocus } from "../ui/take-focus.ts";
import type { HeldQuote } from "./calls.ts";
import { PriceList } from "./price-list.tsx";
import { BusyButton } from "../ui/submit-button.tsx";

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
  // It replaces "Get a quote": if that had the keyboard, the quote takes it (typing Enter in an
  // amount leaves it there).
  const heading = useTakeFocus<HTMLHeadingElement>(focusLost);
  return (
    <section
      aria-labelledby="convert-quote-title"
      className="space-y-4 rounded-lg bg-neutral-50 p-4 dark:bg-neutral-900"
    >
      <h2 ref={heading} tabIndex={-1} id="convert-quote-title" className="text-base font-semibold">Your quote</h2>
      <PriceList
        price={quote}
        sell={quote.sell_currency}
        buy={quote.buy_currency}
        first={{ label: "You sell", side: "sell" }}
        last={{ label: "You receive", side: "buy" }}
      />
      <p className="text-xs text-neutral-600 dark:text-neutral-400">
        The fee and the markup are included in what you sell.
      </p>
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
        <BusyButton
          type="button"
          className="btn-primary"
          onClick={onConfirm}
          disabled={!hydrated || expired}
          busy={pending !== null}
          aria-busy={pending === "confirm" || undefined}
        >
          {pending === "confirm" ? "Converting…" : "Confirm"}
        </BusyButton>
        {expired
          ? (
            <BusyButton type="submit" className="btn-outline" disabled={!hydrated} busy={pending !== null}>
              {pending === "quote" ? "Getting a quote…" : "Get a new quote"}
            </BusyButton>
          )
          : (
            <BusyButton
              type="button"
              className="btn-ghost"
              onClick={onCancel}
              busy={pending !== null}
              aria-busy={undefined}
            >
              Cancel
            </BusyButton>
          )}
      </div>
    </section>
  );
}
