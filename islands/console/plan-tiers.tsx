/**
 * A plan's FX markup by amount: tiers of "up to" (in the tier currency) and basis points, the last
 * one open ("and above"). Rows can be added and removed; at least one stays.
 */
import { AmountInput } from "../ui/amount.tsx";
import { TextField } from "../ui/field.tsx";
import { Table } from "../ui/table.tsx";
import type { Draft } from "./plan-draft.ts";

export function PlanTiers({ draft, fields, set }: {
  draft: Draft;
  fields: Record<string, string>;
  set: (path: string, value: unknown) => void;
}) {
  const last = draft.tiers.length - 1;
  // A new tier goes last (open); the one before it then needs its up_to.
  const addTier = () => set("tiers", [...draft.tiers, { up_to: "", bps: draft.tiers[last]?.bps ?? "0" }]);
  const removeTier = (i: number) => set("tiers", draft.tiers.filter((_, j) => j !== i));
  return (
    <fieldset className="flex flex-col gap-2">
      <legend className="field-label">FX markup by amount</legend>
      <p className="field-hint">
        {`Each tier covers amounts up to its limit (in ${draft.tier_currency}); the last tier covers everything above. 100 bps = 1%.`}
      </p>
      <Table
        caption={null}
        className="max-w-2xl"
        columns={[
          { label: "Tier" },
          { label: `Up to (${draft.tier_currency})` },
          { label: "Markup (bps)" },
          { label: "Remove", hidden: true },
        ]}
      >
        {draft.tiers.map((tier, i) => (
          <tr key={i} className="align-top">
            <th scope="row" className="px-4 py-2 font-medium">{i + 1}</th>
            <td className="px-4 py-2">
              {i === last
                ? <span className="inline-block py-2 text-neutral-600 dark:text-neutral-300">and above</span>
                : (
                  <AmountInput
                    id={`plan-tier-${i}-up-to`}
                    label={`Tier ${i + 1} up to`}
                    hideLabel
                    required={false}
                    value={tier.up_to}
                    onChange={(event) => set(`tiers.${i}.up_to`, event.currentTarget.value)}
                    error={fields[`tiers.${i}.up_to`]}
                    className="font-mono"
                  />
                )}
            </td>
            <td className="px-4 py-2">
              <TextField
                id={`plan-tier-${i}-bps`}
                label={`Tier ${i + 1} markup in basis points`}
                hideLabel
                type="text"
                inputMode="numeric"
                autoComplete="off"
                required={false}
                value={tier.bps}
                onChange={(event) => set(`tiers.${i}.bps`, event.currentTarget.value)}
                error={fields[`tiers.${i}.bps`]}
                className="max-w-28 font-mono tabular-nums"
              />
            </td>
            <td className="px-4 py-2">
              <button
                type="button"
                className="btn-ghost"
                onClick={() => removeTier(i)}
                disabled={draft.tiers.length === 1}
                aria-label={`Remove tier ${i + 1}`}
              >
                Remove
              </button>
            </td>
          </tr>
        ))}
      </Table>
      <div>
        <button type="button" className="btn-outline" onClick={addTier}>Add a tier</button>
      </div>
    </fieldset>
  );
}
