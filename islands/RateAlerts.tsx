import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, type RefObject, useEffect, useRef, useState } from "react";
import { errorText } from "./lib/api.ts";
import { notify } from "./lib/notification-store.ts";
import { withQueries } from "./lib/query-client.tsx";
import { rateAlertKeys, rateKeys } from "./lib/query-keys.ts";
import { useWrite } from "./lib/write.ts";
import {
  changeRateAlert,
  createRateAlert,
  deleteRateAlert,
  type RateAlert,
  type RateAlertList,
  rateAlertsQuery,
  type Rates,
  ratesQuery,
} from "./ratealerts/calls.ts";
import { Alert } from "./ui/alert.tsx";
import { type CurrencyOption, CurrencySelect } from "./ui/currency-select.tsx";
import { SelectField, TextField } from "./ui/field.tsx";
import { useForm } from "./ui/use-form.ts";
import { BusyButton } from "./ui/submit-button.tsx";

export interface RateAlertsProps {
  /** The current account: the alerts' query is keyed by it. */
  accountRef: string;
  /** The alerts as the server rendered them. */
  alerts: RateAlertList;
  /** The mid-market rates against GBP (the form's first pair), so the first paint shows the rate now. */
  rates: Rates;
  currencies: CurrencyOption[];
  /** Whether the user's role may set, pause and delete alerts (money.convert). */
  canManage: boolean;
}

const MOMENT = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });
/** "2 Mar 2026, 09:05 UTC". */
const moment = (iso: string) => `${MOMENT.format(new Date(iso))} UTC`;

/** Every rate reads "1 GBP = 1.137656 EUR", here as everywhere in the portal. */
const pair = (sell: string, rate: string, buy: string) => `1 ${sell} = ${rate} ${buy}`;
const directionWords = { above: "at or above", below: "at or below" } as const;

/** The mid-market rate of the pair the form names, beside the form. */
function RateNow({ sell, buy }: { sell: string; buy: string }) {
  const rates = useQuery({ ...ratesQuery(sell), enabled: sell !== buy });
  if (sell === buy) return <p className="text-sm text-neutral-600 dark:text-neutral-300">Choose two currencies.</p>;
  const rate = rates.data?.rates[buy];
  return (
    <p role="status" className="text-sm">
      {rate
        ? (
          <>
            Now: <strong className="font-mono">{pair(sell, rate, buy)}</strong>
            <span className="block text-neutral-600 dark:text-neutral-300">
              Mid-market rate of {rates.data!.as_of}
              {rates.data!.indicative ? " (indicative)" : ""}
            </span>
          </>
        )
        : rates.isError
        ? "The rate could not be loaded."
        : "Loading the rate…"}
    </p>
  );
}

function NewAlert({ accountRef, currencies }: { accountRef: string; currencies: CurrencyOption[] }) {
  const form = useForm({
    call: createRateAlert,
    invalidates: [rateAlertKeys.of(accountRef)],
    idempotent: true,
    values: { sell_currency: "GBP", buy_currency: "EUR", target_rate: "", direction: "above" as "above" | "below" },
  });
  const { values } = form;
  async function submit(event: FormEvent) {
    event.preventDefault();
    const result = await form.submit({ body: values });
    if (result.ok) {
      const a = result.answer;
      notify({
        title: `Alert set: ${pair(a.sell_currency, a.target_rate, a.buy_currency)}, ${directionWords[a.direction]}`,
        color: "success",
      });
      form.set("target_rate", "");
    }
  }
  return (
    <section aria-labelledby="new-alert-heading" className="card">
      <h2 id="new-alert-heading" className="mb-4 text-lg font-semibold">New alert</h2>
      <div className="grid gap-6 md:grid-cols-[2fr_1fr]">
        <form aria-label="New rate alert" noValidate onSubmit={submit} className="grid gap-4 sm:grid-cols-2">
          <CurrencySelect
            id="alert-sell"
            label="1 unit of"
            currencies={currencies}
            value={values.sell_currency}
            error={form.fields.sell_currency}
            onChange={(e) => form.set("sell_currency", e.currentTarget.value)}
          />
          <CurrencySelect
            id="alert-buy"
            label="In"
            currencies={currencies}
            value={values.buy_currency}
            error={form.fields.buy_currency}
            onChange={(e) => form.set("buy_currency", e.currentTarget.value)}
          />
          <SelectField
            id="alert-direction"
            label="Tell me when the rate is"
            value={values.direction}
            error={form.fields.direction}
            onChange={(e) => form.set("direction", e.currentTarget.value)}
          >
            <option value="above">at or above</option>
            <option value="below">at or below</option>
          </SelectField>
          <TextField
            id="alert-target"
            label="Target rate"
            inputMode="decimal"
            autoComplete="off"
            hint={`1 ${values.sell_currency} = target ${values.buy_currency}`}
            value={values.target_rate}
            error={form.fields.target_rate}
            onChange={(e) => form.set("target_rate", e.currentTarget.value)}
          />
          {form.error && !Object.keys(form.fields).length
            ? (
              <div className="sm:col-span-2">
                <Alert>{form.error}</Alert>
              </div>
            )
            : null}
          <div className="sm:col-span-2">
            <BusyButton type="submit" className="btn-primary" busy={form.submitting}>
              {form.submitting ? "Setting…" : "Set alert"}
            </BusyButton>
          </div>
        </form>
        <RateNow sell={values.sell_currency} buy={values.buy_currency} />
      </div>
    </section>
  );
}

