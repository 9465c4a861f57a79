import { and, eq, isNull, ne, or, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { consoleAlerts } from "../../db/schema-console.ts";
import type { Tx } from "../../db/sql.ts";
import type { AlertKind, AlertSeverity } from "../../lib/alerts.ts";

/**
 * Raising alerts for the console (db/schema-console.ts, lib/alerts.ts). A service raises one in
 * the same transaction as what it is about, so an alert never exists without its cause, nor the
 * cause without its alert.
 */

export interface NewAlert {
  kind: AlertKind;
  severity: AlertSeverity;
  /** What it is about (ids, values), as the alerts screen will show and link it. */
  subject: Record<string, unknown>;
  message: string;
  /** The administrator whose action raised it; none when the portal raised it by itself. */
  createdBy?: number | null;
  assignedTo?: number | null;
  /**
   * What makes it the same alert ("large_payment:42"): raising it again, open or resolved, does
   * nothing (a unique index, so that two processes cannot both raise it).
   */
  dedupeKey?: string;
}

/** Records an alert; answers its id, or null when one with the same `dedupeKey` exists already. */
export async function raiseAlert(db: Database | Tx, alert: NewAlert, now: Date): Promise<number | null> {
  const [row] = await db.insert(consoleAlerts).values({
    kind: alert.kind,
    severity: alert.severity,
    subject: alert.subject,
    message: alert.message,
    createdAt: now,
    createdBy: alert.createdBy ?? null,
    assignedTo: alert.assignedTo ?? null,
    dedupeKey: alert.dedupeKey ?? null,
  }).onConflictDoNothing().returning({ id: consoleAlerts.id });
  return row?.id ?? null;
}

/**
 * Whether an unresolved alert of `kind` has a subject with these values (top-level keys), so that
 * something seen again (the rate feed every 6 hours) is raised once, not each time.
 */
export async function isRaised(db: Database | Tx, kind: AlertKind, subject: Record<string, string>): Promise<boolean> {
  const matches = Object.entries(subject).map(([key, value]) =>
    sql`json_extract(${consoleAlerts.subject}, ${`$.${key}`}) = ${value}`
  );
  const [row] = await db.select({ id: consoleAlerts.id }).from(consoleAlerts)
    .where(
      sql.join(
        [sql`${consoleAlerts.kind} = ${kind}`, sql`${consoleAlerts.resolvedAt} IS NULL`, ...matches],
        sql` AND `,
      ),
    )
    .limit(1);
  return row !== undefined;
}

/**
 * Closes the open alert with this dedupe key because its cause cleared (decision 057), in the
 * transaction of what cleared it, with a note that says so ("Closed by itself: ..."). It is
 * resolved by the administrator whose action cleared it (`by`): every resolution names a person
 * (the console_alerts_resolution check), and that person is who made the cause go away. Nothing
 * when there is none open, nor when `by` raised it: an alert of someone's own action is for a
 * second pair of eyes (resolveAlert refuses them too), so what they did next stays for another
 * administrator to see (a receipt its recorder declined after holding it). Answers whether one closed.
 */
export async function closeAlert(
  db: Database | Tx,
  dedupeKey: string,
  note: string,
  by: number,
  now: Date,
): Promise<boolean> {
  const closed = await db.update(consoleAlerts)
    .set({ resolvedAt: now, resolvedBy: by, resolutionNote: note })
    .where(and(
      eq(consoleAlerts.dedupeKey, dedupeKey),
      isNull(consoleAlerts.resolvedAt),
      or(isNull(consoleAlerts.createdBy), ne(consoleAlerts.createdBy, by)),
    ))
    .returning({ id: consoleAlerts.id });
  return closed.length > 0;
}
