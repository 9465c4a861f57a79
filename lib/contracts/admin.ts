/**
 * The portal's setup and the administrators' calls about customers (SPEC.md section 5, decision
 * 004): the customer list, acting on behalf of a customer, opening an account after the
 * compliance review, and the audit log.
 */
import { z } from "zod";
import { idText, idValue, text, timestamp } from "./common.ts";
import { defineCall } from "./define.ts";
import { CONSOLE_GUARDS } from "./guards.ts";
import { newEmail, newPassword } from "./auth.ts";
import { sessionUser } from "./session-user.ts";

/** One customer as the console's list shows them: who, and how far their onboarding is. */
export const customerRow = z.object({
  id: z.number(),
  username: z.string(),
  name: z.string(),
  type: z.enum(["Personal", "Business"]),
  validated: z.boolean(),
  profile: z.boolean(),
  identity: z.boolean(),
  account: z.boolean(),
  account_ref: z.string().nullable(),
  created_at: timestamp,
});

/** The customer an administrator acts for, with their address to copy them on what is sent. */
export const onBehalfCustomer = sessionUser.extend({ cc_contact: z.string() });

export const auditEntry = z.object({
  id: z.number(),
  at: timestamp,
  actor_id: z.number(),
  on_behalf_of_id: z.number().nullable(),
  action: z.string(),
  detail: z.unknown(),
});

/**
 * The compliance review an administrator records (SPEC.md section 5). Its rules include "not in
 * the future", read on the server's clock, so the server checks it when the account opens
 * (server/profile/schema.ts: a 422 naming each failing field); the contract gives its shape.
 */
export interface ComplianceInput {
  done?: boolean;
  amount?: string | number | null;
  date?: string | null;
}

const customerId = idValue("Choose the customer by their id.");

export const setup = defineCall({
  method: "POST",
  path: "/setup",
  summary: "Creates the first administrator; 403 once one exists.",
  guards: [],
  body: z.object({ email: newEmail, password: newPassword }),
  answer: z.object({ ok: z.literal(true) }),
});

export const currentOnBehalf = defineCall({
  method: "GET",
  path: "/account/onbehalf",
  summary: "The customer the administrator acts for; 404 when none.",
  guards: CONSOLE_GUARDS,
  answer: onBehalfCustomer,
});

export const startOnBehalf = defineCall({
  method: "POST",
  path: "/account/onbehalf",
  summary: "Starts acting on behalf of a customer; recorded in the audit log.",
  guards: CONSOLE_GUARDS,
  body: z.object({ on_behalf_of: customerId }),
  answer: onBehalfCustomer,
});

export const stopOnBehalf = defineCall({
  method: "DELETE",
  path: "/account/onbehalf",
  summary: "Stops acting on behalf of a customer; recorded in the audit log.",
  guards: CONSOLE_GUARDS,
  answer: z.object({ ok: z.literal(true) }),
});

export const listCustomers = defineCall({
  method: "GET",
  path: "/console/users",
  summary: "Customers, newest first, optionally matching a search in their email or profile.",
  guards: CONSOLE_GUARDS,
  query: z.object({
    q: text({ label: "The search", max: 200, min: 0, wrong: "Search with one text." }).optional().default(""),
  }),
  answer: z.array(customerRow),
});

export const openAccount = defineCall({
  method: "POST",
  path: "/console/users/:id/open-account",
  summary: "Records the compliance review and opens the customer's account; 409 when it is open already.",
  guards: CONSOLE_GUARDS,
  params: z.object({ id: idText }),
  body: z.object({
    compliance: z.custom<ComplianceInput>(
      (value) => typeof value === "object" && value !== null && !Array.isArray(value),
      { error: "Give the compliance review: an object with done, amount and date." },
    ),
  }),
  answer: sessionUser,
});

export const auditLog = defineCall({
  method: "GET",
  path: "/console/audit",
  summary: "The audit log, newest first (the latest 500), optionally of one customer.",
  guards: CONSOLE_GUARDS,
  query: z.object({ customer: idText.optional() }),
  answer: z.array(auditEntry),
});
