import { type FormEvent, type ReactNode, useEffect, useState } from "react";
import { api, ApiCallError, errorText, fieldsOf, isAbort } from "./lib/api.ts";
import { FormAlert, Status } from "./lib/form-alert.tsx";
import { SubmitButton, useHydrated, useIdempotencyKey } from "./lib/forms.tsx";
import { notify } from "./lib/notifications.ts";
import { type BalanceRow as Balance, BalanceTable } from "./lib/balance-table.tsx";
import type { CalculatorCurrency, Fixed, QuoteAnswer } from "./Calculator.tsx";

export interface ConvertFormProps {
  currencies: CalculatorCurrency[];
  balances: Balance[];
  /** How long a quote is held (QUOTE_VALIDITY_SECONDS): the countdown's length. */
  validitySeconds: number;
}

/** POST account/conversions/quote: the quote with the id to confirm it by. */
export interface HeldQuote extends QuoteAnswer {
  id: string | number;
}

/** POST account/conversions. */
export interface Conversion {
  id: string | number;
  quote_id: string | number;
  sell_currency: string;
  sell_amount: string;
  buy_currency: string;
  buy_amount: string;
  rate: string;
  fee: string;
  transfer_id: string | number | null;
  created_at: string;
}

/** Dispatched on window after a conversion, so any Balances island on the page refreshes. */
export const BALANCES_CHANGED_EVENT = "portal:balances-changed";

export const QUOTE_EXPIRED = "This quote has expired. Get a new quote to convert.";
const ENTER_AMOUNT = "Enter the amount to sell or the amount to receive.";

/** Currencies offered first as what to buy. */
const USUAL_BUYS = ["EUR", "GBP", "USD"];

/**
 * When the quote runs out, on this browser's clock. The server's expires_at is on the server's
 * clock, and the two may differ by more than the whole validity, so it is not compared with
 * Date.now(). Instead: the quote was made by the server at some moment between sending the
 * request and receiving the answer, so it is valid until at least sentAt + validity. Counting from
 * sentAt (not from receivedAt) errs on the safe side by the round trip; a click in the last moment
 * that still arrives late gets the 409 path ("Get a new quote").
 */
export function quoteDeadline(sentAt: number, validitySeconds: number): number {
  return sentAt + Math.max(0, validitySeconds) * 1000;
}

/** Whole seconds left, never below zero. */
export const secondsLeft = (deadline: number, now: number): number => Math.max(0, Math.ceil((deadline - now) / 1000));

/** Decimal string → integer of minor units (digits as given, padded), or null for anything else. */
function toMinor(text: string, digits: number): bigint | null {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!m || (m[2] ?? "").length > digits) return null;
  return BigInt(m[1] + (m[2] ?? "").padEnd(digits, "0"));
}

function fromMinor(minor: bigint, digits: number): string {
  const negative = minor < 0n;
  const text = (negative ? -minor : minor).toString().padStart(digits + 1, "0");
  const out = digits ? `${text.slice(0, -digits)}.${text.slice(-digits)}` : text;
  return negative ? `-${out}` : out;
}

const decimalsOf = (text: string) => (text.split(".")[1] ?? "").length;

/** `available` plus `delta` (both decimal strings of one currency), exact; `available` if unreadable. */
export function addAmount(available: string, delta: string, sign: 1 | -1): string {
  const digits = Math.max(decimalsOf(available), decimalsOf(delta));
  const a = toMinor(available, digits);
  const d = toMinor(delta, digits);
  if (a === null || d === null) return available;
  return fromMinor(sign === 1 ? a + d : a - d, digits);
}

const hasMoney = (b: Balance) => /[1-9]/.test(b.available);

function defaultSell(balances: Balance[], currencies: CalculatorCurrency[]): string {
  return (balances.find(hasMoney) ?? balances[0])?.currency ?? currencies[0]?.code ?? "GBP";
}

function defaultBuy(sell: string, currencies: CalculatorCurrency[]): string {
  const codes = currencies.map((c) => c.code);
  return USUAL_BUYS.find((c) => c !== sell && codes.includes(c)) ?? codes.find((c) => c !== sell) ?? "";
}

