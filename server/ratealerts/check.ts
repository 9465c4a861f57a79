/**
 * Checking rate alerts when rates change (decision 038). Whoever makes a rate table current (an
 * administrator's update, the ECB feed) queues a `ratealerts.check` job for that table IN THE SAME
 * TRANSACTION (`queueRateCheck`), so a committed rate change is always checked, after a crash too,
 * and the rate change itself stays one short write whatever the number of alerts.
 *
 * The job finds, with a read outside any write transaction, every alert that is watching (not
 * fired, not paused) and whose pair's mid-market rate in THAT table is at or past its target; then
 * it fires them in one transaction (a job step, so once): it records fired_at, fired_rate and the
 * table, and writes an in-app notification for its creator (the outbox emails it,
 * server/notifications/email-outbox.ts), both leading to the alerts page on the alert's account.
 * The update is conditional on `fired_at IS NULL AND paused = 0`, so an alert fires once however often a check runs; a fired alert is no longer
 * watched, so it does not fire again while the rate stays past its target (nor after).
 */
import { eq } from "drizzle-orm";
import { z } from "zod";
import { rateTables } from "../../db/schema-money.ts";
import type { InArgs } from "@libsql/client";
import type { Database } from "../../db/client.ts";
import { rowsOf, run, type Tx } from "../../db/sql.ts";
import { defineJob } from "../jobs/define.ts";
import { enqueue } from "../jobs/queue.ts";
import type { RateTable } from "../money/rates.ts";
import { reached, watchedRate } from "./rate.ts";

/** The kind of the in-app notification (notifications.kind); its email is the "rate-alert-fired" template. */
export const RATE_ALERT_FIRED = "rate_alert_fired";
/** The rate alerts page (routes/pages.tsx). */
export const RATE_ALERTS_PAGE = "/account/ratealerts";
/** The page URL's parameter naming the alert that fired (RATE_ALERTS_PAGE?alert=ID). */
export const FIRED_ALERT_PARAM = "alert";
/**
 * Where the notification of a fired alert leads: the alerts page, naming the alert, so that someone
 * who works on another of their accounts is switched to the alert's account (decision 060) instead
 * of seeing the alerts of the account they happen to work on.
 */
export const firedAlertLink = (alertId: number) => `${RATE_ALERTS_PAGE}?${FIRED_ALERT_PARAM}=${alertId}`;

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

/** The alerts a rate table reaches, grouped by the rate they fire at. */
export type Reached = [rate: string, ids: number[]][];

/**
 * The watching alerts (not fired, not paused) that the rate table `tableId` puts at or past their
 * targets. Only reads, so it runs outside the write transaction: the write lock is then held for
 * the alerts that fire, not for a scan of every alert. What changes meanwhile is caught by
 * fireReached's conditions (an alert paused or deleted since does not fire; one resumed since
 * waits for the next change).
 */
export async function findReached(db: Database | Tx, tableId: number): Promise<Reached> {
  const [row] = await db.select().from(rateTables).where(eq(rateTables.id, tableId));
  if (!row) return [];
  const table: RateTable = { base: row.base, as_of: row.asOf, source: row.source, rates: row.rates };
  const watching = await rowsOf<Pick<Watching, "id" | "sell_currency" | "buy_currency" | "target_rate" | "direction">>(
    db,
    `SELECT id, sell_currency, buy_currency, target_rate, direction FROM rate_alerts
     WHERE fired_at IS NULL AND paused = 0 ORDER BY id`,
  );
  const rates = new Map<string, string | null>();
  const byRate = new Map<string, number[]>();
  for (const alert of watching) {
    const pair = `${alert.sell_currency}/${alert.buy_currency}`;
    if (!rates.has(pair)) rates.set(pair, watchedRate(table, alert.sell_currency, alert.buy_currency));
    const rate = rates.get(pair);
    if (!rate || !reached(rate, alert.target_rate, alert.direction)) continue;
    const ids = byRate.get(rate);
    if (ids) ids.push(alert.id);
    else byRate.set(rate, [alert.id]);
  }
  return [...byRate];
}

/** At most this many alerts are fired per statement (SQLite's limit of bound values is far above). */
const CHUNK = 400;

/**
 * Fires the alerts `reached` names, in `tx`: each one still watching whose creator is still on the
 * account gets fired_at, fired_rate and the table, and its creator an in-app notification, written
 * with it. (Removing someone deletes their alerts on the account, decision 076; one left from
 * before that, whose creator is gone, watches for nobody and does not fire: nobody else set its
 * target, so telling the owners "your target" would be untrue.) Answers the ids fired. Safe to run again: fired alerts are not
 * watched, so the conditional update skips them.
 */
export async function fireReached(tx: Tx, tableId: number, reached: Reached, now: Date): Promise<number[]> {
  const fired: Watching[] = [];
  const firedRate = new Map<number, string>();
  for (const [rate, ids] of reached) {
    for (let i = 0; i < ids.length; i += CHUNK) {
      const chunk = ids.slice(i, i + CHUNK);
      const rows = await rowsOf<Watching>(
        tx,
        `UPDATE rate_alerts SET fired_at = ?, fired_rate = ?, fired_rate_table_id = ?
         WHERE id IN (${chunk.map(() => "?").join(", ")}) AND fired_at IS NULL AND paused = 0
           AND EXISTS (SELECT 1 FROM account_members m
             WHERE m.account_id = rate_alerts.account_id AND m.user_id = rate_alerts.created_by)
         RETURNING id, account_id, created_by, sell_currency, buy_currency, target_rate, direction`,
        [now.getTime(), rate, tableId, ...chunk],
      );
      for (const row of rows) firedRate.set(row.id, rate);
      fired.push(...rows);
    }
  }
  for (let i = 0; i < fired.length; i += CHUNK) {
    const chunk = fired.slice(i, i + CHUNK);
    const values: unknown[] = [];
    for (const alert of chunk) {
      const { title, body } = firedText(alert, firedRate.get(alert.id)!);
      values.push(
        alert.created_by,
        alert.account_id,
        RATE_ALERT_FIRED,
        title,
        body,
        firedAlertLink(alert.id),
        now.getTime(),
      );
    }
    if (!values.length) continue;
    await run(
      tx,
      `INSERT INTO notifications (user_id, account_id, kind, title, body, link, created_at) VALUES ${
        Array.from({ length: values.length / 7 }, () => "(?, ?, ?, ?, ?, ?, ?)").join(", ")
      }`,
      values as InArgs,
    );
  }
  return fired.map((a) => a.id).sort((a, b) => a - b);
}

/** Finds and fires what the rate table `tableId` reaches (the job does the same, its firing as a step). */
export async function fireRateAlerts(db: Database, tableId: number, now: Date): Promise<number[]> {
  const reached = await findReached(db, tableId);
  if (!reached.length) return [];
  return await db.transaction((tx) => fireReached(tx, tableId, reached, now));
}

export const rateAlertCheckJob = defineJob("ratealerts.check", {
  payload: z.object({ rateTableId: z.number().int().positive() }),
  run: async ({ rateTableId }, ctx) => {
    const reached = await findReached(ctx.db, rateTableId);
    if (!reached.length) return { fired: 0 };
    const fired = await ctx.step("fire", (tx) => fireReached(tx, rateTableId, reached, ctx.now()));
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
