import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { codeOf, errorText, statusOf } from "./lib/api.ts";
import { addAmount, exceeds, inCurrency, isPositive, overBalance } from "./lib/amounts.ts";
import { notify } from "./lib/notification-store.ts";
import { withQueries } from "./lib/query-client.tsx";
import { balanceKeys } from "./lib/query-keys.ts";
import { useWrite } from "./lib/write.ts";
import { BalanceTable, refreshStatus } from "./money/balance-table.tsx";
import {
  type Balance,
  balancesQuery,
  type Conversion,
  type Currency,
  executeConversion,
  type Fixed,
  type HeldQuote,
  holdConversionQuote,
} from "./money/calls.ts";
import { ConversionReceipt } from "./money/conversion-receipt.tsx";
import { ConvertSide } from "./money/convert-side.tsx";
import { quoteDeadline, useSecondsLeft } from "./money/countdown.ts";
import { HeldQuotePanel } from "./money/held-quote.tsx";
import { FormAlert, Status } from "./ui/alert.tsx";
import { SubmitButton, useHydrated } from "./ui/submit-button.tsx";
import { useForm } from "./ui/use-form.ts";

export interface ConvertFormProps {
  currencies: Currency[];
  /** The account converted in (the key of its balances query). */
  accountRef: string;
  /** As the server rendered them: the balances query starts from these. */
  balances: Balance[];
  /** How long a quote is held (QUOTE_VALIDITY_SECONDS): the countdown's length. */
  validitySeconds: number;
  /**
   * What the page was opened with (the calculator's "Convert now": its pair, amount and fixed side),
   * as far as it is valid; else the form starts from the first balance with money.
   */
  start?: { sell?: string; buy?: string; fixed?: Fixed; amount?: string };
}

export const QUOTE_EXPIRED = "This quote has expired. Get a new quote to convert.";
const ENTER_AMOUNT = "Enter the amount to sell or the amount to receive.";

/** Why an amount to sell is not offered a quote (islands/lib/amounts.ts, shared with the payment form). */
export { overBalance };

/** Currencies offered first as what to buy. */
const USUAL_BUYS = ["EUR", "GBP", "USD"];

function defaultSell(balances: Balance[], currencies: Currency[]): string {
  return (balances.find((b) => isPositive(b.available)) ?? balances[0])?.currency ?? currencies[0]?.code ?? "GBP";
}

function defaultBuy(sell: string, currencies: Currency[]): string {
  const codes = currencies.map((c) => c.code);
  return USUAL_BUYS.find((c) => c !== sell && codes.includes(c)) ?? codes.find((c) => c !== sell) ?? "";
}

/** The balances once a conversion went through, before the server says so itself. */
function converted(rows: Balance[], c: Conversion): Balance[] {
  const next = rows.map((b) =>
    b.currency === c.sell_currency
      ? { ...b, available: addAmount(b.currency, b.available, c.sell_amount, -1) }
      : b.currency === c.buy_currency
      ? { ...b, available: addAmount(b.currency, b.available, c.buy_amount, 1) }
      : b
  );
  if (!rows.some((b) => b.currency === c.buy_currency)) {
    next.push({ currency: c.buy_currency, available: c.buy_amount, held: "0" });
  }
  return next;
}

interface Asked {
  sell: string;
  buy: string;
  fixed: Fixed;
  sellAmount: string;
  buyAmount: string;
}

/**
 * The customer's conversion: choose what to sell and buy and an amount on either side, "Get a
 * quote" (POST account/conversions/quote), then "Confirm" before the countdown ends
 * (POST account/conversions with an Idempotency-Key that stays the same for the same quote).
 * The quote shows the calculator's full price (PriceList: mid-market rate, our rate, the markup in
 * money, the fee). An amount to sell above the available balance is refused while it is typed, and
 * a quote that would sell more than it (an amount to receive) is not offered.
 * Success toasts "Converted 100.00 GBP to 117.01 EUR", resets the form and shows the receipt, with
 * a link to the movement; a quote refused as expired (its `code`) says so in this screen's words and
 * offers a new one; any other refusal (a quote used already, funds short) shows the server's text.
 *
 * Beside the form, the balances, from the page's balances query: after a conversion they change at
 * once by the amounts converted, then the query is read again from the server, which has the last
 * word.
 */