function AlertRow({ accountRef, alert, canManage, heading }: {
  accountRef: string;
  alert: RateAlert;
  canManage: boolean;
  /** "Your alerts (n of 20)": where the keyboard goes once the row it was on is deleted. */
  heading: RefObject<HTMLHeadingElement | null>;
}) {
  const queries = useQueryClient();
  /**
   * The button pressed, given the keyboard back once its write is over: the browser takes it away
   * while the button is disabled (the write pending), which would leave it on <body>.
   */
  const pressed = useRef<HTMLButtonElement | null>(null);
  const name = `${alert.sell_currency} to ${alert.buy_currency} ${
    directionWords[alert.direction]
  } ${alert.target_rate}`;
  const pause = useWrite({
    call: changeRateAlert,
    invalidates: [rateAlertKeys.of(accountRef)],
    onSuccess: (a) => notify({ title: a.paused ? `Paused: ${name}` : `Resumed: ${name}`, color: "success" }),
  });
  const removal = useWrite({
    call: deleteRateAlert,
    invalidates: [rateAlertKeys.of(accountRef)],
    idempotent: true,
    onSuccess() {
      queries.setQueryData<RateAlertList>(
        rateAlertKeys.of(accountRef),
        (list) => list && { ...list, items: list.items.filter((i) => i.id !== alert.id) },
      );
      notify({ title: `Deleted: ${name}`, color: "success" });
      // The row goes with its buttons: the list's heading, which says how many are left, takes the keyboard.
      pressed.current = null;
      heading.current?.focus();
    },
  });
  const busy = pause.isPending || removal.isPending;
  useEffect(() => {
    if (busy || !pressed.current) return;
    pressed.current.focus();
    pressed.current = null;
  }, [busy]);
  const failure = pause.error ?? removal.error;
  return (
    <li className="flex flex-wrap items-start justify-between gap-3 border-t border-neutral-200 py-3 dark:border-neutral-800">
      <div>
        <p className="font-medium">
          {pair(alert.sell_currency, alert.target_rate, alert.buy_currency)}, {directionWords[alert.direction]}
        </p>
        <p className="text-sm text-neutral-600 dark:text-neutral-300">
          {alert.current_rate ? <>Now: {pair(alert.sell_currency, alert.current_rate, alert.buy_currency)} ·</> : null}
          {" "}
          {alert.fired_at
            ? (
              <strong className="text-green-800 dark:text-green-400">
                Fired {moment(alert.fired_at)} at {pair(alert.sell_currency, alert.fired_rate!, alert.buy_currency)}
              </strong>
            )
            : alert.paused
            ? "Paused"
            : "Watching"}
        </p>
        {failure ? <p role="alert" className="field-error">{errorText(failure)}</p> : null}
      </div>
      {canManage
        ? (
          <div className="flex gap-2">
            {alert.fired_at ? null : (
              <BusyButton
                type="button"
                className="btn-ghost"
                busy={pause.isPending}
                aria-label={`${alert.paused ? "Resume" : "Pause"} ${name}`}
                onClick={(event) => {
                  pressed.current = event.currentTarget;
                  pause.mutate({ params: { id: alert.id }, body: { paused: !alert.paused } });
                }}
              >
                {alert.paused ? "Resume" : "Pause"}
              </BusyButton>
            )}
            <BusyButton
              type="button"
              className="btn-ghost"
              busy={removal.isPending}
              aria-label={`Delete ${name}`}
              onClick={(event) => {
                pressed.current = event.currentTarget;
                removal.mutate({ params: { id: alert.id } });
              }}
            >
              Delete
            </BusyButton>
          </div>
        )
        : null}
    </li>
  );
}

/**
 * /account/ratealerts: the form that sets an alert, with the pair's mid-market rate beside it, and
 * the account's alerts with the rate now, paused or watching, or when they fired and at what rate.
 * The list is a query seeded from the server's render; every write refreshes it.
 */
function RateAlerts({ accountRef, alerts, rates, currencies, canManage }: RateAlertsProps) {
  const queries = useQueryClient();
  // The server's rates go into the page's cache once, as the rates query of their base.
  useState(() => {
    if (queries.getQueryData(rateKeys.of(rates.base)) === undefined) {
      queries.setQueryData(rateKeys.of(rates.base), rates);
    }
  });
  const list = useQuery({ ...rateAlertsQuery(accountRef), initialData: alerts });
  const data = list.data ?? alerts;
  const full = data.items.length >= data.limit;
  const heading = useRef<HTMLHeadingElement>(null);
  return (
    <div className="flex flex-col gap-6">
      {canManage && !full ? <NewAlert accountRef={accountRef} currencies={currencies} /> : null}
      {canManage && full
        ? (
          <Alert tone="warning" live={false} title={`You have ${data.limit} alerts`}>
            An account keeps at most {data.limit} rate alerts: delete one to set another.
          </Alert>
        )
        : null}
      <section aria-labelledby="alerts-heading" className="card">
        <h2 ref={heading} tabIndex={-1} id="alerts-heading" className="mb-2 text-lg font-semibold">
          Your alerts ({data.items.length} of {data.limit})
        </h2>
        {data.items.length
          ? (
            <ul aria-label="Rate alerts">
              {data.items.map((a) => (
                <AlertRow key={a.id} accountRef={accountRef} alert={a} canManage={canManage} heading={heading} />
              ))}
            </ul>
          )
          : <p className="text-neutral-600 dark:text-neutral-300">No alerts yet.</p>}
      </section>
    </div>
  );
}

export default withQueries(RateAlerts);
