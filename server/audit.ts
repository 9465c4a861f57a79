import { desc, eq } from "drizzle-orm";
import type { Context, MiddlewareHandler } from "hono";
import type { z } from "zod";
import type { Database } from "../db/client.ts";
import { auditLog } from "../db/schema.ts";
import type { Tx } from "../db/sql.ts";
import type { auditEntry } from "../lib/contracts/admin.ts";
import type { AppEnv } from "./env.ts";

/**
 * Records what an administrator did, and for whom, in the audit log (never changed, only added to);
 * also what customers change about who may act on their accounts. Inside a transaction, pass it,
 * so the entry commits with the change it records.
 */
export async function audit(
  db: Database | Tx,
  entry: { actorId: number; onBehalfOfId: number | null; action: string; detail?: unknown },
  now = new Date(),
): Promise<void> {
  await db.insert(auditLog).values({
    at: now,
    actorId: entry.actorId,
    onBehalfOfId: entry.onBehalfOfId,
    action: entry.action,
    detail: entry.detail ?? null,
  });
}

/** The latest 500 entries, newest first; only those about one customer when one is given. */
export async function auditEntries(db: Database, customerId?: number): Promise<z.output<typeof auditEntry>[]> {
  const rows = await db.select().from(auditLog)
    .where(customerId === undefined ? undefined : eq(auditLog.onBehalfOfId, customerId))
    .orderBy(desc(auditLog.id)).limit(500);
  return rows.map((r) => ({
    id: r.id,
    at: r.at.toISOString(),
    actor_id: r.actorId,
    on_behalf_of_id: r.onBehalfOfId,
    action: r.action,
    detail: r.detail,
  }));
}

/**
 * Every call that changes something while an administrator acts on behalf of a customer is
 * recorded with both identities and the answer's status, after it ran.
 */
export function auditOnBehalf(): MiddlewareHandler<AppEnv> {
  return async function auditCalls(c: Context<AppEnv>, next) {
    await next();
    const admin = c.get("user");
    const customer = c.get("onBehalf");
    if (!admin || admin.level !== "Admin" || !customer) return;
    if (c.req.method === "GET" || c.req.method === "HEAD" || c.req.path.endsWith("/account/onbehalf")) return;
    await audit(c.get("db"), {
      actorId: admin.id,
      onBehalfOfId: customer.id,
      action: `${c.req.method} ${c.req.path}`,
      detail: { status: c.res.status },
    }, new Date(c.get("services").now()));
  };
}
