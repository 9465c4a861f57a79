import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { getRates, type Rates, type RatesUpdate, saveRates } from "./console/calls.ts";
import { notify } from "./lib/notification-store.ts";
import { read, withQueries } from "./lib/query-client.tsx";
import { quoteKeys, rateKeys } from "./lib/query-keys.ts";
import { Alert, FormAlert } from "./ui/alert.tsx";
import type { CurrencyOption } from "./ui/currency-select.tsx";
import { controlAttributes, Messages, TextField } from "./ui/field.tsx";
import { MUTED, ROW_HEADER, Table } from "./ui/table.tsx";
import { BusyButton, SubmitButton } from "./ui/submit-button.tsx";
import { useForm } from "./ui/use-form.ts";

export interface ConsoleRatesProps {
  /** The table in use, as the server rendered it: the rates query starts from it. */
  rates: Rates;
  currencies: CurrencyOption[];
  /**
   * Today (UTC, YYYY-MM-DD) by the server's clock: the date the form starts with, since rates an
   * administrator enters are today's, not those of the table they replace (which customers would
   * then read as the rates' date, and which the next day of the rate feed would replace at once).
   */
  today: string;
}

const valuesOf = (answer: Rates, currencies: readonly { code: string }[]) => ({
  as_of: answer.as_of,
  rates: Object.fromEntries(currencies.map((c) => [c.code, answer.rates[c.code] ?? ""])),
});

/** "rates.GBP" → "GBP". */
const currencyOf = (path: string) => path.slice("rates.".length);

/**
 * The administrators' indicative rates: one rate per currency (units for 1 unit of the base) and
 * the date they are for (today unless the administrator says otherwise). Save sends PUT
 * console/rates {base, as_of, rates} with the filled rates (the base's own "1" is implied); a 422
 * shows each problem under its rate ("rates.USD").
 *
 * A rate that moves by more than 10 % is answered 409 with each move under its rate
 * (docs/decisions/025): the form lists the moves above its button and asks for a confirmation,
 * which sends the same rates again with those currencies in confirm_changes. Changing anything
 * drops the confirmation asked for.
 */
function ConsoleRates({ rates: initial, currencies, today }: ConsoleRatesProps) {
  const queries = useQueryClient();
  const table =
    useQuery({ ...read(rateKeys.of(initial.base), getRates, { query: { base: initial.base } }), initialData: initial })
      .data;
  const base = table.base;
  /** The large moves the server asked to confirm, by field ("rates.GBP"), until the form changes. */
  const [moves, setMoves] = useState<Record<string, string> | null>(null);
  const form = useForm({
    call: saveRates,
    idempotent: true,
    // Prices follow the rates.
    invalidates: [quoteKeys.all],
    values: { ...valuesOf(initial, currencies), as_of: today },
    onSuccess(answer) {
      queries.setQueryData(rateKeys.of(answer.base), answer);
      const saved = valuesOf(answer, currencies);
      form.set("as_of", saved.as_of);
      form.set("rates", saved.rates);
      notify({ title: "Rates saved", description: `Rates as of ${answer.as_of} are in use.`, color: "success" });
    },
  });

  async function send(confirm_changes: RatesUpdate["confirm_changes"]) {
    const rates: Record<string, string> = {};
    for (const [code, value] of Object.entries(form.values.rates)) {
      if (code !== base && value.trim()) rates[code] = value.trim();
    }
    setMoves(null);
    // The base as the server answered it: one of the currencies it supports.
    const result = await form.submit({
      body: { base: base as RatesUpdate["base"], as_of: form.values.as_of, rates, confirm_changes },
    });
    const asked = !result.ok && result.failure?.status === 409 ? result.failure.fields ?? {} : {};
    if (Object.keys(asked).length > 0) setMoves(asked);
  }

  function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void send([]);
  }

  /** A change to the form: a confirmation asked for was about other values. */
  function change(path: string, value: string) {
    form.set(path, value);
    setMoves(null);
  }

  const shown = ["as_of", ...currencies.map((c) => `rates.${c.code}`)];

  return (
    <form onSubmit={save} noValidate aria-label="Indicative rates" className="flex flex-col gap-4">
      <p className="text-sm text-neutral-700 dark:text-neutral-300">
        {`In use: rates as of ${table.as_of}, source ${table.source}`}
        {/* The mark says "indicative" when the source does not already: never "source indicativeindicative". */}
        {table.indicative && table.source !== "indicative"
          ? (
            <>
              {" "}
              <span className="ml-2 rounded-full bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-900 dark:bg-amber-900 dark:text-amber-100">
                indicative
              </span>
            </>
          )
          : null}
      </p>
      <FormAlert error={moves ? null : form.error} fields={form.fields} shown={shown} />
      <TextField
        id="rates-as-of"
        label="Rates as of"
        type="date"
        fieldClassName="max-w-xs"
        value={form.values.as_of}
        onChange={(event) => change("as_of", event.currentTarget.value)}
        error={form.fields.as_of}
      />

      <p className="field-hint">
        {`Each rate is how many units of the currency one ${base} buys. An empty rate leaves that currency out of the table.`}
      </p>
      <Table caption="Rates" columns={[{ label: "Currency" }, { label: `Rate for 1 ${base}` }]}>
        {currencies.map((c) => {
          const name = <span className={`ml-2 font-normal ${MUTED}`}>{c.name}</span>;
          return (
            <tr key={c.code}>
              <th scope="row" className={ROW_HEADER}>
                {c.code === base ? <>{c.code}{name}</> : <label htmlFor={`rate-${c.code}`}>{c.code}{name}</label>}
              </th>
              <td className="px-4 py-2">
                {c.code === base
                  ? (
                    <span className="tabular-nums">
                      1 <span className={MUTED}>(the base)</span>
                    </span>
                  )
                  : (
                    // Labelled by the row's header.
                    <>
                      <input
                        {...controlAttributes(`rate-${c.code}`, undefined, form.fields[`rates.${c.code}`])}
                        type="text"
                        inputMode="decimal"
                        autoComplete="off"
                        spellCheck={false}
                        value={form.values.rates[c.code] ?? ""}
                        onChange={(event) => change(`rates.${c.code}`, event.currentTarget.value)}
                        className="field-control max-w-48 font-mono tabular-nums"
                      />
                      <Messages id={`rate-${c.code}`} error={form.fields[`rates.${c.code}`]} />
                    </>
                  )}
              </td>
            </tr>
          );
        })}
      </Table>
      {moves
        ? (
          <Alert tone="warning" title="Large changes: confirm before they are used" live>
            <ul className="list-disc pl-5">
              {Object.entries(moves).map(([path, move]) => <li key={path}>{move}</li>)}
            </ul>
            <BusyButton
              type="button"
              className="btn-primary mt-3"
              busy={form.submitting}
              onClick={() => void send(Object.keys(moves).map(currencyOf) as RatesUpdate["confirm_changes"])}
            >
              {`Confirm ${Object.keys(moves).map(currencyOf).join(", ")} and save`}
            </BusyButton>
          </Alert>
        )
        : null}
      <div>
        <SubmitButton pending={form.submitting} pendingLabel="Saving…" className="btn-primary">Save rates</SubmitButton>
      </div>
    </form>
  );
}

export default withQueries(ConsoleRates);
