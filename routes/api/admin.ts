import { reversedPeriod } from "../../lib/periods.ts";
import { InvalidInput } from "../../server/errors.ts";
import { Hono } from "hono";
import type { Context } from "hono";
import * as calls from "../../lib/contracts/admin.ts";
import { changeCustomerProfile } from "../../lib/contracts/console-profile.ts";
import { changeProfileBySupport } from "../../server/profile/support-change.ts";
import { openAccountAfterReview, rejectApplication } from "../../server/accounts/compliance.ts";
import { listCustomers } from "../../server/accounts/customers.ts";
import { restrictionOf, setRestriction } from "../../server/accounts/restriction.ts";
import { currentOnBehalf, startOnBehalf, stopOnBehalf } from "../../server/accounts/on-behalf.ts";
import { auditEntries } from "../../server/audit.ts";
import { setUpPortal } from "../../server/auth/setup.ts";
import type { AppEnv } from "../../server/env.ts";
import { reply, route } from "../../server/http/route.ts";

/** The portal's setup and the administrators' calls about customers (decision 004). */

export const admin = new Hono<AppEnv>();

const now = (c: Context<AppEnv>) => new Date(c.get("services").now());

route(admin, calls.setup, async (c, { body }) => {
  await setUpPortal(c.get("db"), body.email, body.password);
  return reply({ ok: true } as const, { redirect: "/" });
});

route(admin, calls.currentOnBehalf, (c) => currentOnBehalf(c.get("db"), c.get("onBehalf")?.id));

route(
  admin,
  calls.startOnBehalf,
  (c, { body }) =>
    startOnBehalf(c.get("db"), c.get("user")!.id, body.on_behalf_of, c.get("onBehalf")?.id ?? null, now(c)),
);

route(admin, calls.stopOnBehalf, async (c) => {
  await stopOnBehalf(c.get("db"), c.get("user")!.id, c.get("onBehalf")?.id ?? null, now(c));
  return { ok: true } as const;
});

route(admin, calls.listCustomers, (c, { query }) => {
  const reversed = reversedPeriod(query.from, query.to);
  if (reversed) throw new InvalidInput(reversed.message, reversed.field);
  return listCustomers(c.get("db"), query);
});

route(admin, calls.openAccount, (c, { params, body }) =>
  openAccountAfterReview(
    { db: c.get("db"), mailer: c.get("services").mailer, publicUrl: c.get("config").publicUrl },
    {
      customerId: params.id,
      adminId: c.get("user")!.id,
      compliance: body.compliance,
      overridesRejection: body.overrides_rejection,
    },
    now(c),
  ));

route(admin, calls.rejectApplication, (c, { params, body }) =>
  rejectApplication(
    { db: c.get("db"), mailer: c.get("services").mailer, supportEmail: c.get("config").supportEmail },
    { customerId: params.id, adminId: c.get("user")!.id, reason: body.reason, note: body.note },
    now(c),
  ));

route(admin, calls.auditLog, (c, { query }) => auditEntries(c.get("db"), query.customer));

route(admin, calls.getRestriction, (c, { params }) => restrictionOf(c.get("db"), params.id));

route(
  admin,
  calls.restrictCustomer,
  (c, { params, body }) =>
    setRestriction(c.get("db"), params.id, { restricted: true, reason: body.reason }, c.get("user")!.id, now(c)),
);

route(
  admin,
  calls.liftRestriction,
  (c, { params, body }) =>
    setRestriction(c.get("db"), params.id, { restricted: false, reason: body.reason }, c.get("user")!.id, now(c)),
);

route(admin, changeCustomerProfile, (c, { params, body }) =>
  changeProfileBySupport(
    { db: c.get("db"), mailer: c.get("services").mailer, supportEmail: c.get("config").supportEmail },
    { customerId: params.id, adminId: c.get("user")!.id, changes: body.changes, reason: body.reason },
    now(c),
  ));
