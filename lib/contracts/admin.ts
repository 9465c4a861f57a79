/**
 * The portal's setup and the administrators' calls about customers (SPEC.md section 5, decision
 * 004): the customer list, acting on behalf of a customer, opening an account after the
 * compliance review, and the audit log.
 */
import { z } from "zod";
import { AUDIT_ACTION_NAMES } from "../audit.ts";
import { REJECTION_REASONS } from "../compliance.ts";
import { calendarDay, idText, idValue, pageOf, pageQuery, text, timestamp } from "./common.ts";
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
  /** Whether the customer is restricted: they can sign in and see, but no money moves (decision 048). */
  restricted: z.boolean(),
  /** The onboarding step the customer is at (CUSTOMER_STEPS). */
  step: z.enum(["verify", "profile", "identity", "review", "rejected", "open"]),
  /**
   * The compliance review's rejection of the application, when it stands (no account yet): when,
   * and the reason (lib/compliance.ts). Opening the account then needs a review that overrides it.
   */
  rejection: z.object({ at: timestamp, reason: z.enum(REJECTION_REASONS) }).nullable(),
  created_at: timestamp,
});

/**
 * The onboarding steps a customer can be at, in order: their email to verify, a profile to save,
 * their identity to check, the compliance review waiting, the application rejected by the review
 * (whatever the identity check says, until a review overrides it), or their account open.
 */
export const CUSTOMER_STEPS = ["verify", "profile", "identity", "review", "rejected", "open"] as const;

/** Where a customer's restriction stands (decision 048): its reason, who set or lifted it, when. */
export const restriction = z.object({
  restricted: z.boolean(),
  /** Why, for the file; null when the customer is not restricted. */
  reason: z.string().nullable(),
  /** When the latest restriction or lift was made, and by which administrator; null if never. */
  at: timestamp.nullable(),
  by: z.string().nullable(),
});

const signedUp = (field: "from" | "to") => calendarDay(field).optional();
const yesOrNo = (field: string) =>
  z.enum(["true", "false"], { error: `${field} is true or false.` }).transform((v) => v === "true").optional();

/** The customer an administrator acts for, with their address to copy them on what is sent. */
export const onBehalfCustomer = sessionUser.extend({ cc_contact: z.string() });

/**
 * One entry of the audit log (docs/decisions/026): who (the administrator, or a customer about
 * their own account's users), for which customer and account, what (lib/audit.ts), and the values
 * before and after.
 */
export const auditEntry = z.object({
  id: z.number(),
  at: timestamp,
  actor: z.object({ id: z.number(), email: z.string() }),
  subject_id: z.number().nullable(),
  account_ref: z.string().nullable(),
  action: z.enum(AUDIT_ACTION_NAMES),
  before: z.unknown(),
  after: z.unknown(),
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
  summary:
    "A page of customers, newest first, filtered by type, onboarding step, restriction, balance and sign-up days, optionally those whose name, email or account reference contains q; with the total that match.",
  guards: CONSOLE_GUARDS,
  query: z.object({
    q: text({ label: "The search", max: 200, min: 0, wrong: "Search with one text." }).optional().default(""),
    type: z.enum(["Personal", "Business"], { error: "type is Personal or Business." }).optional(),
    step: z.enum(CUSTOMER_STEPS, { error: `step is one of ${CUSTOMER_STEPS.join(", ")}.` }).optional(),
    restricted: yesOrNo("restricted"),
    has_balance: yesOrNo("has_balance"),
    /** Signed up on or after this day (UTC). */
    from: signedUp("from"),
    /** Signed up on or before this day (UTC). */
    to: signedUp("to"),
    ...pageQuery,
  }),
  answer: pageOf(customerRow),
});

export const getRestriction = defineCall({
  method: "GET",
  path: "/console/users/:id/restrict",
  summary: "Whether the customer is restricted, why, by whom and since when.",
  guards: CONSOLE_GUARDS,
  params: z.object({ id: idText }),
  answer: restriction,
});

