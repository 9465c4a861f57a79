/** The console's alerts and emails calls, typed by their contracts (lib/contracts/console-alerts.ts). */
import type * as calls from "../../lib/contracts/console-alerts.ts";
import { type AnswerOf, call } from "../lib/api.ts";
import type { AlertKind } from "../../lib/alerts.ts";

export const listAlerts = call<typeof calls.listAlerts>("GET", "/console/alerts");
export const assignAlert = call<typeof calls.assignAlert>("POST", "/console/alerts/:id/assign");
export const resolveAlert = call<typeof calls.resolveAlert>("POST", "/console/alerts/:id/resolve");
export const setAlertThreshold = call<typeof calls.setAlertThreshold>("PUT", "/console/alerts/threshold");
export const resendEmail = call<typeof calls.resendEmail>("POST", "/console/emails/:id/resend");

export type AlertPage = AnswerOf<typeof calls.listAlerts>;
export type Alert = AlertPage["items"][number];
export type AlertStatus = "open" | "resolved" | "all";

/** What the alerts list is filtered by. */
export interface AlertListFilter {
  status: AlertStatus;
  kind: AlertKind | "";
  /** An administrator's id, or "" for anyone. */
  assignedTo: string;
  page: number;
}

/** The alerts list by its filters. */
export const alertKeys = {
  all: ["console-alerts"] as const,
  list: (filter: AlertListFilter) => ["console-alerts", filter] as const,
};
