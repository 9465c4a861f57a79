import { desc, eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { auditLog, profiles, users } from "../../db/schema.ts";
import { listCustomers } from "../../server/accounts/customers.ts";
import { openAccountFor } from "../../server/accounts/onboarding.ts";
import { audit } from "../../server/audit.ts";
import { findUser, summaryOf, userWithSummary } from "../../server/auth/users.ts";
import type { AppEnv } from "../../server/env.ts";
import { CONSOLE_GUARDS, guards } from "../../server/guards.ts";
import { ApiError, ok } from "../../server/http/api.ts";
import { valid } from "../../server/http/validate.ts";
import { validateCompliance } from "../../server/profile/schema.ts";
import { createAdministrator } from "../../server/auth/setup.ts";

const ADMIN = guards(...CONSOLE_GUARDS);

async function onBehalfAnswer(c: import("hono").Context<AppEnv>, customerId: number) {
  const customer = await userWithSummary(c.get("db"), customerId, true);
  if (!customer || customer.user.level === "Admin") return null;
  // cc_contact: the customer's contact address, to copy them on what is sent on their behalf.
  return { ...customer.summary, cc_contact: customer.user.username };
}

// One statement per route, never a chain: a chain's types pile up (decision 010).
export const admin = new Hono<AppEnv>();

admin.post(
  "/setup",
  valid(
    "json",
    z.object({
      email: z.string().trim().toLowerCase().pipe(z.email({ error: "Enter a valid email address." })),
      password: z.string(),
    }),
  ),
  async (c) => {
    const { email, password } = c.req.valid("json");
    const created = await createAdministrator(c.get("db"), email, password, { onlyIfNone: true });
    if (created === "exists") throw new ApiError(403, "Setup is already done.");
    if (typeof created === "string") throw new ApiError(422, created, { fields: { password: created } });
    return ok(c, { ok: true }, { redirect: "/" });
  },
);

admin.get("/account/onbehalf", ADMIN, async (c) => {
  if (!c.get("onBehalf")) throw new ApiError(404, "You are not acting on behalf of a customer.");
  return ok(c, await onBehalfAnswer(c, c.get("onBehalf")!.id));
});

admin.post(
  "/account/onbehalf",
  ADMIN,
  valid("json", z.object({ on_behalf_of: z.coerce.number().int().positive() })),
  async (c) => {
    const target = c.req.valid("json").on_behalf_of;
    const answer = await onBehalfAnswer(c, target);
    if (!answer) {
      throw new ApiError(404, "There is no customer with this id.", {
        fields: { on_behalf_of: "There is no customer with this id." },
      });
    }
    const adminId = c.get("user")!.id;
    await c.get("db").update(users).set({ onBehalfOf: target }).where(eq(users.id, adminId));
    await audit(
      c.get("db"),
      { actorId: adminId, onBehalfOfId: target, action: "on-behalf.start" },
      new Date(c.get("services").now()),
    );
    return ok(c, answer);
  },
);

admin.delete("/account/onbehalf", ADMIN, async (c) => {
  const adminId = c.get("user")!.id;
  const previous = c.get("onBehalf")?.id ?? null;
  await c.get("db").update(users).set({ onBehalfOf: null }).where(eq(users.id, adminId));
  if (previous) {
    await audit(
      c.get("db"),
      { actorId: adminId, onBehalfOfId: previous, action: "on-behalf.end" },
      new Date(c.get("services").now()),
    );
  }
  return ok(c, { ok: true });
});

admin.get("/console/users", ADMIN, async (c) => ok(c, await listCustomers(c.get("db"), c.req.query("q") ?? "")));

admin.post(
  "/console/users/:id/open-account",
  ADMIN,
  valid("json", z.object({ compliance: z.unknown() })),
  async (c) => {
    const id = Number(c.req.param("id"));
    const customer = Number.isInteger(id) && id > 0 ? await findUser(c.get("db"), id) : undefined;
    if (!customer || customer.level === "Admin") throw new ApiError(404, "There is no customer with this id.");
    const compliance = validateCompliance(c.req.valid("json").compliance, new Date(c.get("services").now()));
    if (!compliance.ok) throw new ApiError(422, compliance.error, { fields: compliance.fields });
    const summary = await summaryOf(c.get("db"), customer, false);
    if (!summary.profile) throw new ApiError(409, "The customer has not saved a profile yet.");
    if (!summary.identity) throw new ApiError(409, "The customer's identity is not approved yet.");
    if (summary.account) throw new ApiError(409, "This customer's account is already open.");
    const { done, amount, date } = compliance.compliance;
    if (!done) {
      throw new ApiError(422, "Complete the compliance review before opening the account.", {
        fields: { done: "Complete the compliance review before opening the account." },
      });
    }
    await c.get("db").update(profiles).set({
      complianceDone: done,
      complianceAmount: amount ?? null,
      complianceDate: date ?? null,
      updatedAt: new Date(c.get("services").now()),
    }).where(eq(profiles.userId, id));
    const account = await openAccountFor(c, id, c.get("user")!.id);
    await audit(c.get("db"), {
      actorId: c.get("user")!.id,
      onBehalfOfId: id,
      action: "account.open",
      detail: { account_ref: account.accountRef, compliance: compliance.compliance },
    }, new Date(c.get("services").now()));
    return ok(c, await summaryOf(c.get("db"), customer, false));
  },
);

admin.get("/console/audit", ADMIN, async (c) => {
  const customer = Number(c.req.query("customer"));
  const rows = await c.get("db").select().from(auditLog)
    .where(Number.isInteger(customer) && customer > 0 ? eq(auditLog.onBehalfOfId, customer) : undefined)
    .orderBy(desc(auditLog.id)).limit(500);
  return ok(
    c,
    rows.map((r) => ({
      id: r.id,
      at: r.at.toISOString(),
      actor_id: r.actorId,
      on_behalf_of_id: r.onBehalfOfId,
      action: r.action,
      detail: r.detail,
    })),
  );
});
