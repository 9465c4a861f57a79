import { lazy, Suspense, useState } from "react";
import { api } from "./lib/api.ts";
import { notify } from "./lib/notifications.ts";
import { AccountRefForm } from "./lib/account-ref-form.tsx";
import { ERROR, GHOST, TH } from "./lib/console-fields.ts";

/**
 * The plan editor, loaded when the administrator opens it (or points at a button that does): it is
 * most of this page's code, and most visits only look at the plans. Should it fail to load, the
 * panel says so instead of the editor.
 */
const loadEditor = () => import("./lib/plan-editor.tsx");
const PlanEditor = lazy(() =>
  loadEditor().catch(() => ({
    default: () => <p role="alert" className={ERROR}>The editor could not be loaded. Reload the page to try again.</p>,
  }))
);

export interface PlanTier {
  /** Upper bound (inclusive) in the tier currency; null for the last, open tier. */
  up_to: string | null;
  /** FX markup in basis points. */
  bps: number;
}

/** A row of GET console/pricingplans. */
export interface PricingPlanRow {
  id: number | string;
  name: string;
  is_default: boolean;
  tier_currency: string;
  tiers: PlanTier[];
  fees: Record<string, { regular: string; priority: string }>;
  /** The account_refs on this plan. */
  accounts: string[];
}

export interface ConsolePricingPlansProps {
  plans: PricingPlanRow[];
  currencies: { code: string; name: string }[];
}

/** "0.50%" for 50 bps. */
const percent = (bps: number) => `${(bps / 100).toFixed(2)}%`;

/** "0.50% up to 10000.00 GBP, then 0.30%". */
export function tiersSummary(plan: Pick<PricingPlanRow, "tiers" | "tier_currency">): string {
  return plan.tiers
    .map((t, i) =>
      t.up_to === null
        ? (i === 0 ? percent(t.bps) : `then ${percent(t.bps)}`)
        : `${i === 0 ? "" : "then "}${percent(t.bps)} up to ${t.up_to} ${plan.tier_currency}`
    )
    .join(", ");
}

/**
 * The administrators' pricing plans: the list, an editor for one plan (name, tier currency, tiers
 * of up_to and bps, fees per currency) that saves with PUT console/pricingplans/{id} or creates
 * with POST console/pricingplans (a new plan starts as a copy of the default), and per plan an
 * "Assign to an account" form: PUT console/pricingplans/{id} {assign_account_ref}.
 */
export default function ConsolePricingPlans({ plans: initial, currencies }: ConsolePricingPlansProps) {
  const [plans, setPlans] = useState(initial);
  const [editing, setEditing] = useState<
    { id: PricingPlanRow["id"] | null; template: PricingPlanRow | undefined; name: string } | null
  >(null);
  const [assigning, setAssigning] = useState<PricingPlanRow["id"] | null>(null);

  function edit(plan: PricingPlanRow) {
    setAssigning(null);
    setEditing({ id: plan.id, template: plan, name: plan.name });
  }

  function create() {
    setAssigning(null);
    const template = plans.find((p) => p.is_default) ?? plans[0];
    setEditing({ id: null, template, name: "" });
  }

  function saved(plan: PricingPlanRow, isNew: boolean) {
    setPlans((rows) => {
      if (isNew) return [...rows, { ...plan, accounts: plan.accounts ?? [] }];
      return rows.map((p) => (p.id === plan.id ? { ...p, ...plan, accounts: plan.accounts ?? p.accounts } : p));
    });
    setEditing(null);
    notify({ title: isNew ? "Plan created" : "Plan saved", description: plan.name, color: "success" });
  }

  function assigned(plan: PricingPlanRow, ref: string) {
    // An account has one plan: it leaves the one it was on.
    setPlans((rows) =>
      rows.map((p) =>
        p.id === plan.id
          ? { ...p, ...plan, accounts: plan.accounts ?? [...p.accounts.filter((a) => a !== ref), ref] }
          : { ...p, accounts: p.accounts.filter((a) => a !== ref) }
      )
    );
    setAssigning(null);
    notify({ title: `${ref} now uses ${plan.name}`, color: "success" });
  }

  return (
    <div className="flex flex-col gap-6">
      <div>
        <button
          type="button"
          className="btn-primary"
          onClick={create}
          onPointerEnter={loadEditor}
          onFocus={loadEditor}
          aria-expanded={editing?.id === null}
        >
          New plan
        </button>
      </div>

      <div className="overflow-x-auto rounded-xl border border-neutral-200 dark:border-neutral-800">
        <table className="w-full text-left text-sm">
          <thead className="bg-neutral-50 text-neutral-700 dark:bg-neutral-900 dark:text-neutral-300">
            <tr>
              <th scope="col" className={TH}>Plan</th>
              <th scope="col" className={TH}>Markup</th>
              <th scope="col" className={TH}>Accounts</th>
              <th scope="col" className={TH}>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-neutral-200 dark:divide-neutral-800">
            {plans.length === 0
              ? (
                <tr>
                  <td colSpan={4} className="px-4 py-6 text-center text-neutral-600 dark:text-neutral-300">
                    No plans yet.
                  </td>
                </tr>
              )
              : null}
            {plans.map((plan) => (
              <PlanRows
                key={plan.id}
                plan={plan}
                assigning={assigning === plan.id}
                onEdit={() => edit(plan)}
                onAssign={(open) => {
                  setAssigning(open ? plan.id : null);
                  if (open) setEditing(null);
                }}
                onAssigned={assigned}
              />
            ))}
          </tbody>
        </table>
      </div>

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
              onCancel={() => setEditing(null)}
              onSaved={saved}
            />
          </Suspense>
        )
        : null}
    </div>
  );
}