const LABEL = "block text-sm font-medium text-neutral-800 dark:text-neutral-200";
const CONTROL =
  "rounded-md border border-neutral-500 bg-white px-3 py-2 focus:outline-2 focus:outline-primary-600 aria-[invalid=true]:border-red-600 dark:bg-neutral-950 dark:aria-[invalid=true]:border-red-400";
const FIELD_ERROR = "text-sm text-red-700 dark:text-red-300";

/**
 * The customer's conversion: choose what to sell and buy and an amount on either side, "Get a
 * quote" (POST account/conversions/quote), then "Confirm" before the countdown ends
 * (POST account/conversions with an Idempotency-Key that stays the same for the same quote).
 * Success toasts "Converted 100.00 GBP to 117.01 EUR", resets the form and dispatches
 * BALANCES_CHANGED_EVENT; a 409 says the quote expired and offers a new one; a 422 shows its text.
 *
 * Beside the form, the balances: the island renders both (the page lays them out in its grid), so
 * the page needs no other island. After a conversion they change at once by the amounts
 * converted, then are read again from the server (GET account/balances), which has the last word.
 */
export default function ConvertForm({ currencies, balances: initialBalances, validitySeconds }: ConvertFormProps) {
  const hydrated = useHydrated();
  const idempotencyKey = useIdempotencyKey();
  const [balances, setBalances] = useState(initialBalances);
  const [sell, setSell] = useState(() => defaultSell(initialBalances, currencies));
  const [buy, setBuy] = useState(() => defaultBuy(defaultSell(initialBalances, currencies), currencies));
  const [fixed, setFixed] = useState<Fixed>("sell");
  const [sellAmount, setSellAmount] = useState("");
  const [buyAmount, setBuyAmount] = useState("");
  const [quote, setQuote] = useState<{ answer: HeldQuote; deadline: number } | null>(null);
  const [now, setNow] = useState(0);
  const [pending, setPending] = useState<"quote" | "confirm" | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [done, setDone] = useState<string | null>(null);
  const [refreshing, setRefreshing] = useState(false);
  const [balanceStatus, setBalanceStatus] = useState("");

  const left = quote ? secondsLeft(quote.deadline, now) : 0;
  const expired = !!quote && left === 0;

  // The countdown: once a second while the quote is live.
  useEffect(() => {
    if (!quote) return;
    const id = setInterval(() => {
      const t = Date.now();
      setNow(t);
      if (t >= quote.deadline) clearInterval(id);
    }, 1000);
    return () => clearInterval(id);
  }, [quote]);

  /** Any change to what is asked drops the quote: it no longer says what would happen. */
  function changed() {
    setQuote(null);
    setError(null);
    setFields({});
    setDone(null);
  }

  function chooseSell(code: string) {
    if (code === buy) setBuy(sell);
    setSell(code);
    changed();
  }

  function chooseBuy(code: string) {
    if (code === sell) setSell(buy);
    setBuy(code);
    changed();
  }

  function typeSell(value: string) {
    setSellAmount(value);
    setBuyAmount("");
    setFixed("sell");
    changed();
  }

  function typeBuy(value: string) {
    setBuyAmount(value);
    setSellAmount("");
    setFixed("buy");
    changed();
  }

  async function getQuote(event?: FormEvent<HTMLFormElement>) {
    event?.preventDefault();
    if (pending) return;
    const amount = (fixed === "sell" ? sellAmount : buyAmount).trim();
    setDone(null);
    if (!amount) {
      setError(null);
      setFields({ amount: ENTER_AMOUNT });
      return;
    }
    setPending("quote");
    setError(null);
    setFields({});
    setQuote(null);
    const sentAt = Date.now();
    try {
      const answer = await api.post<HeldQuote>("account/conversions/quote", {
        sell_currency: sell,
        buy_currency: buy,
        amount,
        fixed,
      });
      setSellAmount(answer.sell_amount);
      setBuyAmount(answer.buy_amount);
      setNow(Date.now());
      setQuote({ answer, deadline: quoteDeadline(sentAt, validitySeconds) });
    } catch (err) {
      if (!isAbort(err)) {
        setError(errorText(err));
        setFields(fieldsOf(err));
      }
    } finally {
      setPending(null);
    }
  }

  async function confirm() {
    if (!quote || expired || pending) return;
    const payload = { quote_id: quote.answer.id };
    setPending("confirm");
    setError(null);
    setFields({});
    try {
      const c = await api.post<Conversion>("account/conversions", payload, { idempotencyKey: idempotencyKey(payload) });
      const text = `Converted ${c.sell_amount} ${c.sell_currency} to ${c.buy_amount} ${c.buy_currency}`;
      notify({ title: text, color: "success" });
      setDone(text);
      setBalances((rows) => {
        const next = rows.map((b) =>
          b.currency === c.sell_currency
            ? { ...b, available: addAmount(b.available, c.sell_amount, -1) }
            : b.currency === c.buy_currency
            ? { ...b, available: addAmount(b.available, c.buy_amount, 1) }
            : b
        );
        if (!rows.some((b) => b.currency === c.buy_currency)) {
          next.push({ currency: c.buy_currency, available: c.buy_amount, held: "0" });
        }
        return next;
      });
      setQuote(null);
      setSellAmount("");
      setBuyAmount("");
      setFixed("sell");
      globalThis.dispatchEvent(new CustomEvent(BALANCES_CHANGED_EVENT, { detail: { conversion: c } }));
      void refreshBalances();
    } catch (err) {
      if (isAbort(err)) return;
      if (err instanceof ApiCallError && err.status === 409) {
        setError(QUOTE_EXPIRED);
        // The server refused it: count it as run out here too, so Confirm is off and a new quote offered.
        setQuote((q) => (q ? { ...q, deadline: 0 } : q));
      } else {
        setError(errorText(err));
      }
    } finally {
      setPending(null);
    }
  }

  async function refreshBalances() {
    setRefreshing(true);
    try {
      setBalances((await api.get<Balance[]>("account/balances")) ?? []);
      setBalanceStatus("Balances updated.");
    } catch (err) {
      if (!isAbort(err)) setBalanceStatus("The balances could not be updated. Reload the page to see them.");
    }
    setRefreshing(false);
  }

  function cancel() {
    changed();
  }

  const options = currencies.map((c) => <option key={c.code} value={c.code}>{`${c.code} · ${c.name}`}</option>);
  const available = balances.find((b) => b.currency === sell)?.available;
  const amountError = fields.amount;
  const sellError = fields.sell_currency ?? fields.sell;
  const buyError = fields.buy_currency ?? fields.buy;

  return (
    <>
      <div className="card">
        <form method="post" onSubmit={getQuote} noValidate aria-label="Convert" className="space-y-5">
          <div className="grid gap-4 sm:grid-cols-2">
            <Side
              legend="You sell"
              currencyId="convert-sell"
              currencyLabel="Currency to sell"
              currency={sell}
              onCurrency={chooseSell}
              currencyError={sellError}
              options={options}
              amountId="convert-sell-amount"
              amountLabel="Amount to sell"
              amount={sellAmount}
              onAmount={typeSell}
              amountError={fixed === "sell" ? amountError : undefined}
              hint={{
                id: "convert-available",
                text: available === undefined ? `You hold no ${sell}` : `Available: ${available} ${sell}`,
              }}
            />
            <Side
              legend="You receive"
              currencyId="convert-buy"
              currencyLabel="Currency to receive"
              currency={buy}
              onCurrency={chooseBuy}
              currencyError={buyError}
              options={options}
              amountId="convert-buy-amount"
              amountLabel="Amount to receive"
              amount={buyAmount}
              onAmount={typeBuy}
              amountError={fixed === "buy" ? amountError : undefined}
            />
          </div>

          <FormAlert
            error={error}
            fields={fields}
            shown={["amount", "sell_currency", "sell", "buy_currency", "buy"]}
          />
          <Status>{done}</Status>

          {quote
            ? (
              <section
                aria-labelledby="convert-quote-title"
                className="space-y-4 rounded-lg bg-neutral-50 p-4 dark:bg-neutral-900"
              >
                <h2 id="convert-quote-title" className="text-base font-semibold">Your quote</h2>
                <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-2 text-sm">
                  <dt className="text-neutral-600 dark:text-neutral-400">You sell</dt>
                  <dd className="text-right font-semibold tabular-nums">
                    {`${quote.answer.sell_amount} ${quote.answer.sell_currency}`}
                  </dd>
                  <dt className="text-neutral-600 dark:text-neutral-400">You receive</dt>
                  <dd className="text-right font-semibold tabular-nums">
                    {`${quote.answer.buy_amount} ${quote.answer.buy_currency}`}
                  </dd>
                  <dt className="text-neutral-600 dark:text-neutral-400">Rate</dt>
                  <dd className="text-right tabular-nums">
                    {`1 ${quote.answer.sell_currency} = ${quote.answer.rate} ${quote.answer.buy_currency}`}
                  </dd>
                  <dt className="text-neutral-600 dark:text-neutral-400">Fee (included in what you sell)</dt>
                  <dd className="text-right tabular-nums">{`${quote.answer.fee} ${quote.answer.fee_currency}`}</dd>
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
                      This quote is valid for <span className="tabular-nums">{left}</span>{" "}
                      {left === 1 ? "second" : "seconds"}.
                    </>
                  )}
                </p>
                <div className="flex flex-wrap gap-3">
                  <button
                    type="button"
                    className="btn-primary"
                    onClick={confirm}
                    disabled={!hydrated || expired || pending !== null}
                    aria-busy={pending === "confirm" || undefined}
                  >
                    {pending === "confirm" ? "Converting…" : "Confirm"}
                  </button>
                  {expired
                    ? (
                      <button
                        type="submit"
                        className="btn-ghost border border-neutral-300 dark:border-neutral-700"
                        disabled={!hydrated || pending !== null}
                      >
                        {pending === "quote" ? "Getting a quote…" : "Get a new quote"}
                      </button>
                    )
                    : (
                      <button type="button" className="btn-ghost" onClick={cancel} disabled={pending !== null}>
                        Cancel
                      </button>
                    )}
                </div>
              </section>
            )
            : (
              <SubmitButton pending={pending === "quote"} pendingLabel="Getting a quote…" className="btn-primary">
                Get a quote
              </SubmitButton>
            )}
        </form>
      </div>
      <aside className="card" aria-label="Your balances">
        <BalanceTable balances={balances} busy={refreshing} status={balanceStatus} />
      </aside>
    </>
  );
}

