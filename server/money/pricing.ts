/**
 * Pricing plans: an FX markup in basis points by amount tier, and a regular and a priority
 * transfer fee per currency. Every account has a plan; DEFAULT_PLAN is the one that exists from
 * the start. A user's overrides replace the plan's fees where override_transfer_fee is on.
 *
 * - Tiers are by the amount being converted, measured in the plan's `tier_currency` minor units
 *   (see ./quote.ts for how it is measured). A tier applies to amounts up to and including its
 *   `up_to` (a decimal string in the tier currency); the last tier is open (`up_to: null`).
 *   `up_to` values rise strictly. bps are whole numbers from 0 to 1000 (10%). What an administrator
 *   may write as a plan is the calls' contract (planBody in lib/contracts/console-money.ts).
 * - Fees are decimal strings with exactly each currency's digits ("1.00", "200", "0.400"); a
 *   plan must give both fees for every supported currency, so that any currency can be sold.
 * - Overrides are per currency, like the plan's fees (docs/decisions/025): when
 *   override_transfer_fee is on, override_regular_transfer_fee (or override_priority_transfer_fee)
 *   maps a currency to the fee of a transfer selling it ({"GBP": "0.50", "JPY": "100"}), written
 *   with exactly that currency's digits. A currency the map does not name, or a map that is null,
 *   pays the plan's fee. When override_transfer_fee is off the maps are kept but ignored.
 */
import { currency, CURRENCY_CODES, type CurrencyCode } from "./currencies.ts";
import { parseAmount } from "./amounts.ts";
import { MoneyError } from "./errors.ts";

export interface PricingTier {
  /** Upper bound (inclusive) as a decimal string in the tier currency; null for the last, open tier. */
  up_to: string | null;
  /** FX markup in basis points (1 bp = 0.01%). */
  bps: number;
}

export interface TransferFees {
  regular: string;
  priority: string;
}

export interface PricingPlan {
  id: string | number;
  name: string;
  is_default: boolean;
  /** The currency tiers are measured in (GBP by default). */
  tier_currency: string;
  tiers: PricingTier[];
  /** Currency code → its fees as decimal strings in that currency. */
  fees: Record<string, TransferFees>;
}

/** Currency code → fee as a decimal string with that currency's digits. */
export type FeesByCurrency = Record<string, string>;

export interface FeeOverrides {
  override_transfer_fee: boolean;
  override_regular_transfer_fee: FeesByCurrency | null;
  override_priority_transfer_fee: FeesByCurrency | null;
}

/** A customer's fee overrides, from their session summary (SPEC.md section 6), or none for a visitor. */
export function feeOverridesOf(user: FeeOverrides | null): FeeOverrides | null {
  if (!user) return null;
  const { override_transfer_fee, override_regular_transfer_fee, override_priority_transfer_fee } = user;
  return { override_transfer_fee, override_regular_transfer_fee, override_priority_transfer_fee };
}

export type FeeKind = "regular" | "priority";

const DEFAULT_FEES: Record<CurrencyCode, [string, string]> = {
  AED: ["5.00", "22.00"],
  AUD: ["2.00", "8.00"],
  BHD: ["0.500", "2.200"],
  CAD: ["2.00", "8.00"],
  CHF: ["1.50", "6.00"],
  CZK: ["30.00", "120.00"],
  DKK: ["10.00", "40.00"],
  EUR: ["1.00", "5.00"],
  GBP: ["1.00", "5.00"],
  HKD: ["10.00", "45.00"],
  HUF: ["500.00", "2000.00"],
  INR: ["100.00", "450.00"],
  JPY: ["200", "800"],
  KWD: ["0.400", "1.800"],
  NOK: ["15.00", "60.00"],
  NZD: ["2.50", "9.00"],
  PLN: ["5.00", "20.00"],
  SEK: ["15.00", "60.00"],
  SGD: ["2.00", "8.00"],
  USD: ["1.50", "6.00"],
  ZAR: ["25.00", "100.00"],
};

/** The plan every account starts on: 1.5% up to 1,000 GBP, 1% up to 10,000 GBP, 0.5% above. */
export const DEFAULT_PLAN: Readonly<PricingPlan> = deepFreeze({
  id: "default",
  name: "Standard",
  is_default: true,
  tier_currency: "GBP",
  tiers: [
    { up_to: "1000.00", bps: 150 },
    { up_to: "10000.00", bps: 100 },
    { up_to: null, bps: 50 },
  ],
  fees: Object.fromEntries(
    CURRENCY_CODES.map((c) => [c, { regular: DEFAULT_FEES[c][0], priority: DEFAULT_FEES[c][1] }]),
  ),
});

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * The markup in basis points for an amount in the plan's tier currency, in minor units: the
 * first tier whose up_to is at least the amount (the bound belongs to its tier), else the open one.
 */
export function bpsFor(plan: PricingPlan, amountInTierCurrencyMinor: number): number {
  if (!Number.isSafeInteger(amountInTierCurrencyMinor)) {
    throw new RangeError(`bpsFor: ${amountInTierCurrencyMinor} is not a safe integer of minor units.`);
  }
  for (const tier of plan.tiers) {
    if (tier.up_to === null || amountInTierCurrencyMinor <= parseAmount(plan.tier_currency, tier.up_to)) {
      return tier.bps;
    }
  }
  // A validated plan always ends with an open tier; an unvalidated one without it charges its last tier.
  const last = plan.tiers.at(-1);
  if (!last) throw new MoneyError(`The pricing plan ${plan.name} has no tiers.`);
  return last.bps;
}

/**
 * The fee of a transfer selling `code`, in its minor units: the user's override of that kind for
 * that currency when override_transfer_fee is on and the override is set, otherwise the plan's
 * fee. Throws a MoneyError for an unknown currency or a plan without fees for it.
 */
export function feeFor(plan: PricingPlan, code: string, kind: FeeKind, overrides?: FeeOverrides | null): number {
  currency(code);
  if (overrides?.override_transfer_fee) {
    const byCurrency = kind === "regular"
      ? overrides.override_regular_transfer_fee
      : overrides.override_priority_transfer_fee;
    const text = byCurrency && Object.hasOwn(byCurrency, code) ? byCurrency[code] : undefined;
    if (text !== undefined) return parseAmount(code, text);
  }
  const fees = Object.hasOwn(plan.fees, code) ? plan.fees[code] : undefined;
  if (!fees) throw new MoneyError(`The pricing plan ${plan.name} has no fees for ${code}.`, "currency");
  return parseAmount(code, fees[kind]);
}
