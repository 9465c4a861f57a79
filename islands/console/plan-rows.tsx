/** A pricing plan's row in the console's list: name, markup, accounts, Edit and Assign. */
import { useQueryClient } from "@tanstack/react-query";
import { notify } from "../lib/notification-store.ts";
import { pricingPlanKeys } from "../lib/query-keys.ts";
import { CELL, DetailRow, MUTED, ROW_HEADER } from "../ui/table.tsx";
import { useInPlace } from "../ui/take-focus.ts";
import { AccountRefForm } from "./account-ref-form.tsx";
import { assignPlan, type PricingPlan } from "./calls.ts";

export const PLAN_COLUMNS = [{ label: "Plan" }, { label: "Markup" }, { label: "Accounts" }, {
  label: "Actions",
  hidden: true,
}];

/** "0.50%" for 50 bps. */
const percent = (bps: number) => `${(bps / 100).toFixed(2)}%`;

/** "0.50% up to 10000.00 GBP, then 0.30%". */
export function tiersSummary(plan: Pick<PricingPlan, "tiers" | "tier_currency">): string {
  return plan.tiers
    .map((t, i) =>
      t.up_to === null
        ? (i === 0 ? percent(t.bps) : `then ${percent(t.bps)}`)
        : `${i === 0 ? "" : "then "}${percent(t.bps)} up to ${t.up_to} ${plan.tier_currency}`
    )
    .join(", ");
}

/** The plans once `ref` is on `plan`: an account has one plan, so it leaves the one it was on. */
function assigned(rows: PricingPlan[] | undefined, plan: PricingPlan, ref: string): PricingPlan[] {
  return (rows ?? []).map((p) =>
    p.id === plan.id
      ? { ...p, ...plan, accounts: plan.accounts ?? [...p.accounts.filter((a) => a !== ref), ref] }
      : { ...p, accounts: p.accounts.filter((a) => a !== ref) }
  );
}

export function PlanRows({ plan, assigning, onEdit, onAssign, onEditorWanted }: {
  plan: PricingPlan;
  assigning: boolean;
  /** `from`: the Edit button, which takes the keyboard back when the editor is given up. */
  onEdit: (from: HTMLButtonElement) => void;
  onAssign: (open: boolean) => void;
  /** The pointer or focus is on Edit: the editor's code can start loading. */
  onEditorWanted: () => void;
}) {
  const queries = useQueryClient();
  // Cancel or Escape in the assignment give the keyboard back to its Assign button.
  const assignment = useInPlace({ open: assigning, setOpen: onAssign });
  return (
    <>
      <tr>
        <th scope="row" className={ROW_HEADER}>
          <a className="underline" href={`/console/pricingplan/${plan.id}`}>{plan.name}</a>
          {plan.is_default
            ? (
              <span className="ml-2 rounded-full bg-primary-100 px-2 py-0.5 text-xs font-semibold text-primary-900 dark:bg-primary-900 dark:text-primary-100">
                Default
              </span>
            )
            : null}
        </th>
        <td className={CELL}>{tiersSummary(plan)}</td>
        <td className={CELL}>
          {plan.accounts.length
            ? <span className="font-mono">{plan.accounts.join(", ")}</span>
            : <span className={MUTED}>{plan.is_default ? "Every other account" : "None"}</span>}
        </td>
        <td className={CELL}>
          <div className="flex flex-wrap justify-end gap-2">
            <button
              type="button"
              className="btn-outline"
              onClick={(event) => onEdit(event.currentTarget)}
              onPointerEnter={onEditorWanted}
              onFocus={onEditorWanted}
              aria-label={`Edit ${plan.name}`}
            >
              Edit
            </button>
            <button
              type="button"
              className="btn-outline"
              ref={assignment.opener}
              onClick={assigning ? assignment.dismiss : assignment.show}
              aria-expanded={assigning}
              aria-controls={`assign-row-${plan.id}`}
              aria-label={`Assign ${plan.name} to an account`}
            >
              Assign
            </button>
          </div>
        </td>
      </tr>
      {assigning
        ? (
          <DetailRow id={`assign-row-${plan.id}`} columns={PLAN_COLUMNS.length}>
            <AccountRefForm
              id={`assign-${plan.id}`}
              label={`Assign ${plan.name} to an account`}
              field="assign_account_ref"
              write={{
                call: assignPlan,
                onSuccess(answer, input) {
                  const ref = input.body && "assign_account_ref" in input.body ? input.body.assign_account_ref : "";
                  const saved = { ...plan, ...answer };
                  queries.setQueryData<PricingPlan[]>(pricingPlanKeys.all, (rows) => assigned(rows, saved, ref));
                  onAssign(false);
                  notify({ title: `${ref} now uses ${saved.name}`, color: "success" });
                },
              }}
              input={{ params: { id: plan.id } }}
              submitLabel="Assign the plan"
              pendingLabel="Assigning…"
              first={assignment.first}
              onCancel={assignment.dismiss}
            />
          </DetailRow>
        )
        : null}
    </>
  );
}
