import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { offersPriority, type Rail, speedAfterSendingText } from "../lib/payments/rail-rules.ts";
import { referenceProblemUnder, type ReferenceRules } from "../lib/payments/reference.ts";
import { codeOf, errorText, fieldsOf, statusOf } from "./lib/api.ts";
import { exceeds, isPositive, overBalance } from "./lib/amounts.ts";
import { notify } from "./lib/notification-store.ts";
import { withQueries } from "./lib/query-client.tsx";
import { balanceKeys } from "./lib/query-keys.ts";
import { useWrite } from "./lib/write.ts";
import { BalanceTable, refreshStatus } from "./money/balance-table.tsx";
import { type Balance, balancesQuery, type Currency } from "./money/calls.ts";
import { quoteDeadline, useSecondsLeft } from "./money/countdown.ts";
import {
  holdPaymentQuote,
  makePayment,
  type Payment,
  PAYMENT_CHANGES,
  type PaymentFixed,
  type PaymentQuote,
} from "./payments/calls.ts";
import { arrivalText, CostList, rateHeldText } from "./payments/cost.tsx";
import { Alert, FormAlert, Status } from "./ui/alert.tsx";
import { AmountInput } from "./ui/amount.tsx";
import { CurrencySelect } from "./ui/currency-select.tsx";
import { SelectField, TextField } from "./ui/field.tsx";
import { BusyButton, SubmitButton, useHydrated } from "./ui/submit-button.tsx";
import { useForm } from "./ui/use-form.ts";

/** A recipient the account can pay, with its rail (server/payments/recipient.ts recipientChoices). */
export interface RecipientChoice {
  id: number;
  name: string;
  currency: string;
  country: string;
  rail: Rail;
  rail_name: string;
  reference_max: number;
  reference: ReferenceRules;
  /** The last 4 characters of their account number or IBAN, shown masked; null without one. */
  account_ending: string | null;
}

/**
 * A recipient as the list offers it: two of one name are told apart by their currency and, as
 * banks do, the end of their account number, masked ("Ana Lima · EUR · FR · ••••3000").
 */
export const recipientLabel = (r: RecipientChoice) =>
  [r.name, r.currency, r.country, r.account_ending ? `••••${r.account_ending}` : null].filter(Boolean).join(" · ");

export interface PaymentFormProps {
  accountRef: string;
  currencies: Currency[];
  /** As the server rendered them: the balances query starts from these. */
  balances: Balance[];
  recipients: RecipientChoice[];
  /** The recipient to start with (?recipient= on the page), when it is one of them. */
  recipientId: number | null;
  /** How long a quote is held (QUOTE_VALIDITY_SECONDS). */
  validitySeconds: number;
}

export const QUOTE_EXPIRED = "This quote has expired. Get the full cost again to pay.";
const ENTER_AMOUNT = "Enter what you send or what the recipient gets.";
/** The server's refusal of an expired quote (server/payments/create.ts), by its code, not its words. */
const expired = (err: unknown) => codeOf(err) === "quote_expired";

/**
 * The recipient was deleted since the page was drawn (in another tab, by someone else on the
 * account): confirming says so by its code, asking the cost by a 404, its only one (the recipient
 * is not found). Both are said in the same words, and the recipient is no longer offered.
 */
export const RECIPIENT_DELETED = "This recipient was deleted. Choose another recipient.";
const recipientGone = (err: unknown) => codeOf(err) === "recipient_deleted";

interface Asked {
  recipientId: number;
  sell: string;
  fixed: PaymentFixed;
  sendAmount: string;
  receiveAmount: string;
  priority: boolean;
  reference: string;
}

/** Pay from the recipient's own currency when it is held, else from the first balance with money. */
function defaultSell(recipient: RecipientChoice | undefined, balances: Balance[]): string {
  const held = (code: string) => balances.some((b) => b.currency === code && isPositive(b.available));
  if (recipient && held(recipient.currency)) return recipient.currency;
  return balances.find((b) => isPositive(b.available))?.currency ?? recipient?.currency ?? "GBP";
}

/**
 * Paying a recipient (issue 8 item 2): the recipient, an amount on either side (what is sent, fee
 * included, or what they receive), the balance to pay from, regular or priority, and a reference
 * the rail can carry; then the full cost, held for QUOTE_VALIDITY_SECONDS (POST
 * account/payments/quote); then Confirm (POST account/payments, with an Idempotency-Key that stays
 * the same for the same quote). The money is held at once: the balances beside the form and every
 * payments list on the page are refreshed. The result says whether the payment waits for approval,
 * with a link to its page.
 */
