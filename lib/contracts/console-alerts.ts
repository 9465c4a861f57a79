/**
 * The console's alerts and emails calls (issue 11 items 3 and 4, decision 045): what needs an
 * administrator's attention, and every email the portal sent or kept.
 */
import { z } from "zod";
import { ALERT_KINDS, ALERT_SEVERITIES } from "../alerts.ts";
import { idText, idValue, pageOf, pageQuery, text, timestamp } from "./common.ts";
import { defineCall } from "./define.ts";
import { CONSOLE_GUARDS } from "./guards.ts";

const byId = z.object({ id: idText });

/** An administrator as a list shows them. */
const admin = z.object({ id: z.number(), email: z.string() });

export const ALERT_STATUSES = ["open", "resolved", "all"] as const;

export const alert = z.object({
  id: z.number(),
  kind: z.enum(ALERT_KINDS),
  severity: z.enum(ALERT_SEVERITIES),
  /** What it is about: payment_id, receipt_id, user_id, account_id... as the kind has them. */
  subject: z.record(z.string(), z.unknown()),
  message: z.string(),
  created_at: timestamp,
  assigned_to: admin.nullable(),
  /** The administrator whose action raised it: another administrator resolves it. Null: the portal did. */
  raised_by: admin.nullable(),
  resolved_at: timestamp.nullable(),
  resolved_by: admin.nullable(),
  resolution_note: z.string().nullable(),
});

export const listAlerts = defineCall({
  method: "GET",
  path: "/console/alerts",
  summary:
    "A page of alerts by status (open unless given), kind and assignee: open ones oldest first, the others newest first.",
  guards: CONSOLE_GUARDS,
  query: z.object({
    status: z.enum(ALERT_STATUSES, { error: `status is one of ${ALERT_STATUSES.join(", ")}.` }).optional()
      .default("open"),
    kind: z.enum(ALERT_KINDS, { error: `kind is one of ${ALERT_KINDS.join(", ")}.` }).optional(),
    /** The administrator the alerts are given to (decision 057). */
    assigned_to: idText.optional(),
    ...pageQuery,
  }),
  answer: pageOf(alert),
});

export const assignAlert = defineCall({
  method: "POST",
  path: "/console/alerts/:id/assign",
  summary: "Gives an open alert to an administrator; 409 once it is resolved.",
  guards: CONSOLE_GUARDS,
  params: byId,
  body: z.object({ admin_id: idValue("Choose the administrator by their id.") }),
  answer: alert,
});

export const resolveAlert = defineCall({
  method: "POST",
  path: "/console/alerts/:id/resolve",
  summary: "Resolves an open alert with a note of what was done; 409 when resolved already.",
  guards: CONSOLE_GUARDS,
  params: byId,
  body: z.object({
    note: text({
      label: "The note",
      max: 1000,
      multiline: true,
      missing: "Write what was done about it (at most 1000 characters): it is kept with the alert.",
    }),
  }),
  answer: alert,
});

const THRESHOLD = "Enter the threshold in whole pounds, from 1 to 100000000.";

/** The large-payment alert's threshold (decision 057). */
export const alertThreshold = z.object({ gbp: z.number() });

export const getAlertThreshold = defineCall({
  method: "GET",
  path: "/console/alerts/threshold",
  summary: "The amount in pounds above which a payment raises a large_payment alert.",
  guards: CONSOLE_GUARDS,
  answer: alertThreshold,
});

export const setAlertThreshold = defineCall({
  method: "PUT",
  path: "/console/alerts/threshold",
  summary: "Sets the large-payment alert threshold in whole pounds; audited (alerts.threshold).",
  guards: CONSOLE_GUARDS,
  body: z.object({
    gbp: text({ label: "The threshold", max: 9, missing: THRESHOLD, wrong: THRESHOLD, tooLong: THRESHOLD })
      .regex(/^[1-9][0-9]{0,8}$/, { error: THRESHOLD }).transform(Number)
      .pipe(z.number().max(100_000_000, { error: THRESHOLD })),
  }),
  answer: alertThreshold,
});

const email = z.object({
  id: z.number(),
  to: z.string(),
  subject: z.string(),
  template: z.string(),
  /** in doubt: a bulk email's mail handed to the mail server whose answer was never recorded (decision 061). */
  status: z.enum(["sent", "stored", "failed", "in doubt"]),
  user_id: z.number().nullable(),
  /** The customer's display name; null when the email is about nobody. */
  customer_name: z.string().nullable(),
  /** A security email (a link or code that signs in): shown redacted, never sent again (decision 057). */
  security: z.boolean(),
  /** The bulk email this mail was one of (decision 061); null for the portal's other emails. */
  bulk_email_id: z.number().nullable(),
  created_at: timestamp,
});

export const emailDetail = email.extend({ html: z.string(), text: z.string(), error: z.string().nullable() });

export const listEmails = defineCall({
  method: "GET",
  path: "/console/emails",
  summary: "A page of the emails the portal sent or kept, newest first; q finds a part of the recipient or subject.",
  guards: CONSOLE_GUARDS,
  query: z.object({
    q: text({ label: "The search", max: 200, min: 0, wrong: "Search with one text." }).optional().default(""),
    ...pageQuery,
  }),
  answer: pageOf(email),
});

export const getEmail = defineCall({
  method: "GET",
  path: "/console/emails/:id",
  summary:
    "One email with its HTML and text as sent (a security email without its links and codes), and its delivery status; the view is audited (email.view).",
  guards: CONSOLE_GUARDS,
  params: byId,
  answer: emailDetail,
});

export const resendEmail = defineCall({
  method: "POST",
  path: "/console/emails/:id/resend",
  summary:
    "Sends an email again, as it was, to the same address: answers the new email, 201. A security email (a link or code that signs in) is refused: 422; a bulk email's mail: 409, naming its bulk email.",
  status: 201,
  guards: CONSOLE_GUARDS,
  params: byId,
  answer: emailDetail,
});
