/**
 * Checking rate alerts when rates change (decision 038). Whoever makes a rate table current (an
 * administrator's update, the ECB feed) queues a `ratealerts.check` job for that table IN THE SAME
 * TRANSACTION (`queueRateCheck`), so a committed rate change is always checked, after a crash too,
 * and the rate change itself stays one short write whatever the number of alerts.
 *
 * The job fires, in one transaction, every alert that is watching (not fired, not paused) and
 * whose pair's mid-market rate in THAT table is at or past its target: it records fired_at,
 * fired_rate and the table, and writes an in-app notification for its creator (the outbox emails
 * it, server/notifications/email-outbox.ts). The update is conditional on `fired_at IS NULL AND
 * paused = 0`, so an alert fires once however often a check runs; a fired alert is no longer
 * watched, so it does not fire again while the rate stays past its target (nor after).
 */
import { eq } from "drizzle-orm";
import { z } from "zod";
import { accountMembers } from "../../db/schema.ts";
import { rateTables } from "../../db/schema-money.ts";
import { rowsOf, run, type Tx } from "../../db/sql.ts";
import type { Database } from "../../db/client.ts";
import { defineJob } from "../jobs/define.ts";
import { enqueue } from "../jobs/queue.ts";
import type { RateTable } from "../money/rates.ts";
import { reached, watchedRate } from "./rate.ts";

/** The kind of the in-app notification (notifications.kind); its email is the "rate-alert-fired" template. */
export const RATE_ALERT_FIRED = "rate_alert_fired";
/** Where the notification leads. */
export const RATE_ALERTS_PAGE = "/account/ratealerts";

interface Watching {
  id: number;
  account_id: number;
  created_by: number;
  sell_currency: string;
  buy_currency: string;
  target_rate: string;
  direction: "above" | "below";
}

/** The words of an alert that fired, for the notification and its email. */
export function firedText(
  a: Pick<Watching, "sell_currency" | "buy_currency" | "target_rate" | "direction">,
  rate: string,
) {
  const pair = `1 ${a.sell_currency} = ${rate} ${a.buy_currency}`;
  return {
    title: `Rate alert: ${pair}`,
    body: `The mid-market rate reached ${pair}, ${a.direction === "above" ? "at or above" : "at or below"} ` +
      `your target of 1 ${a.sell_currency} = ${a.target_rate} ${a.buy_currency}. The alert will not fire again.`,
  };
}

/**
 * Fires the watching alerts that the rate table `tableId` puts at or past their targets, in `tx`.
 * Answers the ids fired. Safe to run again for the same table: fired alerts are not watched.
 */
export async function fireRateAlerts(tx: Tx, tableId: number, now: Date): Promise<number[]> {
  const [row] = await tx.select().from(rateTables).where(eq(rateTables.id, tableId));
  if (!row) return [];
  const table: RateTable = { base: row.base, as_of: row.asOf, source: row.source, rates: row.rates };
  const watching = await rowsOf<Watching>(
    tx,
    `SELECT id, account_id, created_by, sell_currency, buy_currency, target_rate, direction
     FROM rate_alerts WHERE fired_at IS NULL AND paused = 0 ORDER BY id`,
  );
  const rates = new Map<string, string | null>();
  const fired: number[] = [];
  for (const alert of watching) {
    const pair = `${alert.sell_currency}/${alert.buy_currency}`;
    if (!rates.has(pair)) rates.set(pair, watchedRate(table, alert.sell_currency, alert.buy_currency));
    const rate = rates.get(pair);
    if (!rate || !reached(rate, alert.target_rate, alert.direction)) continue;
    const changed = await run(
      tx,
      `UPDATE rate_alerts SET fired_at = ?, fired_rate = ?, fired_rate_table_id = ?
       WHERE id = ? AND fired_at IS NULL AND paused = 0`,
      [now.getTime(), rate, tableId, alert.id],
    );
    if (!changed) continue;
    fired.push(alert.id);
    // Its creator, while they are on the account; otherwise the account's owners.
    const members = await tx.select({ userId: accountMembers.userId, role: accountMembers.role }).from(accountMembers)
      .where(eq(accountMembers.accountId, alert.account_id));
    const told = members.some((m) => m.userId === alert.created_by)
      ? [alert.created_by]
      : members.filter((m) => m.role === "owner").map((m) => m.userId);
    const { title, body } = firedText(alert, rate);
    for (const userId of told) {
      await run(
        tx,
        `INSERT INTO notifications (user_id, account_id, kind, title, body, link, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        [userId, alert.account_id, RATE_ALERT_FIRED, title, body, RATE_ALERTS_PAGE, now.getTime()],
      );
    }
  }
  return fired;
}

export const rateAlertCheckJob = defineJob("ratealerts.check", {
  payload: z.object({ rateTableId: z.number().int().positive() }),
  run: async ({ rateTableId }, ctx) => {
    const fired = await ctx.step("fire", (tx) => fireRateAlerts(tx, rateTableId, ctx.now()));
    // The emails follow from the notifications, after this commit.
    if (fired.length) ctx.deps.services.emailOutbox.kick();
    return { fired: fired.length };
  },
});

/**
 * Queues the check of the rate table `tableId`: call it in the transaction that makes the table
 * current, so the check exists exactly when the change does. One job per table.
 */
export async function queueRateCheck(tx: Database | Tx, tableId: number, now: Date): Promise<void> {
  await enqueue(tx, rateAlertCheckJob, { rateTableId: tableId }, { uniqueKey: `ratealerts.check@${tableId}`, now });
}