const describe = (...ids: (string | false | undefined)[]) => ids.filter(Boolean).join(" ") || undefined;

/**
 * One side of the conversion: its currency, then its amount (placeholder and hidden label alike),
 * an optional hint, and the errors that name it. The amount's error shows on the side that is fixed.
 */
function Side(props: {
  legend: string;
  currencyId: string;
  currencyLabel: string;
  currency: string;
  onCurrency: (code: string) => void;
  currencyError: string | undefined;
  options: ReactNode;
  amountId: string;
  amountLabel: string;
  amount: string;
  onAmount: (value: string) => void;
  amountError: string | undefined;
  hint?: { id: string; text: string };
}) {
  const currencyErrorId = `${props.currencyId}-error`;
  return (
    <fieldset className="space-y-2">
      <legend className={LABEL}>{props.legend}</legend>
      <label htmlFor={props.currencyId} className="sr-only">{props.currencyLabel}</label>
      <select
        id={props.currencyId}
        value={props.currency}
        onChange={(event) => props.onCurrency(event.currentTarget.value)}
        aria-invalid={props.currencyError ? true : undefined}
        aria-describedby={describe(props.currencyError && currencyErrorId)}
        className={`${CONTROL} block w-full`}
      >
        {props.options}
      </select>
      <label htmlFor={props.amountId} className="sr-only">{props.amountLabel}</label>
      <input
        id={props.amountId}
        type="text"
        inputMode="decimal"
        autoComplete="off"
        placeholder={props.amountLabel}
        value={props.amount}
        onChange={(event) => props.onAmount(event.currentTarget.value)}
        aria-invalid={props.amountError ? true : undefined}
        aria-describedby={describe(props.hint?.id, props.amountError && "convert-amount-error")}
        className={`${CONTROL} block w-full text-lg tabular-nums`}
      />
      {props.hint
        ? <p id={props.hint.id} className="text-xs text-neutral-600 dark:text-neutral-400">{props.hint.text}</p>
        : null}
      {props.currencyError ? <p id={currencyErrorId} className={FIELD_ERROR}>{props.currencyError}</p> : null}
      {props.amountError ? <p id="convert-amount-error" className={FIELD_ERROR}>{props.amountError}</p> : null}
    </fieldset>
  );
}
