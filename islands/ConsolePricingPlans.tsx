import { type FormEvent, useEffect, useRef, useState } from "react";
import { api, ApiCallError, errorText, fieldsOf, isAbort } from "./lib/api.ts";
import { FormAlert, SubmitButton, useIdempotencyKey } from "./lib/forms.tsx";
import { notify } from "./lib/notifications.ts";

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

/** What the editor holds: everything as typed. */
interface Draft {
  name: string;
  tier_currency: string;
  tiers: { up_to: string; bps: string }[];
  fees: Record<string, { regular: string; priority: string }>;
}

const LABEL = "block text-sm font-medium text-neutral-900 dark:text-neutral-100";
const ERROR = "mt-1 text-sm font-medium text-red-700 dark:text-red-400";
const inputClass = (invalid: boolean) =>
  `block w-full rounded-md border bg-white px-3 py-2 text-sm text-neutral-900 shadow-sm focus:outline-2 focus:outline-primary-600 dark:bg-neutral-950 dark:text-neutral-100 ${
    invalid ? "border-red-600 dark:border-red-400" : "border-neutral-300 dark:border-neutral-700"
  }`;
const GHOST = "btn-ghost border border-neutral-300 dark:border-neutral-700";
const TH = "px-4 py-3 font-semibold";

/** "0.50%" for 50 bps. */
export const percent = (bps: number) => `${(bps / 100).toFixed(2)}%`;

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

function draftOf(plan: PricingPlanRow | undefined, currencies: { code: string }[], name: string): Draft {
  return {
    name,
    tier_currency: plan?.tier_currency ?? "GBP",
    tiers: plan?.tiers.length
      ? plan.tiers.map((t) => ({ up_to: t.up_to ?? "", bps: String(t.bps) }))
      : [{ up_to: "", bps: "0" }],
    fees: Object.fromEntries(
      currencies.map((c) => [c.code, { regular: plan?.fees[c.code]?.regular ?? "", priority: plan?.fees[c.code]?.priority ?? "" }]),
    ),
  };
}

/** The draft as the API takes it: the last tier open, whole bps as numbers (anything else as typed, for the server to name). */
export function planPayload(draft: Draft) {
  const last = draft.tiers.length - 1;
  return {
    name: draft.name.trim(),
    tier_currency: draft.tier_currency,
    tiers: draft.tiers.map((t, i) => ({
      up_to: i === last ? null : t.up_to.trim(),
      bps: /^\d+$/.test(t.bps.trim()) ? Number(t.bps.trim()) : t.bps.trim(),
    })),
    fees: Object.fromEntries(
      Object.entries(draft.fees).map(([code, f]) => [code, { regular: f.regular.trim(), priority: f.priority.trim() }]),
    ),
  };
}

/**
 * The administrators' pricing plans: the list, an editor for one plan (name, tier currency, tiers
 * of up_to and bps, fees per currency) that saves with PUT console/pricingplans/{id} or creates
 * with POST console/pricingplans (a new plan starts as a copy of the default), and per plan an
 * "Assign to an account" form: PUT console/pricingplans/{id} {assign_account_ref}.
 */
