import { desc, eq } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { accounts } from "../../db/schema.ts";
import { accountPlans, pricingPlans, rateTables } from "../../db/schema-money.ts";
import { DEFAULT_PLAN, type PricingPlan, validatePlan } from "./pricing.ts";
import { INDICATIVE_RATES, type RateTable } from "./rates.ts";

/**
 * Where rates and pricing plans live: the database. The latest rate table is the current one;
 * each table written is a change recorded with its time and source. The embedded indicative rates
 * and the default plan are written on first start.
 */

type Row = typeof pricingPlans.$inferSelect;

/** Writes the embedded indicative rates and the default plan when the database has none. */
export async function seedMoney(db: Database, now = new Date()): Promise<void> {
  const [rates] = await db.select({ id: rateTables.id }).from(rateTables).limit(1);
  if (!rates) await saveRates(db, INDICATIVE_RATES, null, now);
  const [plan] = await db.select({ id: pricingPlans.id }).from(pricingPlans).where(eq(pricingPlans.isDefault, true))
    .limit(1);
  if (!plan) {
    await db.insert(pricingPlans).values({
      name: DEFAULT_PLAN.name,
      isDefault: true,
      tierCurrency: DEFAULT_PLAN.tier_currency,
      tiers: DEFAULT_PLAN.tiers.map((t) => ({ ...t })),
      fees: structuredClone(DEFAULT_PLAN.fees) as Record<string, { regular: string; priority: string }>,
      createdAt: now,
      updatedAt: now,
    });
  }
}

/** The current rate table: the latest written. */
export async function currentRates(db: Database): Promise<RateTable> {
  const [row] = await db.select().from(rateTables).orderBy(desc(rateTables.id)).limit(1);
  if (!row) return INDICATIVE_RATES;
  return { base: row.base, as_of: row.asOf, source: row.source, rates: row.rates };
}

export async function saveRates(db: Database, table: RateTable, by: number | null, now = new Date()): Promise<void> {
  await db.insert(rateTables).values({
    base: table.base,
    asOf: table.as_of,
    source: table.source,
    rates: table.rates,
    createdAt: now,
    createdBy: by,
  });
}

export function planOf(row: Row): PricingPlan {
  return {
    id: row.id,
    name: row.name,
    is_default: row.isDefault,
    tier_currency: row.tierCurrency,
    tiers: row.tiers,
    fees: row.fees,
  };
}

export async function defaultPlan(db: Database): Promise<PricingPlan> {
  const [row] = await db.select().from(pricingPlans).where(eq(pricingPlans.isDefault, true)).limit(1);
  return row ? planOf(row) : DEFAULT_PLAN as PricingPlan;
}

/** The plan an account is on: its assigned plan, else the default. */
export async function planForAccount(db: Database, accountId: number | null): Promise<PricingPlan> {
  if (accountId !== null) {
    const [row] = await db.select({ plan: pricingPlans }).from(accountPlans)
      .innerJoin(pricingPlans, eq(pricingPlans.id, accountPlans.planId))
      .where(eq(accountPlans.accountId, accountId)).limit(1);
    if (row) return planOf(row.plan);
  }
  return defaultPlan(db);
}

/** Every plan, with the account_refs assigned to it. */
export async function listPlans(db: Database): Promise<(PricingPlan & { accounts: string[] })[]> {
  const rows = await db.select().from(pricingPlans).orderBy(pricingPlans.id);
  const assigned = await db.select({ planId: accountPlans.planId, accountRef: accounts.accountRef }).from(accountPlans)
    .innerJoin(accounts, eq(accounts.id, accountPlans.accountId));
  return rows.map((row) => ({
    ...planOf(row),
    accounts: assigned.filter((a) => a.planId === row.id).map((a) => a.accountRef).sort(),
  }));
}

/** Creates (id null) or replaces a plan after validation; the default flag cannot be moved here. */
export async function savePlan(
  db: Database,
  id: number | null,
  input: unknown,
  now = new Date(),
): Promise<PricingPlan> {
  // A new plan has no id yet; the validator checks everything else.
  const plan = validatePlan(id === null && input && typeof input === "object" ? { ...input, id: "new" } : input);
  const values = {
    name: plan.name,
    tierCurrency: plan.tier_currency,
    tiers: plan.tiers,
    fees: plan.fees,
    updatedAt: now,
  };
  if (id === null) {
    const [row] = await db.insert(pricingPlans).values({ ...values, isDefault: false, createdAt: now }).returning();
    return planOf(row);
  }
  const [row] = await db.update(pricingPlans).set(values).where(eq(pricingPlans.id, id)).returning();
  if (!row) throw new PlanNotFound();
  return planOf(row);
}

export class PlanNotFound extends Error {
  constructor() {
    super("There is no pricing plan with this id.");
  }
}

/** Puts an account on a plan (the default plan too, which removes any other assignment). */
export async function assignPlan(db: Database, planId: number, accountId: number, by: number, now = new Date()) {
  const [plan] = await db.select().from(pricingPlans).where(eq(pricingPlans.id, planId));
  if (!plan) throw new PlanNotFound();
  await db.insert(accountPlans).values({ accountId, planId, assignedAt: now, assignedBy: by })
    .onConflictDoUpdate({ target: accountPlans.accountId, set: { planId, assignedAt: now, assignedBy: by } });
}
