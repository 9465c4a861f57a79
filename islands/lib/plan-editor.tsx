/**
 * The editor of one pricing plan (name, tier currency, tiers of up_to and bps, fees per currency):
 * saves with PUT console/pricingplans/{id}, or creates with POST console/pricingplans. Opened by
 * ConsolePricingPlans when the administrator asks to edit or create a plan, and loaded then (it is
 * most of the page's code, and most visits only look).
 */
import { type FormEvent, useEffect, useRef, useState } from "react";
import type { PricingPlanRow } from "../ConsolePricingPlans.tsx";
import { api, errorText, fieldsOf, isAbort } from "./api.ts";
import { FormAlert } from "./form-alert.tsx";
import { SubmitButton, useIdempotencyKey } from "./forms.tsx";
import { ERROR, GHOST, inputClass, LABEL, TH } from "./console-fields.ts";

/** What the editor holds: everything as typed. */
interface Draft {
  name: string;
  tier_currency: string;
  tiers: { up_to: string; bps: string }[];
  fees: Record<string, { regular: string; priority: string }>;
}

function draftOf(plan: PricingPlanRow | undefined, currencies: { code: string }[], name: string): Draft {
  return {
    name,
    tier_currency: plan?.tier_currency ?? "GBP",
    tiers: plan?.tiers.length
      ? plan.tiers.map((t) => ({ up_to: t.up_to ?? "", bps: String(t.bps) }))
      : [{ up_to: "", bps: "0" }],
    fees: Object.fromEntries(
      currencies.map((
        c,
      ) => [c.code, { regular: plan?.fees[c.code]?.regular ?? "", priority: plan?.fees[c.code]?.priority ?? "" }]),
    ),
  };
}

/** The draft as the API takes it: the last tier open, whole bps as numbers (anything else as typed, for the server to name). */
function planPayload(draft: Draft) {
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

export default function PlanEditor({ id, template, name, plan, currencies, onCancel, onSaved }: {
  id: PricingPlanRow["id"] | null;
  /** The plan the draft starts from: the one edited, or the default for a new plan. */
  template: PricingPlanRow | undefined;
  name: string;
  plan: PricingPlanRow | undefined;
  currencies: { code: string; name: string }[];
  onCancel: () => void;
  onSaved: (plan: PricingPlanRow, isNew: boolean) => void;
}) {
  const idempotencyKey = useIdempotencyKey();
  const [draft, setDraft] = useState(() => draftOf(template, currencies, name));
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
  const addTier = () =>
    setDraft((d) => ({ ...d, tiers: [...d.tiers, { up_to: "", bps: d.tiers[d.tiers.length - 1]?.bps ?? "0" }] }));
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
              <th scope="col" className="py-2 font-semibold">
                <span className="sr-only">Remove</span>
              </th>
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
                        <label htmlFor={feeId} className="sr-only">
                          {`${kind === "regular" ? "Regular" : "Priority"} fee in ${c.code}`}
                        </label>
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