const RESTRICT_REASON = "Write why the customer is restricted (at most 500 characters): it is kept for the file.";

const LIFT_REASON = "Write why the restriction is lifted (at most 500 characters): it is kept for the file.";

export const restrictCustomer = defineCall({
  method: "POST",
  path: "/console/users/:id/restrict",
  summary:
    "Restricts the customer with a reason: they can sign in and see, but every money-moving call answers 403; 409 when restricted already.",
  guards: CONSOLE_GUARDS,
  params: z.object({ id: idText }),
  body: z.object({
    reason: text({
      label: "The reason",
      max: 500,
      missing: RESTRICT_REASON,
      wrong: RESTRICT_REASON,
      tooLong: RESTRICT_REASON,
    }),
  }),
  answer: restriction,
});

export const liftRestriction = defineCall({
  method: "DELETE",
  path: "/console/users/:id/restrict",
  summary:
    "Lifts the customer's restriction with a reason kept for the file: they can move money again; 409 when not restricted.",
  guards: CONSOLE_GUARDS,
  params: z.object({ id: idText }),
  // Lifting undoes a compliance decision: like restricting, it says why (decision 048, amended).
  body: z.object({
    reason: text({
      label: "The reason",
      max: 500,
      missing: LIFT_REASON,
      wrong: LIFT_REASON,
      tooLong: LIFT_REASON,
    }),
  }),
  answer: restriction,
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
    /** Required to open a rejected customer: the new review overrides the rejection (decision 026). */
    overrides_rejection: z.boolean({ error: "overrides_rejection is true or false." }).optional(),
  }),
  answer: sessionUser,
});

/** Where a customer's compliance review stands: approved, or rejected and why (decision 026). */
export const complianceRecord = z.object({
  done: z.boolean(),
  amount: z.string().nullable(),
  date: z.string().nullable(),
  rejection: z.object({
    at: timestamp,
    by: z.object({ id: z.number(), email: z.string() }),
    reason: z.enum(REJECTION_REASONS),
    note: z.string(),
  }).nullable(),
});

const REASON_CHOICE = `The reason is one of ${REJECTION_REASONS.join(", ")}: what the customer is told.`;
const NOTE_PROBLEM = "Write a note for the file (at most 1000 characters): why the application is rejected.";

export const rejectApplication = defineCall({
  method: "POST",
  path: "/console/users/:id/reject",
  summary: "Rejects a waiting customer's application with a reason they are told and a note for the file; emails them.",
  guards: CONSOLE_GUARDS,
  params: z.object({ id: idText }),
  body: z.object({
    reason: z.enum(REJECTION_REASONS, { error: REASON_CHOICE }),
    note: text({
      label: "The note",
      max: 1000,
      missing: NOTE_PROBLEM,
      wrong: NOTE_PROBLEM,
      tooLong: NOTE_PROBLEM,
    }),
  }),
  answer: complianceRecord,
});

/**
 * The filters of the console's audit screen (/console/audit, a page read with its query string):
 * who (part of an email), what (an action), for which customer, and between which UTC days.
 */
export const auditScreenQuery = z.object({
  who: text({ label: "Who", max: 200, min: 0, wrong: "Who is part of an email." }).optional()
    .transform((v) => v || undefined),
  action: z.enum(AUDIT_ACTION_NAMES, { error: "Choose an action from the list." }).optional(),
  customer: idText.optional(),
  from: signedUp("from").optional(),
  to: signedUp("to").optional(),
  page: pageQuery.page,
});

export const auditLog = defineCall({
  method: "GET",
  path: "/console/audit",
  summary: "The audit log, newest first (the latest 500), optionally of one customer.",
  guards: CONSOLE_GUARDS,
  query: z.object({ customer: idText.optional() }),
  answer: z.array(auditEntry),
});