export default function ConsolePricingPlans({ plans: initial, currencies }: ConsolePricingPlansProps) {
  const [plans, setPlans] = useState(initial);
  const [editing, setEditing] = useState<{ id: PricingPlanRow["id"] | null; draft: Draft } | null>(null);
  const [assigning, setAssigning] = useState<PricingPlanRow["id"] | null>(null);

  function edit(plan: PricingPlanRow) {
    setAssigning(null);
    setEditing({ id: plan.id, draft: draftOf(plan, currencies, plan.name) });
  }

  function create() {
    setAssigning(null);
    const template = plans.find((p) => p.is_default) ?? plans[0];
    setEditing({ id: null, draft: draftOf(template, currencies, "") });
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
        <button type="button" className="btn-primary" onClick={create} aria-expanded={editing?.id === null}>
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
              <th scope="col" className={TH}><span className="sr-only">Actions</span></th>
            </tr>
          </thead>
          <tbody className="divide-y divide-neutral-200 dark:divide-neutral-800">
            {plans.length === 0
              ? (
                <tr>
                  <td colSpan={4} className="px-4 py-6 text-center text-neutral-600 dark:text-neutral-300">No plans yet.</td>
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
          <PlanEditor
            key={String(editing.id ?? "new")}
            id={editing.id}
            initial={editing.draft}
            plan={plans.find((p) => p.id === editing.id)}
            currencies={currencies}
            onCancel={() => setEditing(null)}
            onSaved={saved}
          />
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
            : <span className="text-neutral-600 dark:text-neutral-300">{plan.is_default ? "Every other account" : "None"}</span>}
        </td>
        <td className="px-4 py-3">
          <div className="flex flex-wrap justify-end gap-2">
            <button type="button" className={GHOST} onClick={onEdit} aria-label={`Edit ${plan.name}`}>Edit</button>
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
  const idempotencyKey = useIdempotencyKey();
  const [ref, setRef] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = `assign-${plan.id}`;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const account_ref = ref.trim();
    if (!account_ref) {
      setError("Enter the account reference.");
      return;
    }
    const payload = { assign_account_ref: account_ref };
    setPending(true);
    setError(null);
    try {
      const answer = await api.put<PricingPlanRow>(`console/pricingplans/${plan.id}`, payload, {
        idempotencyKey: idempotencyKey(payload),
      });
      onAssigned({ ...plan, ...answer }, account_ref);
    } catch (err) {
      if (isAbort(err)) return;
      const fields = err instanceof ApiCallError ? err.fields : undefined;
      setError(fields?.assign_account_ref ?? errorText(err));
    } finally {
      setPending(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate aria-label={`Assign ${plan.name} to an account`} className="flex flex-wrap items-end gap-3">
      <div>
        <label htmlFor={id} className={LABEL}>Account reference</label>
        <input
          id={id}
          type="text"
          autoFocus
          autoComplete="off"
          spellCheck={false}
          value={ref}
          onChange={(event) => setRef(event.currentTarget.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          className={`mt-1 font-mono ${inputClass(!!error)}`}
        />
      </div>
      <SubmitButton pending={pending} pendingLabel="Assigning…" className="btn-primary">Assign the plan</SubmitButton>
      <button type="button" className="btn-ghost" onClick={onCancel}>Cancel</button>
      <p id={`${id}-error`} role="alert" className={error ? `w-full ${ERROR}` : "w-full"}>{error}</p>
    </form>
  );
}

function PlanEditor({ id, initial, plan, currencies, onCancel, onSaved }: {
  id: PricingPlanRow["id"] | null;
  initial: Draft;
  plan: PricingPlanRow | undefined;
  currencies: { code: string; name: string }[];
  onCancel: () => void;
  onSaved: (plan: PricingPlanRow, isNew: boolean) => void;
}) {
  const idempotencyKey = useIdempotencyKey();
  const [draft, setDraft] = useState(initial);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fields, setFields] = useState<Record<string, string>>({});
  const isNew = id === null;
  const last = draft.tiers.length - 1;
  // Opened by a button above: take keyboard and screen reader users to it.
  const title = useRef<HTMLHeadingElement>(null);
  useEffect(() => title.current?.focus(), []);

  const setTier = (i: number, change: Partial<Draft["tiers"][number]>) =>
    setDraft((d) => ({ ...d, tiers: d.tiers.map((t, j) => (j === i ? { ...t, ...change } : t)) }));
  const setFee = (code: string, kind: "regular" | "priority", value: string) =>
    setDraft((d) => ({ ...d, fees: { ...d.fees, [code]: { ...d.fees[code], [kind]: value } } }));
  // A new tier goes last (open); the one before it then needs its up_to.
  const addTier = () => setDraft((d) => ({ ...d, tiers: [...d.tiers, { up_to: "", bps: d.tiers[d.tiers.length - 1]?.bps ?? "0" }] }));
  const removeTier = (i: number) => setDraft((d) => ({ ...d, tiers: d.tiers.filter((_, j) => j !== i) }));

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (pending) return;
    const body = isNew ? planPayload(draft) : { id, is_default: plan?.is_default ?? false, ...planPayload(draft) };
    setPending(true);
    setError(null);
    setFields({});
    try {
      const answer = isNew
        ? await api.post<PricingPlanRow>("console/pricingplans", body, { idempotencyKey: idempotencyKey(body) })
        : await api.put<PricingPlanRow>(`console/pricingplans/${id}`, body, { idempotencyKey: idempotencyKey(body) });
      // A second plan with the same content is a second plan: the next save is a new request.
      idempotencyKey.reset();
      setPending(false);
      onSaved(answer, isNew);
    } catch (err) {
      setPending(false);
      if (isAbort(err)) return;
      setError(errorText(err));
      setFields(fieldsOf(err));
    }
  }

  const shown = [
    "name",
    "tier_currency",
    ...draft.tiers.flatMap((_, i) => [`tiers.${i}.up_to`, `tiers.${i}.bps`]),
    ...currencies.flatMap((c) => [`fees.${c.code}.regular`, `fees.${c.code}.priority`]),
  ];
  const problem = (name: string, htmlId: string) =>
    fields[name] ? <p id={`${htmlId}-error`} className={ERROR}>{fields[name]}</p> : null;
  const invalid = (name: string, htmlId: string) => ({
    "aria-invalid": fields[name] ? true : undefined,
    "aria-describedby": fields[name] ? `${htmlId}-error` : undefined,
  });

  return (
    <form
      onSubmit={submit}
      noValidate
      aria-labelledby="plan-editor-title"
      className="card flex flex-col gap-5"
    >
      <h2 id="plan-editor-title" ref={title} tabIndex={-1} className="text-lg font-semibold focus:outline-none">
        {isNew ? "New pricing plan" : `Edit ${plan?.name ?? "plan"}`}
      </h2>
      <FormAlert error={error} fields={fields} shown={shown} />

      <div className="grid gap-4 sm:grid-cols-2">
        <div>
          <label htmlFor="plan-name" className={LABEL}>Name</label>
          <input
            id="plan-name"
            type="text"
            required
            maxLength={100}
            value={draft.name}
            onChange={(event) => {
              const name = event.currentTarget.value;
              setDraft((d) => ({ ...d, name }));
            }}
            {...invalid("name", "plan-name")}
            className={`mt-1 ${inputClass(!!fields.name)}`}
          />
          {problem("name", "plan-name")}
        </div>
        <div>
          <label htmlFor="plan-tier-currency" className={LABEL}>Tiers measured in</label>
          <select
            id="plan-tier-currency"
            value={draft.tier_currency}
            onChange={(event) => {
              const tier_currency = event.currentTarget.value;
              setDraft((d) => ({ ...d, tier_currency }));
            }}
            {...invalid("tier_currency", "plan-tier-currency")}
            className={`mt-1 ${inputClass(!!fields.tier_currency)}`}
          >
            {currencies.map((c) => <option key={c.code} value={c.code}>{`${c.code} · ${c.name}`}</option>)}
          </select>
          {problem("tier_currency", "plan-tier-currency")}
        </div>
      </div>

      <fieldset className="flex flex-col gap-2">
        <legend className={LABEL}>FX markup by amount</legend>
        <p className="text-sm text-neutral-600 dark:text-neutral-300">
          {`Each tier covers amounts up to its limit (in ${draft.tier_currency}); the last tier covers everything above. 100 bps = 1%.`}
        </p>
        <table className="w-full max-w-2xl text-left text-sm">
          <thead className="text-neutral-700 dark:text-neutral-300">
            <tr>
              <th scope="col" className="py-2 pr-3 font-semibold">Tier</th>
              <th scope="col" className="py-2 pr-3 font-semibold">{`Up to (${draft.tier_currency})`}</th>
              <th scope="col" className="py-2 pr-3 font-semibold">Markup (bps)</th>
              <th scope="col" className="py-2 font-semibold"><span className="sr-only">Remove</span></th>
            </tr>
          </thead>
          <tbody>
            {draft.tiers.map((tier, i) => {
              const upId = `plan-tier-${i}-up-to`;
              const bpsId = `plan-tier-${i}-bps`;
              return (
                <tr key={i} className="align-top">
                  <th scope="row" className="py-2 pr-3 font-medium">{i + 1}</th>
                  <td className="py-2 pr-3">
                    {i === last
                      ? <span className="inline-block py-2 text-neutral-600 dark:text-neutral-300">and above</span>
                      : (
                        <>
                          <label htmlFor={upId} className="sr-only">{`Tier ${i + 1} up to`}</label>
                          <input
                            id={upId}
                            type="text"
                            inputMode="decimal"
                            autoComplete="off"
                            value={tier.up_to}
                            onChange={(event) => setTier(i, { up_to: event.currentTarget.value })}
                            {...invalid(`tiers.${i}.up_to`, upId)}
                            className={`font-mono tabular-nums ${inputClass(!!fields[`tiers.${i}.up_to`])}`}
                          />
                          {problem(`tiers.${i}.up_to`, upId)}
                        </>
                      )}
                  </td>
                  <td className="py-2 pr-3">
                    <label htmlFor={bpsId} className="sr-only">{`Tier ${i + 1} markup in basis points`}</label>
                    <input
                      id={bpsId}
                      type="text"
                      inputMode="numeric"
                      autoComplete="off"
                      value={tier.bps}
                      onChange={(event) => setTier(i, { bps: event.currentTarget.value })}
                      {...invalid(`tiers.${i}.bps`, bpsId)}
                      className={`max-w-28 font-mono tabular-nums ${inputClass(!!fields[`tiers.${i}.bps`])}`}
                    />
                    {problem(`tiers.${i}.bps`, bpsId)}
                  </td>
                  <td className="py-2">
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
              );
            })}
          </tbody>
        </table>
        <div>
          <button type="button" className={GHOST} onClick={addTier}>Add a tier</button>
        </div>
      </fieldset>

      <fieldset className="flex flex-col gap-2">
        <legend className={LABEL}>Transfer fees</legend>
        <div className="max-h-96 overflow-y-auto rounded-xl border border-neutral-200 dark:border-neutral-800">
          <table className="w-full text-left text-sm">
            <thead className="sticky top-0 bg-neutral-50 text-neutral-700 dark:bg-neutral-900 dark:text-neutral-300">
              <tr>
                <th scope="col" className={TH}>Currency</th>
                <th scope="col" className={TH}>Regular</th>
                <th scope="col" className={TH}>Priority</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-neutral-200 dark:divide-neutral-800">
              {currencies.map((c) => (
                <tr key={c.code} className="align-top">
                  <th scope="row" className="px-4 py-2 font-medium">
                    {c.code}
                    <span className="ml-2 font-normal text-neutral-600 dark:text-neutral-300">{c.name}</span>
                  </th>
                  {(["regular", "priority"] as const).map((kind) => {
                    const feeId = `plan-fee-${c.code}-${kind}`;
                    const name = `fees.${c.code}.${kind}`;
                    return (
                      <td key={kind} className="px-4 py-2">
                        <label htmlFor={feeId} className="sr-only">{`${kind === "regular" ? "Regular" : "Priority"} fee in ${c.code}`}</label>
                        <input
                          id={feeId}
                          type="text"
                          inputMode="decimal"
                          autoComplete="off"
                          value={draft.fees[c.code]?.[kind] ?? ""}
                          onChange={(event) => setFee(c.code, kind, event.currentTarget.value)}
                          {...invalid(name, feeId)}
                          className={`max-w-32 font-mono tabular-nums ${inputClass(!!fields[name])}`}
                        />
                        {problem(name, feeId)}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </fieldset>

      <div className="flex gap-2">
        <SubmitButton pending={pending} pendingLabel="Saving…" className="btn-primary">
          {isNew ? "Create the plan" : "Save the plan"}
        </SubmitButton>
        <button type="button" className="btn-ghost" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
