import { Hono } from "hono";
import * as calls from "../../lib/contracts/console-admins.ts";
import * as plans from "../../lib/contracts/console-plans.ts";
import {
  approveInvitation,
  disableAdministrator,
  inviteAdministrator,
  listAdministrators,
  refuseInvitation,
} from "../../server/console/administrators.ts";
import type { AppEnv } from "../../server/env.ts";
import { planDetail } from "../../server/money/plan-detail.ts";
import { route } from "../../server/http/route.ts";

/** The console's administrators (decision 044), and one pricing plan's page of facts. */
export const consoleAdmins = new Hono<AppEnv>();

route(consoleAdmins, calls.listAdministrators, (c) => listAdministrators(c.get("db")));

route(consoleAdmins, calls.inviteAdministrator, (c, { body }) => {
  const { verifications, mailer, now } = c.get("services");
  return inviteAdministrator(
    { db: c.get("db"), verifications, mailer, publicUrl: c.get("config").publicUrl },
    body,
    c.get("user")!.id,
    new Date(now()),
  );
});

route(consoleAdmins, calls.approveInvitation, (c, { params }) => {
  const { verifications, mailer, now } = c.get("services");
  return approveInvitation(
    { db: c.get("db"), verifications, mailer, publicUrl: c.get("config").publicUrl },
    params.id,
    c.get("user")!.id,
    new Date(now()),
  );
});

route(
  consoleAdmins,
  calls.refuseInvitation,
  (c, { params, body }) =>
    refuseInvitation(c.get("db"), params.id, body.reason, c.get("user")!.id, new Date(c.get("services").now())),
);

route(
  consoleAdmins,
  calls.disableAdministrator,
  (c, { params }) => disableAdministrator(c.get("db"), params.id, c.get("user")!.id, new Date(c.get("services").now())),
);

// One pricing plan with its accounts and history (issue 11 item 9): read here, beside the
// console's other issue-11 reads, so that the money calls' file stays as it was.
route(consoleAdmins, plans.getPricingPlan, (c, { params }) => planDetail(c.get("db"), params.id));
