import { aliasedTable, and, asc, desc, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { users } from "../../db/schema.ts";
import { administrators, consoleAlerts } from "../../db/schema-console.ts";
import type { Tx } from "../../db/sql.ts";
import { type AlertKind, type AlertSeverity, RAISED_BY_YOU } from "../../lib/alerts.ts";
import { audit } from "../audit.ts";
import { Conflict, InvalidInput, NotFound } from "../errors.ts";

/**
 * The console's alerts screen (issue 11, decision 045): the list by status, giving an alert to an
 * administrator, resolving it with a note, and the count of open ones for the console menu. Every
 * change is audited in its own transaction.
 */

export type AlertStatus = "open" | "resolved" | "all";

export interface AlertAnswer {
  id: number;
  kind: AlertKind;
  severity: AlertSeverity;
  subject: Record<string, unknown>;
  message: string;
  created_at: string;
  assigned_to: { id: number; email: string } | null;
  /** The administrator whose action raised it (who may not resolve it); null when the portal did. */
  raised_by: { id: number; email: string } | null;
  resolved_at: string | null;
  resolved_by: { id: number; email: string } | null;
  resolution_note: string | null;
}

const assignee = aliasedTable(users, "assignee");
const resolver = aliasedTable(users, "resolver");
const raiser = aliasedTable(users, "raiser");

function selectAlerts(db: Database | Tx) {
  return db.select({
    alert: consoleAlerts,
    assignee: assignee.username,
    resolver: resolver.username,
    raiser: raiser.username,
  })
    .from(consoleAlerts)
    .leftJoin(assignee, eq(assignee.id, consoleAlerts.assignedTo))
    .leftJoin(resolver, eq(resolver.id, consoleAlerts.resolvedBy))
    .leftJoin(raiser, eq(raiser.id, consoleAlerts.createdBy));
}

type Selected = Awaited<ReturnType<ReturnType<typeof selectAlerts>["limit"]>>[number];

function answerOf({ alert, assignee, resolver, raiser }: Selected): AlertAnswer {
  return {
    id: alert.id,
    kind: alert.kind,
    severity: alert.severity,
    subject: alert.subject,
    message: alert.message,
    created_at: alert.createdAt.toISOString(),
    assigned_to: alert.assignedTo !== null ? { id: alert.assignedTo, email: assignee ?? "" } : null,
    raised_by: alert.createdBy !== null ? { id: alert.createdBy, email: raiser ?? "" } : null,
    resolved_at: alert.resolvedAt?.toISOString() ?? null,
    resolved_by: alert.resolvedBy !== null ? { id: alert.resolvedBy, email: resolver ?? "" } : null,
    resolution_note: alert.resolutionNote,
  };
}

export interface AlertFilter {
  status?: AlertStatus;
  kind?: AlertKind;
  /** The administrator they are given to. */
  assignedTo?: number;
  page?: number;
  perPage?: number;
}

/**
 * A page of alerts (decision 057: filtered by kind and assignee, paged with the total, no silent
 * stop at 500). Open alerts oldest first (what waits longest comes first); resolved and all,
 * newest first.
 */
export async function listAlerts(db: Database, filter: AlertFilter = {}) {
  const { status = "open", kind, assignedTo, page = 1, perPage = 20 } = filter;
  const where = and(
    status === "open"
      ? isNull(consoleAlerts.resolvedAt)
      : status === "resolved"
      ? isNotNull(consoleAlerts.resolvedAt)
      : undefined,
    kind ? eq(consoleAlerts.kind, kind) : undefined,
    assignedTo !== undefined ? eq(consoleAlerts.assignedTo, assignedTo) : undefined,
  );
  const order = status === "open" ? consoleAlerts.id : desc(consoleAlerts.id);
  const [[count], rows] = await Promise.all([
    db.select({ n: sql<number>`count(*)` }).from(consoleAlerts).where(where),
    selectAlerts(db).where(where).orderBy(order).limit(perPage).offset((page - 1) * perPage),
  ]);
  return { items: rows.map(answerOf), page, per_page: perPage, total: count?.n ?? 0 };
}

/** How many alerts are open: the console menu shows it on every console page (an index-only count). */
export async function openAlertCount(db: Database): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)` }).from(consoleAlerts)
    .where(isNull(consoleAlerts.resolvedAt));
  return row?.n ?? 0;
}

async function alertById(db: Database | Tx, id: number): Promise<AlertAnswer> {
  const [row] = await selectAlerts(db).where(eq(consoleAlerts.id, id)).limit(1);
  if (!row) throw new NotFound("There is no alert with this id.");
  return answerOf(row);
}

export const NO_SUCH_ADMINISTRATOR = "There is no administrator with this id.";
export const DISABLED_ASSIGNEE = "This administrator is disabled: give the alert to an active administrator.";

/**
 * Every administrator, by email, and whether they are active: an alert is given only to an active
 * one (a disabled administrator cannot sign in to see it); the filter still finds a disabled one's.
 */
export async function alertAssignees(db: Database | Tx): Promise<{ id: number; email: string; active: boolean }[]> {
  const rows = await db.select({ id: users.id, email: users.username, disabledAt: administrators.disabledAt })
    .from(users).leftJoin(administrators, eq(administrators.userId, users.id))
    .where(eq(users.level, "Admin")).orderBy(asc(users.username));
  return rows.map((r) => ({ id: r.id, email: r.email, active: r.disabledAt === null }));
}

const RESOLVED = (id: number) => `Alert ${id} is resolved already.`;

/** Gives an open alert to an administrator (oneself or another). */
export async function assignAlert(db: Database, id: number, adminId: number, by: number, now: Date) {
  return await db.transaction(async (tx) => {
    const before = await alertById(tx, id);
    if (before.resolved_at) throw new Conflict(RESOLVED(id));
    const admin = (await alertAssignees(tx)).find((a) => a.id === adminId);
    if (!admin) throw new InvalidInput(NO_SUCH_ADMINISTRATOR, "admin_id");
    if (!admin.active) throw new InvalidInput(DISABLED_ASSIGNEE, "admin_id");
    await tx.update(consoleAlerts).set({ assignedTo: adminId }).where(eq(consoleAlerts.id, id));
    const after = await alertById(tx, id);
    await audit(tx, {
      actor: by,
      action: "alert.assign",
      before: { id, assigned_to: before.assigned_to },
      after: { id, assigned_to: after.assigned_to },
    }, now);
    return after;
  });
}

/**
 * Resolves an open alert with a note (what was done about it). An alert an administrator's own
 * action raised is for a second pair of eyes: they may not resolve it themselves.
 */
export async function resolveAlert(db: Database, id: number, note: string, by: number, now: Date) {
  return await db.transaction(async (tx) => {
    const [row] = await tx.select().from(consoleAlerts).where(eq(consoleAlerts.id, id));
    if (!row) throw new NotFound("There is no alert with this id.");
    if (row.resolvedAt) throw new Conflict(RESOLVED(id));
    if (row.createdBy === by) {
      throw new Conflict(RAISED_BY_YOU);
    }
    const done = await tx.update(consoleAlerts)
      .set({ resolvedAt: now, resolvedBy: by, resolutionNote: note })
      .where(and(eq(consoleAlerts.id, id), isNull(consoleAlerts.resolvedAt)))
      .returning({ id: consoleAlerts.id });
    if (done.length === 0) throw new Conflict(RESOLVED(id));
    const after = await alertById(tx, id);
    await audit(tx, {
      actor: by,
      action: "alert.resolve",
      before: { id, kind: row.kind, resolved_at: null },
      after: { id, kind: row.kind, resolved_at: after.resolved_at, resolution_note: note },
    }, now);
    return after;
  });
}
