/** The console's alerts and emails calls, typed by their contracts (lib/contracts/console-alerts.ts). */
import type * as calls from "../../lib/contracts/console-alerts.ts";
import { type AnswerOf, call } from "../lib/api.ts";

export const listAlerts = call<typeof calls.listAlerts>("GET", "/console/alerts");
export const assignAlert = call<typeof calls.assignAlert>("POST", "/console/alerts/:id/assign");
export const resolveAlert = call<typeof calls.resolveAlert>("POST", "/console/alerts/:id/resolve");
export const resendEmail = call<typeof calls.resendEmail>("POST", "/console/emails/:id/resend");

export type Alert = AnswerOf<typeof calls.listAlerts>[number];
export type AlertStatus = "open" | "resolved" | "all";

/** The alerts list by status filter. */
export const alertKeys = {
  all: ["console-alerts"] as const,
  list: (status: AlertStatus) => ["console-alerts", status] as const,
};