function PaymentForm(
  { accountRef, currencies, balances: initialBalances, recipients, recipientId, validitySeconds }: PaymentFormProps,
) {
  const hydrated = useHydrated();
  const balances = useQuery({ ...balancesQuery(accountRef), initialData: initialBalances });
  const [quote, setQuote] = useState<{ answer: PaymentQuote; deadline: number } | null>(null);
  const [made, setMade] = useState<Payment | null>(null);
  const left = useSecondsLeft(quote?.deadline ?? null);
  const [deleted, setDeleted] = useState<ReadonlySet<number>>(() => new Set());
  const payable = recipients.filter((r) => !deleted.has(r.id));

  const first = recipients.find((r) => r.id === recipientId) ?? recipients[0];
  const form = useForm({
    call: holdPaymentQuote,
    errorText: (failure) => statusOf(failure) === 404 ? RECIPIENT_DELETED : failure.error,
    values: {
      recipientId: first?.id ?? 0,
      sell: defaultSell(first, initialBalances),
      fixed: "send",
      sendAmount: "",
      receiveAmount: "",
      priority: false,
      reference: "",
    } as Asked,
  });
  const confirmation = useWrite({
    call: makePayment,
    idempotent: true,
    invalidates: [balanceKeys.of(accountRef), ...PAYMENT_CHANGES],
    onSuccess(payment) {
      setMade(payment);
      setQuote(null);
      notify({
        title: payment.status === "pending_approval" ? "Payment waiting for approval" : "Payment approved",
        description: `${payment.buy_amount} ${payment.buy_currency} to ${payment.recipient.name}`,
        color: "success",
      });
    },
  });
  const { recipientId: chosen, sell, fixed, sendAmount, receiveAmount, priority, reference } = form.values;
  const recipient = payable.find((r) => r.id === chosen);

  if (!payable.length) {
    return (
      <div className="card space-y-3">
        <p>You have no recipients yet. Add the person or business you want to pay, with their bank details.</p>
        <a className="btn-primary" href="/account/recipients">Add a recipient</a>
      </div>
    );
  }

  /** Any change to what is asked drops the quote: it no longer says what would happen. */
  function change(values: Partial<Asked>) {
    for (const [name, value] of Object.entries(values)) form.set(name, value);
    form.show({});
    confirmation.reset();
    setQuote(null);
    setMade(null);
  }

  /** Takes a deleted recipient off the list, on to the next one, leaving the refusal on screen. */
  function dropDeleted(id: number) {
    setDeleted((current) => new Set(current).add(id));
    const next = payable.find((r) => r.id !== id);
    form.set("recipientId", next?.id ?? 0);
    form.set("sell", defaultSell(next, balances.data));
    form.set("receiveAmount", "");
  }

  async function getCost(event?: FormEvent<HTMLFormElement>) {
    event?.preventDefault();
    if (form.submitting || confirmation.isPending || !recipient) return;
    const amount = (fixed === "send" ? sendAmount : receiveAmount).trim();
    const problems: Record<string, string> = {};
    if (!amount) problems.amount = ENTER_AMOUNT;
    else if (tooMuch) problems.amount = tooMuch;
    const badReference = referenceProblemUnder(recipient.reference, reference);
    if (badReference) problems.reference = badReference;
    confirmation.reset();
    setMade(null);
    if (Object.keys(problems).length) return form.show(problems);
    setQuote(null);
    const sentAt = Date.now();
    const result = await form.submit({
      body: {
        recipient_id: recipient.id,
        amount,
        fixed,
        sell_currency: sell,
        priority: priority && offersPriority(recipient.rail),
      },
    });
    if (!result.ok) {
      if (result.failure && statusOf(result.failure) === 404) dropDeleted(recipient.id);
      return;
    }
    form.set("sendAmount", result.answer.sell_amount);
    form.set("receiveAmount", result.answer.buy_amount);
    setQuote({ answer: result.answer, deadline: quoteDeadline(sentAt, validitySeconds) });
  }

  function confirm() {
    if (!quote || left === 0 || confirmation.isPending || debitsTooMuch) return;
    confirmation.mutate({ body: { quote_id: quote.answer.id, reference } }, {
      onError(err) {
        if (statusOf(err) !== 409) return;
        // Expired: the cost stays on screen, marked so, with its button to price it again. Any other
        // conflict (the recipient deleted, their bank details changed) makes this cost wrong: it goes.
        if (expired(err)) setQuote((q) => (q ? { ...q, deadline: 0 } : q));
        else setQuote(null);
        if (recipientGone(err) && recipient) dropDeleted(recipient.id);
      },
    });
  }

  function another() {
    change({ sendAmount: "", receiveAmount: "", fixed: "send", reference: "" });
  }

  // A refused confirmation says why in the server's words (the recipient deleted, their bank details
  // changed, the quote used), but an expired quote in this screen's (its button is "Get the full cost").
  const refused = !confirmation.error
    ? null
    : expired(confirmation.error)
    ? QUOTE_EXPIRED
    : errorText(confirmation.error);
  const fields = { ...form.fields, ...fieldsOf(confirmation.error) };
  const available = balances.data.find((b) => b.currency === sell)?.available;
  /** Checked while typing, as the convert form does: an amount to send above what is available. */
  const tooMuch = fixed === "send" && sendAmount.trim() !== "" &&
      (available === undefined ? true : exceeds(sell, sendAmount, available))
    ? overBalance(sell, available, "send")
    : null;
  /**
   * What they receive fixed: only the quote says what it debits. A cost above what is available is
   * shown, with why it cannot be confirmed (the server would refuse it: 422 "Not enough ...").
   */
  const quotedAvailable = quote ? balances.data.find((b) => b.currency === quote.answer.sell_currency)?.available : "";
  const debitsTooMuch = quote && (quotedAvailable === undefined ||
      exceeds(quote.answer.sell_currency, quote.answer.sell_amount, quotedAvailable))
    ? `It would debit ${quote.answer.sell_amount} ${quote.answer.sell_currency}. ${
      overBalance(quote.answer.sell_currency, quotedAvailable, "send")
    }`
    : null;
  const held = balances.data.filter((b) => isPositive(b.available)).map((b) => b.currency);
  const offered = currencies.filter((c) => held.includes(c.code) || c.code === recipient?.currency || c.code === sell);
  const pending = form.submitting ? "quote" : confirmation.isPending ? "confirm" : null;

  return (
    <>
      <div className="card">
        {made
          ? <Made payment={made} onAnother={another} />
          : (
            <form method="post" onSubmit={getCost} noValidate aria-label="Make a payment" className="space-y-5">
              <SelectField
                id="payment-recipient"
                label="Recipient"
                value={String(chosen)}
                onChange={(event) => {
                  const next = payable.find((r) => r.id === Number(event.currentTarget.value));
                  change({ recipientId: next?.id ?? 0, sell: defaultSell(next, balances.data), receiveAmount: "" });
                }}
                error={fields.recipient_id}
                hint={recipient ? `${recipient.currency} · paid by ${recipient.rail_name}` : undefined}
              >
                {payable.map((r) => <option key={r.id} value={r.id}>{recipientLabel(r)}</option>)}
              </SelectField>

              <div className="grid gap-4 sm:grid-cols-2">
                <fieldset className="space-y-2">
                  <legend className="field-label">You send</legend>
                  <CurrencySelect
                    id="payment-sell"
                    label="Balance to pay from"
                    currencies={offered}
                    value={sell}
                    onChange={(event) => change({ sell: event.currentTarget.value })}
                    error={fields.sell_currency}
                  />
                  <AmountInput
                    id="payment-send-amount"
                    label={`Amount you send (${sell}), fee included`}
                    required={false}
                    value={sendAmount}
                    onChange={(event) =>
                      change({ sendAmount: event.currentTarget.value, receiveAmount: "", fixed: "send" })}
                    hint={available === undefined ? `You hold no ${sell}` : `Available: ${available} ${sell}`}
                    error={fixed === "send" ? tooMuch ?? fields.amount : undefined}
                    className="text-lg"
                  />
                </fieldset>
                <fieldset className="space-y-2">
                  <legend className="field-label">They receive</legend>
                  <AmountInput
                    id="payment-receive-amount"
                    label={`Amount they receive (${recipient?.currency ?? ""})`}
                    required={false}
                    value={receiveAmount}
                    onChange={(event) =>
                      change({ receiveAmount: event.currentTarget.value, sendAmount: "", fixed: "receive" })}
                    error={fixed === "receive" ? fields.amount : undefined}
                    className="text-lg"
                  />
                </fieldset>
              </div>

              {recipient && !offersPriority(recipient.rail)
                ? <p className="text-sm">{`Speed: arrives ${speedAfterSendingText(recipient.rail, false)}.`}</p>
                : recipient
                ? (
                  <fieldset>
                    <legend className="mb-1 field-label">Speed</legend>
                    <div className="flex flex-wrap gap-4">
                      {[false, true].map((fast) => (
                        <label key={String(fast)} className="flex items-center gap-2 text-sm">
                          <input
                            type="radio"
                            name="payment-speed"
                            value={fast ? "priority" : "regular"}
                            checked={priority === fast}
                            onChange={() =>
                              change({ priority: fast })}
                          />
                          {/* Counted from its sending, as the quote and the payment's page say it. */}
                          {`${fast ? "Priority" : "Regular"}: arrives ${speedAfterSendingText(recipient.rail, fast)}`}
                        </label>
                      ))}
                    </div>
                  </fieldset>
                )
                : null}

              <TextField
                id="payment-reference"
                label="Reference for the recipient"
                value={reference}
                onChange={(event) => change({ reference: event.currentTarget.value })}
                hint={recipient
                  ? `Up to ${recipient.reference_max} characters, shown on the recipient's statement: ${recipient.reference.charactersText}.`
                  : undefined}
                error={fields.reference}
                autoComplete="off"
              />

              <FormAlert
                error={form.error ?? refused}
                fields={fields}
                shown={["amount", "sell_currency", "recipient_id", "reference"]}
              />

              {quote
                ? (
                  <section
                    aria-labelledby="payment-cost-title"
                    className="space-y-4 rounded-lg bg-neutral-50 p-4 dark:bg-neutral-900"
                  >
                    <h2 id="payment-cost-title" className="text-base font-semibold">The full cost</h2>
                    <CostList cost={quote.answer} arrival={arrivalText(quote.answer, "draft")} />
                    <p aria-live="polite" aria-atomic="true" className="text-sm font-medium">
                      {left === 0 ? "This quote has expired." : (
                        <>
                          This price holds for <span className="tabular-nums">{left}</span>{" "}
                          {left === 1 ? "second" : "seconds"}.
                        </>
                      )}
                    </p>
                    {debitsTooMuch ? <Alert>{debitsTooMuch}</Alert> : null}
                    <div className="flex flex-wrap gap-3">
                      <BusyButton
                        type="button"
                        className="btn-primary"
                        onClick={confirm}
                        disabled={!hydrated || left === 0 || debitsTooMuch !== null}
                        busy={pending !== null}
                        aria-busy={pending === "confirm" || undefined}
                      >
                        {pending === "confirm" ? "Paying…" : "Confirm and pay"}
                      </BusyButton>
                      {left === 0
                        ? (
                          <BusyButton
                            type="submit"
                            className="btn-outline"
                            disabled={!hydrated}
                            busy={pending !== null}
                          >
                            Get the full cost again
                          </BusyButton>
                        )
                        : <button type="button" className="btn-ghost" onClick={() => change({})}>Change</button>}
                    </div>
                  </section>
                )
                : (
                  <SubmitButton
                    pending={pending === "quote"}
                    pendingLabel="Working out the cost…"
                    className="btn-primary"
                  >
                    See the full cost
                  </SubmitButton>
                )}
            </form>
          )}
      </div>
      <aside className="card" aria-label="Your balances">
        <BalanceTable balances={balances.data} busy={balances.isFetching} status={refreshStatus(balances)} />
      </aside>
    </>
  );
}

