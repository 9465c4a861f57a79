/**
 * One pricing plan in the console (issue 11 item 9): its tiers and fees, the accounts on it and its
 * history of changes from the audit log. Administrators only; 404 to anyone else.
 */
import { z } from "zod";
import { auditEntry } from "./admin.ts";
import { idText, timestamp } from "./common.ts";
import { pricingPlan } from "./console-money.ts";
import { defineCall } from "./define.ts";
import { CONSOLE_GUARDS } from "./guards.ts";

/** An account on the plan: by an assignment (when and by whom), or the default plan's by having none. */
export const planAccount = z.object({
  account_ref: z.string(),
  name: z.string(),
  type: z.enum(["Personal", "Business"]),
  assigned_at: timestamp.nullable(),
  assigned_by: z.string().nullable(),
});

export const pricingPlanDetail = pricingPlan.omit({ accounts: true }).extend({
  created_at: timestamp,
  updated_at: timestamp,
  /** How many accounts are on the plan; `accounts` lists the first 500, by account_ref. */
  account_count: z.number(),
  accounts: z.array(planAccount),
  /** Its creation, every change and every account put on it or taken off it, newest first. */
  history: z.array(auditEntry),
});

export const getPricingPlan = defineCall({
  method: "GET",
  path: "/console/pricingplans/:id",
  summary: "One pricing plan: its tiers and fees, the accounts on it and its history of changes; 404 when none.",
  guards: CONSOLE_GUARDS,
  params: z.object({ id: idText }),
  answer: pricingPlanDetail,
});
