/**
 * The editor of one pricing plan (name, tier currency, tiers of up_to and bps, fees per currency):
 * saves with PUT console/pricingplans/{id}, or creates with POST console/pricingplans. Opened by
 * ConsolePricingPlans when the administrator asks to edit or create a plan, and loaded then (it is
 * most of the page's code, and most visits only look).
 */
import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useRef } from "react";
import { notify } from "../lib/notification-store.ts";
import { pricingPlanKeys } from "../lib/query-keys.ts";
import { FormAlert } from "../ui/alert.tsx";
import { type CurrencyOption, CurrencySelect } from "../ui/currency-select.tsx";
import { TextField } from "../ui/field.tsx";
import { SubmitButton } from "../ui/submit-button.tsx";
import { onEscape } from "../ui/take-focus.ts";
import { useForm } from "../ui/use-form.ts";
import { type PricingPlan, savePlan } from "./calls.ts";
import { draftOf, draftPaths, planPayload } from "./plan-draft.ts";
import { PlanFees } from "./plan-fees.tsx";
import { PlanTiers } from "./plan-tiers.tsx";

/** The plans with one saved: a new one added, an edited one replaced (its accounts kept). */
function withPlan(rows: PricingPlan[] | undefined, plan: PricingPlan, isNew: boolean): PricingPlan[] {
  if (isNew) return [...(rows ?? []), { ...plan, accounts: plan.accounts ?? [] }];
  return (rows ?? []).map((p) => (p.id === plan.id ? { ...p, ...plan, accounts: plan.accounts ?? p.accounts } : p));
}

export default function PlanEditor({ id, template, name, plan, currencies, onCancel, onSaved }: {
  id: PricingPlan["id"] | null;
  /** The plan the draft starts from: the one edited, or the default for a new plan. */
  template: PricingPlan | undefined;
  name: string;
  plan: PricingPlan | undefined;
  currencies: CurrencyOption[];
  /** Closed without saving (Cancel, or Escape inside it): the button that opened it takes the focus back. */
  onCancel: () => void;
  onSaved: () => void;
}) {
  const isNew = id === null;
  const queries = useQueryClient();
  const form = useForm({
    call: savePlan(isNew),
    // A second plan with the same content is a second plan: after a success, a new request.
    idempotent: true,
    values: draftOf(template, currencies, name),
    onSuccess(saved) {
      queries.setQueryData<PricingPlan[]>(pricingPlanKeys.all, (rows) => withPlan(rows, saved, isNew));
      notify({ title: isNew ? "Plan created" : "Plan saved", description: saved.name, color: "success" });
      onSaved();
    },
  });
  const draft = form.values;
  // Opened by a button above: take keyboard and screen reader users to it.
  const title = useRef<HTMLHeadingElement>(null);
  useEffect(() => title.current?.focus(), []);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const body = isNew ? planPayload(draft) : { id: id!, is_default: plan?.is_default ?? false, ...planPayload(draft) };
    void form.submit({ params: isNew ? {} : { id: id! }, body });
  }

  return (
    <form
      onSubmit={submit}
      onKeyDown={onEscape(onCancel)}
      noValidate
      aria-labelledby="plan-editor-title"
      className="card flex flex-col gap-5"
    >
      <h2 id="plan-editor-title" ref={title} tabIndex={-1} className="text-lg font-semibold focus:outline-none">
        {isNew ? "New pricing plan" : `Edit ${plan?.name ?? "plan"}`}
      </h2>
      <FormAlert error={form.error} fields={form.fields} shown={draftPaths(draft, currencies)} />

      <div className="grid gap-4 sm:grid-cols-2">
        <TextField
          id="plan-name"
          label="Name"
          type="text"
          maxLength={100}
          value={draft.name}
          onChange={(event) => form.set("name", event.currentTarget.value)}
          error={form.fields.name}
        />
        <CurrencySelect
          id="plan-tier-currency"
          label="Tiers measured in"
          currencies={currencies}
          value={draft.tier_currency}
          onChange={(event) => form.set("tier_currency", event.currentTarget.value)}
          error={form.fields.tier_currency}
        />
      </div>

      <PlanTiers draft={draft} fields={form.fields} set={form.set} />
      <PlanFees draft={draft} currencies={currencies} fields={form.fields} set={form.set} />

      <div className="flex gap-2">
        <SubmitButton pending={form.submitting} pendingLabel="Saving…" className="btn-primary">
          {isNew ? "Create the plan" : "Save the plan"}
        </SubmitButton>
        <button type="button" className="btn-ghost" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
