/** A plan's transfer fees: regular and priority, per currency. */
import { AmountInput } from "../ui/amount.tsx";
import type { CurrencyOption } from "../ui/currency-select.tsx";
import { Table } from "../ui/table.tsx";
import type { Draft } from "./plan-draft.ts";

export function PlanFees({ draft, currencies, fields, set }: {
  draft: Draft;
  currencies: readonly CurrencyOption[];
  fields: Record<string, string>;
  set: (path: string, value: unknown) => void;
}) {
  return (
    <fieldset className="flex flex-col gap-2">
      <legend className="field-label">Transfer fees</legend>
      <Table
        caption={null}
        className="max-h-96 overflow-y-auto"
        columns={[{ label: "Currency" }, { label: "Regular" }, { label: "Priority" }]}
      >
        {currencies.map((c) => (
          <tr key={c.code} className="align-top">
            <th scope="row" className="px-4 py-2 font-medium">
              {c.code}
              <span className="ml-2 font-normal text-neutral-600 dark:text-neutral-300">{c.name}</span>
            </th>
            {(["regular", "priority"] as const).map((kind) => (
              <td key={kind} className="px-4 py-2">
                <AmountInput
                  id={`plan-fee-${c.code}-${kind}`}
                  label={`${kind === "regular" ? "Regular" : "Priority"} fee in ${c.code}`}
                  hideLabel
                  required={false}
                  value={draft.fees[c.code]?.[kind] ?? ""}
                  onChange={(event) => set(`fees.${c.code}.${kind}`, event.currentTarget.value)}
                  error={fields[`fees.${c.code}.${kind}`]}
                  className="max-w-32 font-mono"
                />
              </td>
            ))}
          </tr>
        ))}
      </Table>
    </fieldset>
  );
}
