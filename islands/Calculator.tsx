import { type FormEvent, type ReactNode, useEffect, useRef, useState } from "react";
import { api, errorText, isAbort } from "./lib/api.ts";

/** A currency of GET currencies. */
export interface CalculatorCurrency {
  code: string;
  name: string;
  minor_units: number;
}

/** The GET quote answer (docs/API.md, "Money"). */
export interface QuoteAnswer {
  sell_currency: string;
  buy_currency: string;
  /** Decimal strings with each currency's digits; sell_amount includes the fee. */
  sell_amount: string;
  buy_amount: string;
  mid_rate: string;
  rate: string;
  fee: string;
  fee_currency: string;
  expires_at: string;
}

export type Fixed = "sell" | "buy";

export interface CalculatorProps {
  currencies: CalculatorCurrency[];
  /** What the page was asked for; `amount` is on the `fixed` side. */
  initial: { sell: string; buy: string; amount: string; fixed: Fixed };
  signedIn: boolean;
  /** The server's quote for `initial`, so the page is complete without JavaScript. */
  quote: QuoteAnswer | null;
  rates: { as_of: string; source: string; indicative: boolean };
}

/** How long typing must pause before a quote is asked for. */
export const QUOTE_DEBOUNCE_MS = 250;
/** A read cut by another island's write (the request batch) is asked again, at most this often. */
const MAX_ABORT_RETRIES = 3;

/** Where "Convert now" and "Sign in to convert" go. */
export const CONVERT_PATH = "/account/convert";
export const SIGN_IN_PATH = "/#sign-in";

const LABEL = "block text-sm font-medium text-neutral-800 dark:text-neutral-200";
const CONTROL =
  "rounded-md border border-neutral-500 bg-white px-3 py-2 focus:outline-2 focus:outline-primary-600 aria-[invalid=true]:border-red-600 dark:bg-neutral-950 dark:aria-[invalid=true]:border-red-400";

/** "Rates as of 2026-11-20 (ecb)" / "(admin, indicative)"; the word is not repeated when the source is "indicative". */
export function ratesLine({ as_of, source, indicative }: CalculatorProps["rates"]): string {
  const marks = [source, indicative && source !== "indicative" ? "indicative" : ""].filter(Boolean).join(", ");
  return `Rates as of ${as_of}${marks ? ` (${marks})` : ""}`;
}

/**
 * The public currency calculator. Typing in "You send" fixes the sell side, typing in "They
 * receive" fixes the buy side; the other side fills from GET quote, asked QUOTE_DEBOUNCE_MS after
 * typing stops, with the previous request aborted. A 422 shows its text under the amounts.
 */
