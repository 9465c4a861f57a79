import type { Database } from "../../db/client.ts";
import { rowOf, type Tx } from "../../db/sql.ts";
import { DEFAULT_PLAN, type PricingPlan } from "./pricing.ts";
import { INDICATIVE_RATES, type RateTable } from "./rates.ts";

/**
 * What a quote is priced from, read the way the quote path needs it (issue 9, decision 053): the
 * current rate table and the account's plan, each one fixed single-row SQL, and their JSON parsed
 * once per distinct text rather than on every quote. Nothing is kept but the parsed form of a text
 * the database still answers: a new rate table or a changed plan is a new text, read at the next
 * quote, in this process or any other on the same file, so there is nothing to clear.
 */

const LATEST_RATES = "SELECT base, as_of, source, rates FROM rate_tables ORDER BY id DESC LIMIT 1";

/**
 * The account's plan, else the default one (the plan an account with no row of account_plans is
 * on), in one statement.
 */
const PLAN_OF_ACCOUNT = `SELECT id, name, is_default, tier_currency, tiers, fees FROM pricing_plans
  WHERE id = COALESCE((SELECT plan_id FROM account_plans WHERE account_id = ?),
    (SELECT id FROM pricing_plans WHERE is_default = 1 ORDER BY id LIMIT 1))`;

interface RatesRow {
  base: string;
  as_of: string;
  source: string;
  rates: string;
}

interface PlanRow {
  id: number;
  name: string;
  is_default: number;
  tier_currency: string;
  tiers: string;
  fees: string;
}

/** Parsed texts, by their text. Bounded: a handful of tables and plans are live at a time. */
const parsed = new Map<string, unknown>();
const MAX_PARSED = 256;

function parsedOnce<T>(text: string): T {
  let value = parsed.get(text);
  if (value === undefined) {
    if (parsed.size >= MAX_PARSED) parsed.clear();
    // Frozen, so that a quote can never change what the next one is priced from.
    value = deepFreeze(JSON.parse(text));
    parsed.set(text, value);
  }
  return value as T;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** The current rate table: the latest written (as server/money/store.ts's currentRates). */
export async function latestRates(db: Database | Tx): Promise<RateTable> {
  const row = await rowOf<RatesRow>(db, LATEST_RATES);
  if (!row) return INDICATIVE_RATES;
  return { base: row.base, as_of: row.as_of, source: row.source, rates: parsedOnce(row.rates) };
}

/** The plan an account is on (as server/money/plans.ts's planForAccount), the default one for none. */
export async function accountPlan(db: Database | Tx, accountId: number | null): Promise<PricingPlan> {
  const row = await rowOf<PlanRow>(db, PLAN_OF_ACCOUNT, [accountId]);
  if (!row) return DEFAULT_PLAN as PricingPlan;
  return {
    id: row.id,
    name: row.name,
    is_default: row.is_default === 1,
    tier_currency: row.tier_currency,
    tiers: parsedOnce(row.tiers),
    fees: parsedOnce(row.fees),
  } as PricingPlan;
}