function PlanRows({ plan, assigning, onEdit, onAssign, onAssigned }: {
  plan: PricingPlanRow;
  assigning: boolean;
  onEdit: () => void;
  onAssign: (open: boolean) => void;
  onAssigned: (plan: PricingPlanRow, ref: string) => void;
}) {
  return (
    <>
      <tr>
        <th scope="row" className="px-4 py-3 font-medium text-neutral-900 dark:text-neutral-100">
          {plan.name}
          {plan.is_default
            ? (
              <span className="ml-2 rounded-full bg-primary-100 px-2 py-0.5 text-xs font-semibold text-primary-900 dark:bg-primary-900 dark:text-primary-100">
                Default
              </span>
            )
            : null}
        </th>
        <td className="px-4 py-3">{tiersSummary(plan)}</td>
        <td className="px-4 py-3">
          {plan.accounts.length
            ? <span className="font-mono">{plan.accounts.join(", ")}</span>
            : (
              <span className="text-neutral-600 dark:text-neutral-300">
                {plan.is_default ? "Every other account" : "None"}
              </span>
            )}
        </td>
        <td className="px-4 py-3">
          <div className="flex flex-wrap justify-end gap-2">
            <button
              type="button"
              className={GHOST}
              onClick={onEdit}
              onPointerEnter={loadEditor}
              onFocus={loadEditor}
              aria-label={`Edit ${plan.name}`}
            >
              Edit
            </button>
            <button
              type="button"
              className={GHOST}
              onClick={() => onAssign(!assigning)}
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
          <tr id={`assign-row-${plan.id}`}>
            <td colSpan={4} className="bg-neutral-50 px-4 py-4 dark:bg-neutral-900">
              <AssignForm plan={plan} onCancel={() => onAssign(false)} onAssigned={onAssigned} />
            </td>
          </tr>
        )
        : null}
    </>
  );
}

function AssignForm({ plan, onCancel, onAssigned }: {
  plan: PricingPlanRow;
  onCancel: () => void;
  onAssigned: (plan: PricingPlanRow, ref: string) => void;
}) {
  return (
    <AccountRefForm<PricingPlanRow>
      id={`assign-${plan.id}`}
      label={`Assign ${plan.name} to an account`}
      field="assign_account_ref"
      send={(payload, idempotencyKey) => api.put(`console/pricingplans/${plan.id}`, payload, { idempotencyKey })}
      submitLabel="Assign the plan"
      pendingLabel="Assigning…"
      onCancel={onCancel}
      onDone={(answer, ref) => onAssigned({ ...plan, ...answer }, ref)}
    />
  );
}
