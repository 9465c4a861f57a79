import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { inCurrency } from "./lib/amounts.ts";
import { errorText } from "./lib/api.ts";
import { withQueries } from "./lib/query-client.tsx";
import { quoteKeys } from "./lib/query-keys.ts";
import { CalculatorSide } from "./money/calculator-side.tsx";
import { PriceList } from "./money/price-list.tsx";
import { type Currency, type Fixed, type Quote, quoteQuery, type QuoteRequest, type Rates } from "./money/calls.ts";
import { useHydrated } from "./ui/submit-button.tsx";

export interface CalculatorProps {
  currencies: Currency[];
  /** What the page was asked for; `amount` is on the `fixed` side. */
  initial: QuoteRequest;
  signedIn: boolean;
  /** The server's quote for `initial`, so the page is complete without JavaScript. */
  quote: Quote | null;
  rates: Pick<Rates, "as_of" | "source" | "indicative">;
}

/** How long typing must pause before a quote is asked for. */
export const QUOTE_DEBOUNCE_MS = 250;

/** Where "Convert now" and "Sign in to convert" go. */
export const CONVERT_PATH = "/account/convert";

/**
 * "Convert now" carries what the calculator shows (the pair, the amount and which side it is on),
 * so the convert page starts from it (routes/pages/money.tsx reads it, ignoring what is not valid).
 * A visitor not signed in goes the same way: the page sends them to sign in and, once signed in,
 * /auth brings them back to it (server/guards.ts AFTER_SIGN_IN).
 */
export function convertHref({ sell, buy, fixed, amount }: { sell: string; buy: string; fixed: Fixed; amount: string }) {
  const query = new URLSearchParams({ sell, buy, fixed });
  if (amount.trim()) query.set("amount", amount.trim());
  return `${CONVERT_PATH}?${query}`;
}

/** "Rates as of 2026-11-20 (ecb)" / "(admin, indicative)"; the word is not repeated when the source is "indicative". */
export function ratesLine({ as_of, source, indicative }: CalculatorProps["rates"]): string {
  const marks = [source, indicative && source !== "indicative" ? "indicative" : ""].filter(Boolean).join(", ");
  return `Rates as of ${as_of}${marks ? ` (${marks})` : ""}`;
}

const same = (a: QuoteRequest, b: QuoteRequest) =>
  a.sell === b.sell && a.buy === b.buy && a.amount === b.amount && a.fixed === b.fixed;

/**
 * The public currency calculator. Typing in "You send" fixes the sell side, typing in "They
 * receive" fixes the buy side; the other side shows the price (GET quote), asked QUOTE_DEBOUNCE_MS
 * after typing stops. A keystroke cancels the price being asked for, which no longer says what was
 * typed. A 422 shows its text under the amounts.
 */