function ConvertForm({ currencies, accountRef, balances: initialBalances, validitySeconds, start }: ConvertFormProps) {
  const hydrated = useHydrated();
  const queries = useQueryClient();
  const balances = useQuery({ ...balancesQuery(accountRef), initialData: initialBalances });
  const [quote, setQuote] = useState<{ answer: HeldQuote; deadline: number } | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [receipt, setReceipt] = useState<Conversion | null>(null);
  const left = useSecondsLeft(quote?.deadline ?? null);

  const firstSell = start?.sell ?? defaultSell(initialBalances, currencies);
  const firstBuy = start?.buy && start.buy !== firstSell ? start.buy : defaultBuy(firstSell, currencies);
  const firstFixed = start?.fixed ?? "sell";
  const asked: Asked = {
    sell: firstSell,
    buy: firstBuy,
    fixed: firstFixed,
    sellAmount: firstFixed === "sell" ? start?.amount ?? "" : "",
    buyAmount: firstFixed === "buy" ? start?.amount ?? "" : "",
  };
  const form = useForm({ call: holdConversionQuote, values: asked });
  const confirmation = useWrite({
    call: executeConversion,
    idempotent: true,
    invalidates: [balanceKeys.of(accountRef)],
    onSuccess(c) {
      queries.setQueryData<Balance[]>(balanceKeys.of(accountRef), (rows) => rows && converted(rows, c));
      const text = `Converted ${c.sell_amount} ${c.sell_currency} to ${c.buy_amount} ${c.buy_currency}`;
      notify({ title: text, color: "success" });
      setDone(text);
      setReceipt(c);
      setQuote(null);
      form.set("sellAmount", "");
      form.set("buyAmount", "");
      form.set("fixed", "sell");
    },
  });
  const { sell, buy, fixed, sellAmount, buyAmount } = form.values;
  const availableOf = (code: string) => balances.data.find((b) => b.currency === code)?.available;
  const available = availableOf(sell);
  /** Checked while typing, against the balances query: an amount to sell above what is available. */
  const tooMuch = fixed === "sell" && sellAmount.trim() !== "" &&
      (available === undefined ? true : exceeds(sell, sellAmount, available))
    ? overBalance(sell, available)
    : null;

  /** Any change to what is asked drops the quote: it no longer says what would happen. */
  function change(values: Partial<Asked>) {
    for (const [name, value] of Object.entries(values)) form.set(name, value);
    form.show({});
    confirmation.reset();
    setQuote(null);
    setDone(null);
    setReceipt(null);
  }

  /**
   * Both sides with the same currency make no sense: choosing the other side's currency swaps them.
   * The amounts stay in their columns, written again with the decimal places of the currency now
   * there (1000.00 GBP is 1000 in JPY), else the form would refuse what it shows.
   */
  const choosePair = (next: { sell: string; buy: string }) =>
    change({ ...next, sellAmount: inCurrency(next.sell, sellAmount), buyAmount: inCurrency(next.buy, buyAmount) });
  const chooseSell = (code: string) => choosePair(code === buy ? { sell: code, buy: sell } : { sell: code, buy });
  const chooseBuy = (code: string) => choosePair(code === sell ? { buy: code, sell: buy } : { buy: code, sell });
  const typeSell = (value: string) => change({ sellAmount: value, buyAmount: "", fixed: "sell" });
  const typeBuy = (value: string) => change({ buyAmount: value, sellAmount: "", fixed: "buy" });

  async function getQuote(event?: FormEvent<HTMLFormElement>) {
    event?.preventDefault();
    if (form.submitting || confirmation.isPending) return;
    const amount = (fixed === "sell" ? sellAmount : buyAmount).trim();
    setDone(null);
    confirmation.reset();
    if (!amount) return form.show({ amount: ENTER_AMOUNT });
    if (tooMuch) return;
    setQuote(null);
    setReceipt(null);
    const sentAt = Date.now();
    const result = await form.submit({ body: { sell_currency: sell, buy_currency: buy, amount, fixed } });
    if (!result.ok) return;
    // An amount to receive is priced first: what it would sell may be more than is available.
    const has = availableOf(result.answer.sell_currency);
    if (has === undefined || exceeds(result.answer.sell_currency, result.answer.sell_amount, has)) {
      return form.show({
        amount: `It would sell ${result.answer.sell_amount} ${result.answer.sell_currency}. ${
          overBalance(result.answer.sell_currency, has)
        }`,
      });
    }
    form.set("sellAmount", result.answer.sell_amount);
    form.set("buyAmount", result.answer.buy_amount);
    setQuote({ answer: result.answer, deadline: quoteDeadline(sentAt, validitySeconds) });
  }

  function confirm() {
    if (!quote || left === 0 || confirmation.isPending) return;
    confirmation.mutate({ body: { quote_id: quote.answer.id } }, {
      onError(err) {
        // The quote can no longer be used (expired, or spent): count it as run out here too, so
        // Confirm is off and a new quote offered.
        if (statusOf(err) === 409) setQuote((q) => (q ? { ...q, deadline: 0 } : q));
      },
    });
  }

  const refused = confirmation.error
    ? (codeOf(confirmation.error) === "quote_expired" ? QUOTE_EXPIRED : errorText(confirmation.error))
    : null;
  const fields = form.fields;
  const pending = form.submitting ? "quote" : confirmation.isPending ? "confirm" : null;

  return (
    <>
      <div className="card">
        <form method="post" onSubmit={getQuote} noValidate aria-label="Convert" className="space-y-5">
          <div className="grid gap-4 sm:grid-cols-2">
            <ConvertSide
              legend="You sell"
              currencyId="convert-sell"
              currencyLabel="Currency to sell"
              currency={sell}
              onCurrency={chooseSell}
              currencyError={fields.sell_currency}
              currencies={currencies}
              amountId="convert-sell-amount"
              amountLabel="Amount to sell"
              amount={sellAmount}
              onAmount={typeSell}
              amountError={fixed === "sell" ? tooMuch ?? fields.amount : undefined}
              hint={available === undefined ? `You hold no ${sell}` : `Available: ${available} ${sell}`}
            />
            <ConvertSide
              legend="You receive"
              currencyId="convert-buy"
              currencyLabel="Currency to receive"
              currency={buy}
              onCurrency={chooseBuy}
              currencyError={fields.buy_currency}
              currencies={currencies}
              amountId="convert-buy-amount"
              amountLabel="Amount to receive"
              amount={buyAmount}
              onAmount={typeBuy}
              amountError={fixed === "buy" ? fields.amount : undefined}
            />
          </div>

          <FormAlert
            error={form.error ?? refused}
            fields={fields}
            shown={["amount", "sell_currency", "buy_currency"]}
            // A refused Confirm is switched off: the keyboard goes to why.
            focusOnError={refused !== null}
          />
          <Status>{done}</Status>

          {quote
            ? (
              <HeldQuotePanel
                quote={quote.answer}
                left={left}
                hydrated={hydrated}
                pending={pending}
                onConfirm={confirm}
                onCancel={() => {
                  change({});
                  // Cancel goes with the quote: the keyboard goes back to the amount asked about.
                  document.getElementById(fixed === "sell" ? "convert-sell-amount" : "convert-buy-amount")?.focus();
                }}
              />
            )
            : (
              <SubmitButton pending={pending === "quote"} pendingLabel="Getting a quote…" className="btn-primary">
                Get a quote
              </SubmitButton>
            )}
        </form>
        {receipt && (
          <div className="mt-5">
            <ConversionReceipt
              conversion={receipt}
              onDismiss={() => {
                setReceipt(null);
                // "Convert again": the keyboard goes to the amount to sell, emptied for it.
                document.getElementById("convert-sell-amount")?.focus();
              }}
            />
          </div>
        )}
      </div>
      <aside className="card" aria-label="Your balances">
        <BalanceTable balances={balances.data} busy={balances.isFetching} status={refreshStatus(balances)} />
      </aside>
    </>
  );
}

export default withQueries(ConvertForm);