export default function Calculator({ currencies, initial, signedIn, quote: firstQuote, rates }: CalculatorProps) {
  // Not forms.tsx's useHydrated: that chunk would cost /calculator its JavaScript budget.
  const [hydrated, setHydrated] = useState(false);
  const [sell, setSell] = useState(initial.sell);
  const [buy, setBuy] = useState(initial.buy);
  const [fixed, setFixed] = useState<Fixed>(initial.fixed);
  const [send, setSend] = useState(initial.fixed === "sell" ? initial.amount : firstQuote?.sell_amount ?? "");
  const [receive, setReceive] = useState(initial.fixed === "buy" ? initial.amount : firstQuote?.buy_amount ?? "");
  const [quote, setQuote] = useState<QuoteAnswer | null>(firstQuote);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);

  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const inFlight = useRef<AbortController | null>(null);

  /** Stops the waiting timer and the request in flight. */
  function cancel() {
    clearTimeout(timer.current);
    timer.current = undefined;
    inFlight.current?.abort();
    inFlight.current = null;
  }

  async function fetchQuote(query: { sell: string; buy: string; amount: string; fixed: Fixed }, retries = 0) {
    const controller = new AbortController();
    inFlight.current = controller;
    try {
      const answer = await api.get<QuoteAnswer>("quote", query, { signal: controller.signal });
      if (controller.signal.aborted) return;
      inFlight.current = null;
      setQuote(answer);
      setError(null);
      if (query.fixed === "sell") setReceive(answer.buy_amount);
      else setSend(answer.sell_amount);
      setLoading(false);
    } catch (err) {
      if (controller.signal.aborted) return; // a newer request took over
      if (isAbort(err) && retries < MAX_ABORT_RETRIES) return fetchQuote(query, retries + 1);
      inFlight.current = null;
      setLoading(false);
      setQuote(null);
      if (query.fixed === "sell") setReceive("");
      else setSend("");
      setError(errorText(err));
    }
  }

  /** Asks for a quote after `delay` ms (the previous one, waiting or in flight, is dropped). */
  function requestQuote(next: { sell: string; buy: string; amount: string; fixed: Fixed }, delay: number) {
    cancel();
    const amount = next.amount.trim();
    if (!amount) {
      // Nothing to price: empty the other side, no error.
      setLoading(false);
      setError(null);
      setQuote(null);
      if (next.fixed === "sell") setReceive("");
      else setSend("");
      return;
    }
    setLoading(true);
    const query = { ...next, amount };
    if (delay > 0) timer.current = setTimeout(() => void fetchQuote(query), delay);
    else void fetchQuote(query);
  }

  // Once, on mount. Without a server quote (it failed, or none was asked for), ask for one now.
  useEffect(() => {
    setHydrated(true);
    const amount = initial.fixed === "sell" ? send : receive;
    if (!firstQuote && amount.trim()) requestQuote({ sell, buy, amount, fixed }, 0);
    return cancel;
  }, []);

  const current = (over: Partial<{ sell: string; buy: string; fixed: Fixed }> = {}) => {
    const f = over.fixed ?? fixed;
    return { sell: over.sell ?? sell, buy: over.buy ?? buy, fixed: f, amount: f === "sell" ? send : receive };
  };

  function typeSend(value: string) {
    setSend(value);
    setFixed("sell");
    requestQuote({ sell, buy, amount: value, fixed: "sell" }, QUOTE_DEBOUNCE_MS);
  }

  function typeReceive(value: string) {
    setReceive(value);
    setFixed("buy");
    requestQuote({ sell, buy, amount: value, fixed: "buy" }, QUOTE_DEBOUNCE_MS);
  }

  /** Both sides with the same currency make no sense: choosing the other side's currency swaps them. */
  function chooseSell(code: string) {
    if (code === buy) return swap();
    setSell(code);
    requestQuote(current({ sell: code }), 0);
  }

  function chooseBuy(code: string) {
    if (code === sell) return swap();
    setBuy(code);
    requestQuote(current({ buy: code }), 0);
  }

  /** Swaps the two columns: currencies, amounts and the fixed side, so the typed amount keeps its currency. */
  function swap() {
    const nextFixed: Fixed = fixed === "sell" ? "buy" : "sell";
    setSell(buy);
    setBuy(sell);
    setSend(receive);
    setReceive(send);
    setFixed(nextFixed);
    requestQuote({ sell: buy, buy: sell, fixed: nextFixed, amount: fixed === "sell" ? send : receive }, 0);
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    requestQuote(current(), 0);
  }

  const shown = quote && quote.sell_currency === sell && quote.buy_currency === buy ? quote : null;
  const options = currencies.map((c) => <option key={c.code} value={c.code}>{`${c.code} · ${c.name}`}</option>);

  return (
    <form onSubmit={submit} aria-label="Currency calculator" className="space-y-5" noValidate>
      <div className="grid gap-4 sm:grid-cols-[1fr_auto_1fr] sm:items-end">
        <Side
          amountId="calc-send"
          amountLabel="You send"
          amount={send}
          onAmount={typeSend}
          currencyId="calc-sell"
          currencyLabel="Currency to send"
          currency={sell}
          onCurrency={chooseSell}
          options={options}
          invalid={!!error && fixed === "sell"}
          describedBy={error ? "calc-error" : undefined}
        />
        <button
          type="button"
          onClick={swap}
          disabled={!hydrated}
          aria-label="Swap currencies"
          title="Swap currencies"
          className="btn-ghost justify-self-center border border-neutral-300 dark:border-neutral-700"
        >
          <span aria-hidden="true">⇄</span>
        </button>
        <Side
          amountId="calc-receive"
          amountLabel="They receive"
          amount={receive}
          onAmount={typeReceive}
          currencyId="calc-buy"
          currencyLabel="Currency to receive"
          currency={buy}
          onCurrency={chooseBuy}
          options={options}
          invalid={!!error && fixed === "buy"}
          describedBy={error ? "calc-error" : undefined}
        />
      </div>

      <div
        id="calc-error"
        role="alert"
        className={error ? "text-sm font-medium text-red-700 dark:text-red-300" : undefined}
      >
        {error}
      </div>

      <dl
        aria-live="polite"
        aria-atomic="true"
        aria-busy={loading || undefined}
        className={`grid grid-cols-[auto_1fr] gap-x-6 gap-y-2 rounded-lg bg-neutral-50 p-4 text-sm dark:bg-neutral-900 ${
          loading ? "opacity-70" : ""
        }`}
      >
        <dt className="text-neutral-600 dark:text-neutral-400">Mid-market rate</dt>
        <dd className="text-right tabular-nums">{shown ? `1 ${sell} = ${shown.mid_rate} ${buy}` : "—"}</dd>
        <dt className="text-neutral-600 dark:text-neutral-400">Our rate</dt>
        <dd className="text-right tabular-nums">{shown ? `1 ${sell} = ${shown.rate} ${buy}` : "—"}</dd>
        <dt className="text-neutral-600 dark:text-neutral-400">Fee</dt>
        <dd className="text-right tabular-nums">{shown ? `${shown.fee} ${shown.fee_currency}` : "—"}</dd>
        {fixed === "sell"
          ? (
            <>
              <dt className="font-semibold">They receive</dt>
              <dd className="text-right text-base font-semibold tabular-nums">
                {shown ? `${shown.buy_amount} ${shown.buy_currency}` : "—"}
              </dd>
            </>
          )
          : (
            <>
              <dt className="font-semibold">You send</dt>
              <dd className="text-right text-base font-semibold tabular-nums">
                {shown ? `${shown.sell_amount} ${shown.sell_currency}` : "—"}
              </dd>
            </>
          )}
      </dl>

      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-xs text-neutral-600 dark:text-neutral-400">{ratesLine(rates)}</p>
        <a className="btn-primary" href={signedIn ? CONVERT_PATH : SIGN_IN_PATH}>
          {signedIn ? "Convert now" : "Sign in to convert"}
        </a>
      </div>
    </form>
  );
}

/** One side of the calculator: an amount above its currency. */
function Side(props: {
  amountId: string;
  amountLabel: string;
  amount: string;
  onAmount: (value: string) => void;
  currencyId: string;
  currencyLabel: string;
  currency: string;
  onCurrency: (code: string) => void;
  options: ReactNode;
  invalid: boolean;
  describedBy: string | undefined;
}) {
  return (
    <div className="space-y-2">
      <label htmlFor={props.amountId} className={LABEL}>{props.amountLabel}</label>
      <input
        id={props.amountId}
        type="text"
        inputMode="decimal"
        autoComplete="off"
        value={props.amount}
        onChange={(event) => props.onAmount(event.currentTarget.value)}
        aria-invalid={props.invalid ? true : undefined}
        aria-describedby={props.describedBy}
        className={`${CONTROL} block w-full text-lg tabular-nums`}
      />
      <label htmlFor={props.currencyId} className="sr-only">{props.currencyLabel}</label>
      <select
        id={props.currencyId}
        value={props.currency}
        onChange={(event) => props.onCurrency(event.currentTarget.value)}
        className={`${CONTROL} block w-full`}
      >
        {props.options}
      </select>
    </div>
  );
}
