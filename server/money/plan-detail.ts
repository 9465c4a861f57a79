import { and, asc, count, desc, eq, inArray, isNull, or, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { z } from "zod";
import type { Database } from "../../db/client.ts";
import { accounts, auditLog, users } from "../../db/schema.ts";
import { accountPlans, pricingPlans } from "../../db/schema-money.ts";
import type { AuditAction } from "../../lib/audit.ts";
import type { pricingPlanDetail } from "../../lib/contracts/console-plans.ts";
import { NotFound } from "../errors.ts";

/**
 * One pricing plan for the console's page and GET console/pricingplans/{id} (issue 11 item 9):
 * the plan, the accounts on it, and its history from the audit log, where plans.ts records each
 * creation, change and assignment (the plan's id is inside the entry's values, not a column).
 */

export type PlanDetail = z.output<typeof pricingPlanDetail>;

const SHOWN_ACCOUNTS = 500;
const assigner = alias(users, "assigner");

export async function planDetail(db: Database, id: number): Promise<PlanDetail> {
  const [plan] = await db.select().from(pricingPlans).where(eq(pricingPlans.id, id));
  if (!plan) throw new NotFound("There is no pricing plan with this id.");

  // The default plan also holds every account that has no plan of its own.
  const onPlan = plan.isDefault
    ? or(eq(accountPlans.planId, id), isNull(accountPlans.planId))
    : eq(accountPlans.planId, id);
  const [{ n }] = await db.select({ n: count() }).from(accounts)
    .leftJoin(accountPlans, eq(accountPlans.accountId, accounts.id)).where(onPlan);
  const rows = await db.select({
    accountRef: accounts.accountRef,
    name: accounts.name,
    type: accounts.type,
    assignedAt: accountPlans.assignedAt,
    assignedBy: assigner.username,
  }).from(accounts)
    .leftJoin(accountPlans, eq(accountPlans.accountId, accounts.id))
    .leftJoin(assigner, eq(assigner.id, accountPlans.assignedBy))
    .where(onPlan).orderBy(asc(accounts.accountRef)).limit(SHOWN_ACCOUNTS);

  const history = await db.select({ entry: auditLog, email: users.username, accountRef: accounts.accountRef })
    .from(auditLog)
    .innerJoin(users, eq(users.id, auditLog.actorId))
    .leftJoin(accounts, eq(accounts.id, auditLog.accountId))
    .where(or(
      and(
        inArray(auditLog.action, ["pricing-plan.create", "pricing-plan.replace"]),
        sql`json_extract(${auditLog.after}, '$.id') = ${id}`,
      ),
      and(
        eq(auditLog.action, "pricing-plan.assign"),
        sql`(json_extract(${auditLog.after}, '$.plan_id') = ${id} OR json_extract(${auditLog.before}, '$.plan_id') = ${id})`,
      ),
      // An account with no plan of its own was on the default one: its first assignment took it off.
      plan.isDefault
        ? and(eq(auditLog.action, "pricing-plan.assign"), sql`json_extract(${auditLog.before}, '$.plan_id') IS NULL`)
        : undefined,
    ))
    .orderBy(desc(auditLog.id)).limit(500);

  return {
    id: plan.id,
    name: plan.name,
    is_default: plan.isDefault,
    tier_currency: plan.tierCurrency,
    tiers: plan.tiers,
    fees: plan.fees,
    created_at: plan.createdAt.toISOString(),
    updated_at: plan.updatedAt.toISOString(),
    account_count: n,
    accounts: rows.map((row) => ({
      account_ref: row.accountRef,
      name: row.name,
      type: row.type,
      assigned_at: row.assignedAt?.toISOString() ?? null,
      assigned_by: row.assignedBy ?? null,
    })),
    history: history.map(({ entry, email, accountRef }) => ({
      id: entry.id,
      at: entry.at.toISOString(),
      actor: { id: entry.actorId, email },
      subject_id: entry.subjectId,
      account_ref: accountRef,
      action: entry.action as AuditAction,
      before: entry.before,
      after: entry.after,
    })),
  };
}
