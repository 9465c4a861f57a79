import { type FormEvent, useState } from "react";
import { api, ApiCallError, errorText, fieldsOf, isAbort } from "./lib/api.ts";
import { FormAlert } from "./lib/form-alert.tsx";
import { SubmitButton, useIdempotencyKey } from "./lib/forms.tsx";
import { notify } from "./lib/notifications.ts";
import { ERROR, inputClass, LABEL } from "./lib/console-fields.ts";

/** GET rates / PUT console/rates. */
export interface RatesAnswer {
  base: string;
  as_of: string;
  source: string;
  indicative: boolean;
  /** Currency code → units of it for one unit of `base`. */
  rates: Record<string, string>;
}

export interface ConsoleRatesProps {
  rates: RatesAnswer;
  currencies: { code: string; name: string }[];
}

const valuesOf = (answer: RatesAnswer, currencies: { code: string }[]) =>
  Object.fromEntries(currencies.map((c) => [c.code, answer.rates[c.code] ?? ""]));

/** "rates.GBP" → "GBP". */
const currencyOf = (path: string) => path.slice("rates.".length);

/**
 * The administrators' indicative rates: one rate per currency (units for 1 unit of the base) and
 * the date they are for. Save sends PUT console/rates {base, as_of, rates} with the filled rates
 * (the base's own "1" is implied); a 422 shows each problem under its rate ("rates.USD"). A rate
 * that moves by more than 10 % is answered 409 with each move under its rate (docs/decisions/025):
 * the form lists the moves and asks for a confirmation, which sends the same rates again with those
 * currencies in confirm_changes. Changing anything drops the confirmation asked for.
 */