/** What happened: waiting for approval, or approved and on its way to the payout desk. */
function Made({ payment, onAnother }: { payment: Payment; onAnother: () => void }) {
  const waits = payment.status === "pending_approval";
  return (
    <section aria-labelledby="payment-made-title" className="space-y-4">
      <h2 id="payment-made-title" className="text-lg font-semibold">
        {waits ? "Your payment is waiting for approval" : "Your payment is approved"}
      </h2>
      <Status>
        {`${payment.sell_amount} ${payment.sell_currency} is held for ${payment.buy_amount} ${payment.buy_currency} to ${payment.recipient.name}.`}
      </Status>
      <p className="text-sm">
        {waits
          ? "Your account's rule asks for someone else on the account to approve it. They have been told; nothing is sent until then."
          : "It goes to our payout desk and is sent on its way; you will be told when it is sent and when it arrives."}
      </p>
      {waits && payment.rate_held_until
        ? <p className="text-sm">{rateHeldText(payment.rate_held_until, false)}</p>
        : null}
      <div className="flex flex-wrap gap-3">
        <a className="btn-primary" href={`/account/pendingpayments/${payment.id}`}>Open the payment</a>
        <button type="button" className="btn-ghost" onClick={onAnother}>Make another payment</button>
      </div>
    </section>
  );
}

export default withQueries(PaymentForm);
