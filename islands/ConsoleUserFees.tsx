import type { FormEvent } from "react";
import { setFees } from "./console/calls.ts";
import { notify } from "./lib/notification-store.ts";
import { withQueries } from "./lib/query-client.tsx";
import { FormAlert } from "./ui/alert.tsx";
import type { CurrencyOption } from "./ui/currency-select.tsx";
import { CheckboxField, controlAttributes, Messages } from "./ui/field.tsx";
import { SubmitButton } from "./ui/submit-button.tsx";
import { MUTED, ROW_HEADER, Table } from "./ui/table.tsx";
import { useForm } from "./ui/use-form.ts";

/** A customer's overrides as their session summary carries them: currency → fee, by kind. */
export interface CustomerFeeOverrides {
  override_transfer_fee: boolean;
  override_regular_transfer_fee: Record<string, string> | null;
  override_priority_transfer_fee: Record<string, string> | null;
}

export interface ConsoleUserFeesProps {
  userId: number;
  name: string;
  overrides: CustomerFeeOverrides;
  currencies: CurrencyOption[];
}

const HINT_ID = "user-fees-hint";
const KINDS = [["regular", "Regular fee"], ["priority", "Priority fee"]] as const;

type Kind = (typeof KINDS)[number][0];
type Typed = { override_transfer_fee: boolean; fees: Record<string, Record<Kind, string>> };

/** The form's values: a regular and a priority fee per currency, empty where the plan's applies. */
const valuesOf = (overrides: CustomerFeeOverrides, currencies: readonly CurrencyOption[]): Typed => ({
  override_transfer_fee: overrides.override_transfer_fee,
  fees: Object.fromEntries(currencies.map((c) => [c.code, {
    regular: overrides.override_regular_transfer_fee?.[c.code] ?? "",
    priority: overrides.override_priority_transfer_fee?.[c.code] ?? "",
  }])),
});

/**
 * A customer's fee overrides, per currency like a pricing plan's fees (DESIGN.md section 4,
 * docs/decisions/025): when on, a fee given here replaces the plan's fee of a transfer selling that
 * currency; an empty one leaves the plan's. PUT console/users/{userId}/fees with the currencies
 * that have a fee; a 422 shows each problem under its fee ("fees.JPY.regular").
 */
function ConsoleUserFees({ userId, name, overrides, currencies }: ConsoleUserFeesProps) {
  const form = useForm({
    call: setFees,
    idempotent: true,
    values: valuesOf(overrides, currencies),
    onSuccess(user) {
      const saved = valuesOf(user, currencies);
      form.set("override_transfer_fee", saved.override_transfer_fee);
      form.set("fees", saved.fees);
      notify({
        title: "Fees saved",
        description: `${name || "The customer"} ${
          user.override_transfer_fee ? "now pays the fees set here." : "pays their pricing plan's fees."
        }`,
        color: "success",
      });
    },
  });
  const on = form.values.override_transfer_fee;

  function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const fees: Record<string, { regular: string | null; priority: string | null }> = {};
    for (const [code, fee] of Object.entries(form.values.fees)) {
      const regular = fee.regular.trim();
      const priority = fee.priority.trim();
      if (regular || priority) fees[code] = { regular: regular || null, priority: priority || null };
    }
    void form.submit({ params: { id: userId }, body: { override_transfer_fee: on, fees } });
  }

  const shown = (path: string) => path === "override_transfer_fee" || /^fees\.[A-Z]{3}\.(regular|priority)$/.test(path);

  return (
    <form
      onSubmit={save}
      noValidate
      aria-label={`Transfer fees for ${name || "this customer"}`}
      className="flex flex-col gap-4"
    >
      <FormAlert error={form.error} fields={form.fields} shown={shown} />
      <CheckboxField
        id="user-fees-on"
        label="Override the plan's transfer fees"
        checked={on}
        onChange={(event) => form.set("override_transfer_fee", event.currentTarget.checked)}
        error={form.fields.override_transfer_fee}
      />
      <p id={HINT_ID} className="field-hint">
        {on
          ? "A fee given here is charged, in its currency, on a transfer selling that currency, in place of the plan's. An empty fee leaves the plan's."
          : "Off: the customer pays their pricing plan's fees; the fees below are kept but not used."}
      </p>
      <Table
        caption="Fee overrides by currency"
        columns={[{ label: "Currency" }, ...KINDS.map(([, label]) => ({ label }))]}
        className="max-h-[32rem]"
      >
        {currencies.map((c) => (
          <tr key={c.code}>
            <th scope="row" className={ROW_HEADER}>
              {c.code}
              <span className={`ml-2 font-normal ${MUTED}`}>{c.name}</span>
            </th>
            {KINDS.map(([kind, label]) => {
              const id = `fee-${c.code}-${kind}`;
              const problem = form.fields[`fees.${c.code}.${kind}`];
              return (
                <td key={kind} className="px-4 py-2">
                  <input
                    {...controlAttributes(id, undefined, problem)}
                    aria-label={`${label} in ${c.code}`}
                    type="text"
                    inputMode="decimal"
                    autoComplete="off"
                    spellCheck={false}
                    value={form.values.fees[c.code]?.[kind] ?? ""}
                    onChange={(event) => form.set(`fees.${c.code}.${kind}`, event.currentTarget.value)}
                    className="field-control max-w-36 font-mono tabular-nums"
                  />
                  <Messages id={id} error={problem} />
                </td>
              );
            })}
          </tr>
        ))}
      </Table>
      <div>
        <SubmitButton pending={form.submitting} pendingLabel="Saving…" className="btn-primary">Save fees</SubmitButton>
      </div>
    </form>
  );
}

export default withQueries(ConsoleUserFees);