function Calculator({ currencies, initial, signedIn, quote: firstQuote, rates }: CalculatorProps) {
  const hydrated = useHydrated();
  const queries = useQueryClient();
  const [sell, setSell] = useState(initial.sell);
  const [buy, setBuy] = useState(initial.buy);
  const [fixed, setFixed] = useState<Fixed>(initial.fixed);
  /** What was typed, on the fixed side. */
  const [amount, setAmount] = useState(initial.amount);
  /** The price asked for: what was typed once typing paused; null with no amount. */
  const [asked, setAsked] = useState<QuoteRequest | null>(initial.amount.trim() ? initial : null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const quote = useQuery({
    ...quoteQuery(asked ?? initial),
    enabled: asked !== null,
    initialData: asked && same(asked, initial) ? firstQuote ?? undefined : undefined,
    // While a new price is on its way, the last one stays (dimmed).
    placeholderData: keepPreviousData,
  });

  /** Asks for the price of `next` after `delay` ms; nothing to price without an amount. */
  function ask(next: { sell: string; buy: string; fixed: Fixed; amount: string }, delay: number) {
    clearTimeout(timer.current);
    void queries.cancelQueries({ queryKey: quoteKeys.all });
    const request = { ...next, amount: next.amount.trim() };
    if (!request.amount || delay === 0) setAsked(request.amount ? request : null);
    else timer.current = setTimeout(() => setAsked(request), delay);
  }

  function type(side: Fixed, value: string) {
    setAmount(value);
    setFixed(side);
    ask({ sell, buy, fixed: side, amount: value }, QUOTE_DEBOUNCE_MS);
  }

  /**
   * Shows and prices `next`: the typed amount is written again with the decimal places of the
   * currency now on its side (1000.00 GBP is 1000 in JPY), else the calculator would refuse its
   * own amount.
   */
  function choose(next: { sell: string; buy: string; fixed: Fixed }) {
    const typed = inCurrency(next.fixed === "sell" ? next.sell : next.buy, amount);
    setSell(next.sell);
    setBuy(next.buy);
    setFixed(next.fixed);
    setAmount(typed);
    ask({ ...next, amount: typed }, 0);
  }

  /** Swaps the two columns: currencies and the fixed side, so the typed amount keeps its currency. */
  function swap() {
    choose({ sell: buy, buy: sell, fixed: fixed === "sell" ? "buy" : "sell" });
  }

  /** Both sides with the same currency make no sense: choosing the other side's currency swaps them. */
  function chooseSell(code: string) {
    if (code === buy) return swap();
    choose({ sell: code, buy, fixed });
  }

  function chooseBuy(code: string) {
    if (code === sell) return swap();
    choose({ sell, buy: code, fixed });
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    ask({ sell, buy, fixed, amount }, 0);
  }

  const error = asked && quote.isError ? errorText(quote.error) : null;
  const data = asked && !quote.isError ? quote.data : undefined;
  const shown = data && data.sell_currency === sell && data.buy_currency === buy ? data : null;
  const loading = asked !== null && quote.isFetching;
  const describedBy = error ? "calc-error" : undefined;

  return (
    <form onSubmit={submit} aria-label="Currency calculator" className="space-y-5" noValidate>
      <div className="grid gap-4 sm:grid-cols-[1fr_auto_1fr] sm:items-end">
        <CalculatorSide
          amountId="calc-send"
          amountLabel="You send"
          amount={fixed === "sell" ? amount : shown?.sell_amount ?? ""}
          onAmount={(value) => type("sell", value)}
          currencyId="calc-sell"
          currencyLabel="Currency to send"
          currency={sell}
          onCurrency={chooseSell}
          currencies={currencies}
          invalid={!!error && fixed === "sell"}
          errorId={describedBy}
        />
        <button
          type="button"
          onClick={swap}
          disabled={!hydrated}
          aria-label="Swap currencies"
          title="Swap currencies"
          className="btn-outline justify-self-center"
        >
          <span aria-hidden="true">⇄</span>
        </button>
        <CalculatorSide
          amountId="calc-receive"
          amountLabel="They receive"
          amount={fixed === "buy" ? amount : shown?.buy_amount ?? ""}
          onAmount={(value) => type("buy", value)}
          currencyId="calc-buy"
          currencyLabel="Currency to receive"
          currency={buy}
          onCurrency={chooseBuy}
          currencies={currencies}
          invalid={!!error && fixed === "buy"}
          errorId={describedBy}
        />
      </div>

      <div id="calc-error" role="alert" className={error ? "field-error" : undefined}>{error}</div>

      <PriceList
        price={shown}
        sell={sell}
        buy={buy}
        last={fixed === "sell" ? { label: "They receive", side: "buy" } : { label: "You send", side: "sell" }}
        aria-live="polite"
        aria-atomic="true"
        aria-busy={loading || undefined}
        className={`rounded-lg bg-neutral-50 p-4 dark:bg-neutral-900 ${loading ? "opacity-70" : ""}`}
      />

      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-xs text-neutral-600 dark:text-neutral-400">{ratesLine(rates)}</p>
        <a className="btn-primary" href={convertHref({ sell, buy, fixed, amount })}>
          {signedIn ? "Convert now" : "Sign in to convert"}
        </a>
      </div>
    </form>
  );
}

export default withQueries(Calculator);
