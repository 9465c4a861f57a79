import { useQuery } from "@tanstack/react-query";
import { lazy, Suspense, useState } from "react";
import { listPlans, type PricingPlan } from "./console/calls.ts";
import { PLAN_COLUMNS, PlanRows } from "./console/plan-rows.tsx";
import { read, withQueries } from "./lib/query-client.tsx";
import { pricingPlanKeys } from "./lib/query-keys.ts";
import type { CurrencyOption } from "./ui/currency-select.tsx";
import { EmptyRow, Table } from "./ui/table.tsx";
import { useInPlace } from "./ui/take-focus.ts";

/**
 * The plan editor, loaded when the administrator opens it (or points at a button that does): it is
 * most of this page's code, and most visits only look at the plans. Should it fail to load, the
 * panel says so instead of the editor.
 */
const loadEditor = () => import("./console/plan-editor.tsx");
const PlanEditor = lazy(() =>
  loadEditor().catch(() => ({
    default: () => (
      <p role="alert" className="field-error">The editor could not be loaded. Reload the page to try again.</p>
    ),
  }))
);

export interface ConsolePricingPlansProps {
  /** As the server rendered them: the plans query starts from these. */
  plans: PricingPlan[];
  currencies: CurrencyOption[];
}

/**
 * The administrators' pricing plans: the list, an editor for one plan (name, tier currency, tiers
 * of up_to and bps, fees per currency) that saves with PUT console/pricingplans/{id} or creates
 * with POST console/pricingplans (a new plan starts as a copy of the default), and per plan an
 * "Assign to an account" form: PUT console/pricingplans/{id} {assign_account_ref}.
 */
function ConsolePricingPlans({ plans: initial, currencies }: ConsolePricingPlansProps) {
  const plans = useQuery({ ...read(pricingPlanKeys.all, listPlans), initialData: initial }).data;
  const [editing, setEditing] = useState<
    { id: PricingPlan["id"] | null; template: PricingPlan | undefined; name: string } | null
  >(null);
  const [assigning, setAssigning] = useState<PricingPlan["id"] | null>(null);

  // The editor opens below the table from New plan or a plan's Edit: given up (Cancel, Escape), it
  // gives the keyboard back to the button that opened it.
  const editor = useInPlace({ open: editing !== null, setOpen: (shown) => !shown && setEditing(null) });

  function edit(plan: PricingPlan, from: HTMLButtonElement) {
    setAssigning(null);
    editor.showFrom(from);
    setEditing({ id: plan.id, template: plan, name: plan.name });
  }

  function create(from: HTMLButtonElement) {
    setAssigning(null);
    const template = plans.find((p) => p.is_default) ?? plans[0];
    editor.showFrom(from);
    setEditing({ id: null, template, name: "" });
  }

  return (
    <div className="flex flex-col gap-6">
      <div>
        <button
          type="button"
          className="btn-primary"
          onClick={(event) => create(event.currentTarget)}
          onPointerEnter={loadEditor}
          onFocus={loadEditor}
          aria-expanded={editing?.id === null}
        >
          New plan
        </button>
      </div>

      <Table caption="Pricing plans" columns={PLAN_COLUMNS}>
        {plans.length === 0 ? <EmptyRow columns={PLAN_COLUMNS.length}>No plans yet.</EmptyRow> : null}
        {plans.map((plan) => (
          <PlanRows
            key={plan.id}
            plan={plan}
            assigning={assigning === plan.id}
            onEdit={(from) => edit(plan, from)}
            onEditorWanted={loadEditor}
            onAssign={(open) => {
              setAssigning(open ? plan.id : null);
              if (open) setEditing(null);
            }}
          />
        ))}
      </Table>

      {editing
        ? (
          <Suspense
            fallback={
              <p role="status" className="text-sm text-neutral-600 dark:text-neutral-300">Opening the editor…</p>
            }
          >
            <PlanEditor
              key={String(editing.id ?? "new")}
              id={editing.id}
              template={editing.template}
              name={editing.name}
              plan={plans.find((p) => p.id === editing.id)}
              currencies={currencies}
              onCancel={editor.dismiss}
              onSaved={() => setEditing(null)}
            />
          </Suspense>
        )
        : null}
    </div>
  );
}

export default withQueries(ConsolePricingPlans);