export default function ConsoleRates({ rates: initial, currencies }: ConsoleRatesProps) {
  const idempotencyKey = useIdempotencyKey();
  const [table, setTable] = useState(initial);
  const [values, setValues] = useState<Record<string, string>>(() => valuesOf(initial, currencies));
  const [asOf, setAsOf] = useState(initial.as_of);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fields, setFields] = useState<Record<string, string>>({});
  /** The large moves the server asked to confirm, by field ("rates.GBP"), until the form changes. */
  const [moves, setMoves] = useState<Record<string, string> | null>(null);
  const base = table.base;

  function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void send([]);
  }

  async function send(confirm_changes: string[]) {
    if (pending) return;
    const rates: Record<string, string> = {};
    for (const [code, value] of Object.entries(values)) {
      if (code !== base && value.trim()) rates[code] = value.trim();
    }
    const payload = { base, as_of: asOf, rates, confirm_changes };
    setPending(true);
    setError(null);
    setFields({});
    setMoves(null);
    try {
      const answer = await api.put<RatesAnswer>("console/rates", payload, { idempotencyKey: idempotencyKey(payload) });
      setTable(answer);
      setValues(valuesOf(answer, currencies));
      setAsOf(answer.as_of);
      notify({ title: "Rates saved", description: `Rates as of ${answer.as_of} are in use.`, color: "success" });
    } catch (err) {
      if (!isAbort(err)) {
        setError(errorText(err));
        setFields(fieldsOf(err));
        const asked = err instanceof ApiCallError && err.status === 409 ? fieldsOf(err) : {};
        if (Object.keys(asked).length > 0) setMoves(asked);
      }
    } finally {
      setPending(false);
    }
  }

  const shown = ["as_of", ...currencies.map((c) => `rates.${c.code}`)];
  const asOfError = fields.as_of;

  return (
    <form onSubmit={save} noValidate aria-label="Indicative rates" className="flex flex-col gap-4">
      <p className="text-sm text-neutral-700 dark:text-neutral-300">
        {`In use: rates as of ${table.as_of}, source ${table.source}`}
        {table.indicative
          ? (
            <span className="ml-2 rounded-full bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-900 dark:bg-amber-900 dark:text-amber-100">
              indicative
            </span>
          )
          : null}
      </p>
      <FormAlert error={moves ? null : error} fields={fields} shown={shown} />
      <div className="max-w-xs">
        <label htmlFor="rates-as-of" className={LABEL}>Rates as of</label>
        <input
          id="rates-as-of"
          type="date"
          required
          value={asOf}
          onChange={(event) => {
            setAsOf(event.currentTarget.value);
            setMoves(null);
          }}
          aria-invalid={asOfError ? true : undefined}
          aria-describedby={asOfError ? "rates-as-of-error" : undefined}
          className={`mt-1 ${inputClass(!!asOfError)}`}
        />
        {asOfError ? <p id="rates-as-of-error" className={ERROR}>{asOfError}</p> : null}
      </div>

      <p id="rates-hint" className="text-sm text-neutral-600 dark:text-neutral-300">
        {`Each rate is how many units of the currency one ${base} buys. An empty rate leaves that currency out of the table.`}
      </p>
      <div className="overflow-x-auto rounded-xl border border-neutral-200 dark:border-neutral-800">
        <table className="w-full text-left text-sm">
          <thead className="bg-neutral-50 text-neutral-700 dark:bg-neutral-900 dark:text-neutral-300">
            <tr>
              <th scope="col" className="px-4 py-3 font-semibold">Currency</th>
              <th scope="col" className="px-4 py-3 font-semibold">{`Rate for 1 ${base}`}</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-neutral-200 dark:divide-neutral-800">
            {currencies.map((c) => {
              const id = `rate-${c.code}`;
              const problem = fields[`rates.${c.code}`];
              return (
                <tr key={c.code}>
                  <th scope="row" className="px-4 py-2 font-medium text-neutral-900 dark:text-neutral-100">
                    {c.code === base
                      ? (
                        <>
                          {c.code}
                          <span className="ml-2 font-normal text-neutral-600 dark:text-neutral-300">{c.name}</span>
                        </>
                      )
                      : (
                        <label htmlFor={id}>
                          {c.code}
                          <span className="ml-2 font-normal text-neutral-600 dark:text-neutral-300">{c.name}</span>
                        </label>
                      )}
                  </th>
                  <td className="px-4 py-2">
                    {c.code === base
                      ? (
                        <span className="tabular-nums">
                          1 <span className="text-neutral-600 dark:text-neutral-300">(the base)</span>
                        </span>
                      )
                      : (
                        <>
                          <input
                            id={id}
                            type="text"
                            inputMode="decimal"
                            autoComplete="off"
                            spellCheck={false}
                            value={values[c.code] ?? ""}
                            onChange={(event) => {
                              const value = event.currentTarget.value;
                              setValues((v) => ({ ...v, [c.code]: value }));
                              setMoves(null);
                            }}
                            aria-invalid={problem ? true : undefined}
                            aria-describedby={problem ? `${id}-error` : undefined}
                            className={`max-w-48 font-mono tabular-nums ${inputClass(!!problem)}`}
                          />
                          {problem ? <p id={`${id}-error`} className={ERROR}>{problem}</p> : null}
                        </>
                      )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {moves
        ? (
          <div
            role="alert"
            className="rounded-md border-l-4 border-amber-500 bg-amber-50 p-4 text-sm text-amber-900 dark:border-amber-400 dark:bg-amber-950 dark:text-amber-100"
          >
            <p className="font-semibold">Large changes: confirm before they are used</p>
            <ul className="mt-1 list-disc pl-5">
              {Object.entries(moves).map(([path, move]) => <li key={path}>{move}</li>)}
            </ul>
            <button
              type="button"
              className="btn-primary mt-3"
              disabled={pending}
              onClick={() => void send(Object.keys(moves).map(currencyOf))}
            >
              {`Confirm ${Object.keys(moves).map(currencyOf).join(", ")} and save`}
            </button>
          </div>
        )
        : null}
      <div>
        <SubmitButton pending={pending} pendingLabel="Saving…" className="btn-primary">Save rates</SubmitButton>
      </div>
    </form>
  );
}
