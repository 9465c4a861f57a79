/** A pricing plan as the editor holds it (everything as typed) and as the API takes it. */
import type { PlanInput, PricingPlan } from "./calls.ts";

export interface Draft {
  name: string;
  tier_currency: string;
  tiers: { up_to: string; bps: string }[];
  fees: Record<string, { regular: string; priority: string }>;
}

export function draftOf(plan: PricingPlan | undefined, currencies: { code: string }[], name: string): Draft {
  return {
    name,
    tier_currency: plan?.tier_currency ?? "GBP",
    tiers: plan?.tiers.length
      ? plan.tiers.map((t) => ({ up_to: t.up_to ?? "", bps: String(t.bps) }))
      : [{ up_to: "", bps: "0" }],
    fees: Object.fromEntries(
      currencies.map((c) => [c.code, {
        regular: plan?.fees[c.code]?.regular ?? "",
        priority: plan?.fees[c.code]?.priority ?? "",
      }]),
    ),
  };
}

/**
 * The draft as the API takes it: the last tier open, whole bps as numbers. Anything else goes as
 * typed (bps "abc", a currency the list lacks), for the server to name under its field: hence the
 * cast, since the contract's type says what a valid plan is.
 */
export function planPayload(draft: Draft): PlanInput {
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
  } as unknown as PlanInput;
}

/** The paths of the draft a problem can name (the server's 422 `fields`). */
export const draftPaths = (draft: Draft, currencies: { code: string }[]): string[] => [
  "name",
  "tier_currency",
  ...draft.tiers.flatMap((_, i) => [`tiers.${i}.up_to`, `tiers.${i}.bps`]),
  ...currencies.flatMap((c) => [`fees.${c.code}.regular`, `fees.${c.code}.priority`]),
];
