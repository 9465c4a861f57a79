import { Hono } from "hono";
import * as calls from "../../lib/contracts/console-admins.ts";
import { disableAdministrator, inviteAdministrator, listAdministrators } from "../../server/console/administrators.ts";
import type { AppEnv } from "../../server/env.ts";
import { route } from "../../server/http/route.ts";

/** The console's administrators (decision 044). */
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

route(
  consoleAdmins,
  calls.disableAdministrator,
  (c, { params }) => disableAdministrator(c.get("db"), params.id, c.get("user")!.id, new Date(c.get("services").now())),
);
