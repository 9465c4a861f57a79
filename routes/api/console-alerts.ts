import { type Context, Hono } from "hono";
import * as calls from "../../lib/contracts/console-alerts.ts";
import { assignAlert, listAlerts, resolveAlert } from "../../server/alerts/console.ts";
import type { AppEnv } from "../../server/env.ts";
import { route } from "../../server/http/route.ts";
import { largePaymentThreshold, setLargePaymentThreshold } from "../../server/alerts/threshold.ts";
import { listEmails, resendEmail, viewEmail } from "../../server/mail/console.ts";

/** The console's alerts and emails calls (issue 11 items 3 and 4, decision 045). */

const now = (c: Context<AppEnv>) => new Date(c.get("services").now());
/** The administrator making the call: the guards let nobody else through. */
const administrator = (c: Context<AppEnv>) => c.get("user")!.id;

export const consoleAlertCalls = new Hono<AppEnv>();

route(consoleAlertCalls, calls.listAlerts, async (c, { query }) =>
  await listAlerts(c.get("db"), {
    status: query.status,
    kind: query.kind,
    assignedTo: query.assigned_to,
    page: query.page,
    perPage: query.per_page,
  }));

route(
  consoleAlertCalls,
  calls.getAlertThreshold,
  async (c) => ({ gbp: await largePaymentThreshold(c.get("db"), c.get("config").alertPaymentGbp) }),
);

route(
  consoleAlertCalls,
  calls.setAlertThreshold,
  async (c, { body }) =>
    await setLargePaymentThreshold(c.get("db"), body.gbp, c.get("config").alertPaymentGbp, administrator(c), now(c)),
);

route(
  consoleAlertCalls,
  calls.assignAlert,
  async (c, { params, body }) => await assignAlert(c.get("db"), params.id, body.admin_id, administrator(c), now(c)),
);

route(
  consoleAlertCalls,
  calls.resolveAlert,
  async (c, { params, body }) => await resolveAlert(c.get("db"), params.id, body.note, administrator(c), now(c)),
);

route(
  consoleAlertCalls,
  calls.listEmails,
  async (c, { query }) => await listEmails(c.get("db"), { q: query.q, page: query.page, perPage: query.per_page }),
);

route(
  consoleAlertCalls,
  calls.getEmail,
  async (c, { params }) => await viewEmail(c.get("db"), params.id, administrator(c), now(c), "call"),
);

route(
  consoleAlertCalls,
  calls.resendEmail,
  async (c, { params }) =>
    await resendEmail(c.get("db"), c.get("services").mailer, params.id, administrator(c), now(c)),
);
