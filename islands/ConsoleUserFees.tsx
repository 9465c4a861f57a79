import { type FormEvent, useState } from "react";
import { api, errorText, fieldsOf, isAbort } from "./lib/api.ts";
import { ERROR, inputClass } from "./lib/console-fields.ts";
import { FormAlert } from "./lib/form-alert.tsx";
import { SubmitButton, useIdempotencyKey } from "./lib/forms.tsx";
import { notify } from "./lib/notifications.ts";

/** A customer's overrides as their session summary carries them: currency → fee, by kind. */
export interface FeeOverrides {
  override_transfer_fee: boolean;
  override_regular_transfer_fee: Record<string, string> | null;
  override_priority_transfer_fee: Record<string, string> | null;
}

export interface ConsoleUserFeesProps {
  userId: number;
  name: string;
  overrides: FeeOverrides;
  currencies: { code: string; name: string }[];
}

const KINDS = [["regular", "Regular fee"], ["priority", "Priority fee"]] as const;
type Kind = (typeof KINDS)[number][0];
type Typed = Record<string, Record<Kind, string>>;

/** The fees as typed: a regular and a priority fee per currency, empty where the plan's applies. */
const typedOf = (overrides: FeeOverrides, currencies: readonly { code: string }[]): Typed =>
  Object.fromEntries(currencies.map((c) => [c.code, {
    regular: overrides.override_regular_transfer_fee?.[c.code] ?? "",
    priority: overrides.override_priority_transfer_fee?.[c.code] ?? "",
  }]));

/**
 * A customer's fee overrides, per currency like a pricing plan's fees (DESIGN.md section 4,
 * docs/decisions/025): when on, a fee given here replaces the plan's fee of a transfer selling that
 * currency; an empty one leaves the plan's. PUT console/users/{userId}/fees with the currencies that
 * have a fee; a 422 shows each problem under its fee ("fees.JPY.regular").
 */
export default function ConsoleUserFees({ userId, name, overrides, currencies }: ConsoleUserFeesProps) {
  const idempotencyKey = useIdempotencyKey();
  const [on, setOn] = useState(overrides.override_transfer_fee);
  const [typed, setTyped] = useState<Typed>(() => typedOf(overrides, currencies));
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fields, setFields] = useState<Record<string, string>>({});

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (pending) return;
    const fees: Record<string, { regular: string | null; priority: string | null }> = {};
    for (const [code, fee] of Object.entries(typed)) {
      const regular = fee.regular.trim();
      const priority = fee.priority.trim();
      if (regular || priority) fees[code] = { regular: regular || null, priority: priority || null };
    }
    const payload = { override_transfer_fee: on, fees };
    setPending(true);
    setError(null);
    setFields({});
    try {
      const user = await api.put<FeeOverrides>(`console/users/${userId}/fees`, payload, {
        idempotencyKey: idempotencyKey(payload),
      });
      setOn(user.override_transfer_fee);
      setTyped(typedOf(user, currencies));
      notify({
        title: "Fees saved",
        description: `${name || "The customer"} ${
          user.override_transfer_fee ? "now pays the fees set here." : "pays their pricing plan's fees."
        }`,
        color: "success",
      });
    } catch (err) {
      if (!isAbort(err)) {
        setError(errorText(err));
        setFields(fieldsOf(err));
      }
    } finally {
      setPending(false);
    }
  }

  return (
    <form
      onSubmit={save}
      noValidate
      aria-label={`Transfer fees for ${name || "this customer"}`}
      className="flex flex-col gap-4"
    >
      <FormAlert
        error={error}
        fields={fields}
        shown={["override_transfer_fee", ...currencies.flatMap((c) => KINDS.map(([kind]) => `fees.${c.code}.${kind}`))]}
      />
      <div className="flex items-center gap-2">
        <input
          id="user-fees-on"
          type="checkbox"
          checked={on}
          onChange={(event) => setOn(event.currentTarget.checked)}
          aria-invalid={fields.override_transfer_fee ? true : undefined}
          aria-describedby={fields.override_transfer_fee ? "user-fees-on-error" : "user-fees-hint"}
          className="size-4 accent-primary-700"
        />
        <label htmlFor="user-fees-on" className="text-sm font-medium">Override the plan's transfer fees</label>
      </div>
      {fields.override_transfer_fee
        ? <p id="user-fees-on-error" className={ERROR}>{fields.override_transfer_fee}</p>
        : null}
      <p id="user-fees-hint" className="text-sm text-neutral-600 dark:text-neutral-300">
        {on
          ? "A fee given here is charged, in its currency, on a transfer selling that currency, in place of the plan's. An empty fee leaves the plan's."
          : "Off: the customer pays their pricing plan's fees; the fees below are kept but not used."}
      </p>
      <div className="max-h-[32rem] overflow-auto rounded-xl border border-neutral-200 dark:border-neutral-800">
        <table className="w-full text-left text-sm">
          <caption className="sr-only">Fee overrides by currency</caption>
          <thead className="sticky top-0 bg-neutral-50 text-neutral-700 dark:bg-neutral-900 dark:text-neutral-300">
            <tr>
              <th scope="col" className="px-4 py-3 font-semibold">Currency</th>
              {KINDS.map(([kind, label]) => <th key={kind} scope="col" className="px-4 py-3 font-semibold">{label}
              </th>)}
            </tr>
          </thead>
          <tbody className="divide-y divide-neutral-200 dark:divide-neutral-800">
            {currencies.map((c) => (
              <tr key={c.code}>
                <th scope="row" className="px-4 py-2 font-medium text-neutral-900 dark:text-neutral-100">
                  {c.code}
                  <span className="ml-2 font-normal text-neutral-600 dark:text-neutral-300">{c.name}</span>
                </th>
                {KINDS.map(([kind, label]) => {
                  const id = `fee-${c.code}-${kind}`;
                  const problem = fields[`fees.${c.code}.${kind}`];
                  return (
                    <td key={kind} className="px-4 py-2">
                      <input
                        id={id}
                        type="text"
                        inputMode="decimal"
                        autoComplete="off"
                        spellCheck={false}
                        aria-label={`${label} in ${c.code}`}
                        value={typed[c.code]?.[kind] ?? ""}
                        onChange={(event) => {
                          const value = event.currentTarget.value;
                          setTyped((t) => ({ ...t, [c.code]: { ...t[c.code], [kind]: value } }));
                        }}
                        aria-invalid={problem ? true : undefined}
                        aria-describedby={problem ? `${id}-error` : undefined}
                        className={`max-w-36 font-mono tabular-nums ${inputClass(!!problem)}`}
                      />
                      {problem ? <p id={`${id}-error`} className={ERROR}>{problem}</p> : null}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div>
        <SubmitButton pending={pending} pendingLabel="Saving…" className="btn-primary">Save fees</SubmitButton>
      </div>
    </form>
  );
}
