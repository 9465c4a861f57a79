import { and, eq, ne, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Database } from "../../db/client.ts";
import type { Tx } from "../../db/sql.ts";
import { accounts } from "../../db/schema.ts";
import { accountPlans, pricingPlans } from "../../db/schema-money.ts";
import type { PlanBody, pricingPlan } from "../../lib/contracts/console-money.ts";
import { accountByRef } from "../accounts/find.ts";
import { audit } from "../audit.ts";
import { InvalidInput, NotFound } from "../errors.ts";
import { DEFAULT_PLAN, type PricingPlan } from "./pricing.ts";

/**
 * Pricing plans in the database (./pricing.ts says what a plan is): the default one, written on
 * first start; the plan each account is on; and the console's changes: a new plan, a plan
 * replaced, an account put on a plan. What a plan may hold is the calls' contract (planBody in
 * lib/contracts/console-money.ts), checked before anything here runs.
 */

type Row = typeof pricingPlans.$inferSelect;

/** A plan as the console lists it, with the account_refs on it. */
export type ListedPlan = z.output<typeof pricingPlan>;

const NO_SUCH_PLAN = "There is no pricing plan with this id.";

function planOf(row: Row): PricingPlan & { id: number } {
  return {
    id: row.id,
    name: row.name,
    is_default: row.isDefault,
    tier_currency: row.tierCurrency,
    tiers: row.tiers,
    fees: row.fees,
  };
}

/** Writes the default plan when the database has none. */
export async function seedDefaultPlan(db: Database | Tx, now: Date): Promise<void> {
  const [plan] = await db.select({ id: pricingPlans.id }).from(pricingPlans).where(eq(pricingPlans.isDefault, true))
    .limit(1);
  if (plan) return;
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
export async function listPlans(db: Database): Promise<ListedPlan[]> {
  const rows = await db.select().from(pricingPlans).orderBy(pricingPlans.id);
  const assigned = await db.select({ planId: accountPlans.planId, accountRef: accounts.accountRef }).from(accountPlans)
    .innerJoin(accounts, eq(accounts.id, accountPlans.accountId));
  return rows.map((row) => ({
    ...planOf(row),
    accounts: assigned.filter((a) => a.planId === row.id).map((a) => a.accountRef).sort(),
  }));
}

/** One plan as listed; a NotFound when there is none with this id. */
async function listedPlan(db: Database, id: number): Promise<ListedPlan> {
  const plan = (await listPlans(db)).find((p) => p.id === id);
  if (!plan) throw new NotFound(NO_SUCH_PLAN);
  return plan;
}

const columnsOf = (plan: PlanBody, now: Date) => ({
  name: plan.name,
  tierCurrency: plan.tier_currency,
  tiers: plan.tiers,
  fees: plan.fees,
  updatedAt: now,
});

/**
 * Plans are chosen by name (the console's list, the assignment on a customer's page): two of one
 * name, whatever their letters' case, could not be told apart. Checked in the writing transaction.
 */
async function refuseTakenName(tx: Tx, name: string, except: number | null) {
  const [taken] = await tx.select({ id: pricingPlans.id }).from(pricingPlans).where(and(
    sql`lower(trim(${pricingPlans.name})) = lower(trim(${name}))`,
    except === null ? undefined : ne(pricingPlans.id, except),
  )).limit(1);
  if (taken) {
    throw new InvalidInput(`There is already a plan named ${name.trim()}: give this one another name.`, "name");
  }
}

/** A new plan, not the default, on no account yet; audited with the administrator who made it. */
export async function createPlan(db: Database, plan: PlanBody, by: number, now: Date): Promise<ListedPlan> {
  const row = await db.transaction(async (tx) => {
    await refuseTakenName(tx, plan.name, null);
    const [row] = await tx.insert(pricingPlans).values({ ...columnsOf(plan, now), isDefault: false, createdAt: now })
      .returning();
    await audit(tx, { actor: by, action: "pricing-plan.create", before: null, after: planOf(row) }, now);
    return row;
  });
  return { ...planOf(row), accounts: [] };
}

/**
 * Replaces a plan's name, tiers and fees; which plan is the default does not change here. Audited
 * with the plan as it was and as it became.
 */
export async function replacePlan(db: Database, id: number, plan: PlanBody, by: number, now: Date) {
  await db.transaction(async (tx) => {
    const [before] = await tx.select().from(pricingPlans).where(eq(pricingPlans.id, id));
    if (!before) throw new NotFound(NO_SUCH_PLAN);
    await refuseTakenName(tx, plan.name, id);
    const [row] = await tx.update(pricingPlans).set(columnsOf(plan, now)).where(eq(pricingPlans.id, id)).returning();
    await audit(tx, { actor: by, action: "pricing-plan.replace", before: planOf(before), after: planOf(row) }, now);
  });
  return await listedPlan(db, id);
}

/**
 * Puts the account with this account_ref on a plan (the default plan too, which removes any other
 * assignment), recorded in the audit log with the administrator who did it.
 */
export async function assignPlan(
  db: Database,
  planId: number,
  accountRef: string,
  by: number,
  now: Date,
): Promise<ListedPlan> {
  const account = await accountByRef(db, accountRef);
  if (!account) throw new InvalidInput(`There is no account ${accountRef}.`, "assign_account_ref");
  const [plan] = await db.select({ id: pricingPlans.id }).from(pricingPlans).where(eq(pricingPlans.id, planId));
  if (!plan) throw new NotFound(NO_SUCH_PLAN);
  await db.transaction(async (tx) => {
    const [previous] = await tx.select({ planId: accountPlans.planId }).from(accountPlans)
      .where(eq(accountPlans.accountId, account.id));
    await tx.insert(accountPlans).values({ accountId: account.id, planId, assignedAt: now, assignedBy: by })
      .onConflictDoUpdate({ target: accountPlans.accountId, set: { planId, assignedAt: now, assignedBy: by } });
    await audit(tx, {
      actor: by,
      account: account.id,
      action: "pricing-plan.assign",
      before: { plan_id: previous?.planId ?? null },
      after: { plan_id: planId },
    }, now);
  });
  return await listedPlan(db, planId);
}
