import { desc, gt, lte } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { type RateMove, rateTables } from "../../db/schema-money.ts";
import type { Tx } from "../../db/sql.ts";
import type { RateTableUpdate } from "../../lib/contracts/console-money.ts";
import { raiseAlert } from "../alerts/alerts.ts";
import { audit } from "../audit.ts";
import { queueRateCheck } from "../ratealerts/check.ts";
import { Conflict, InvalidInput } from "../errors.ts";
import { seedDefaultPlan } from "./plans.ts";
import { describeMove, largestMoves, RATE_MOVES_OVER_MS, rateProblems, utcDay } from "./rate-sanity.ts";
import { INDICATIVE_RATES, mergeRateTables, type RatesAnswer, ratesFor, type RateTable } from "./rates.ts";

/**
 * Where rates live: the database. The latest rate table is the current one; each table written is
 * a change recorded with its time, source and author. The embedded indicative rates and the
 * default pricing plan (./plans.ts) are written on first start.
 */

/**
 * Writes the embedded indicative rates and the default plan when the database has none. In one
 * write transaction, so that instances starting together on a fresh database seed it once, not
 * once each (decision 043).
 */
export async function seedMoney(db: Database, now = new Date()): Promise<void> {
  await db.transaction(async (tx) => {
    const [rates] = await tx.select({ id: rateTables.id }).from(rateTables).limit(1);
    if (!rates) await saveRates(tx, INDICATIVE_RATES, null, now);
    await seedDefaultPlan(tx, now);
  });
}

/** The current rate table: the latest written. */
export async function currentRates(db: Database | Tx): Promise<RateTable> {
  const [row] = await db.select().from(rateTables).orderBy(desc(rateTables.id)).limit(1);
  if (!row) return INDICATIVE_RATES;
  return { base: row.base, as_of: row.asOf, source: row.source, rates: row.rates };
}

/**
 * Every rate table in force at some time since `since`: the current one first, those recorded
 * since, and the one in force at `since` (the latest recorded by then).
 */
export async function ratesInForceSince(db: Database | Tx, since: Date): Promise<RateTable[]> {
  const current = await currentRates(db);
  const rows = [
    ...await db.select().from(rateTables).where(gt(rateTables.createdAt, since)),
    ...await db.select().from(rateTables).where(lte(rateTables.createdAt, since))
      .orderBy(desc(rateTables.createdAt), desc(rateTables.id)).limit(1),
  ];
  return [current, ...rows.map((row) => ({ base: row.base, as_of: row.asOf, source: row.source, rates: row.rates }))];
}

/** Records a table as the current one; `confirmed` names the large moves it makes and who confirmed them. */
export async function saveRates(
  db: Database | Tx,
  table: RateTable,
  by: number | null,
  now = new Date(),
  confirmed: { changes: RateMove[]; by: number } | null = null,
): Promise<number> {
  const [row] = await db.insert(rateTables).values({
    base: table.base,
    asOf: table.as_of,
    source: table.source,
    rates: table.rates,
    createdAt: now,
    createdBy: by,
    confirmedChanges: confirmed?.changes ?? null,
    confirmedBy: confirmed?.by ?? null,
  }).returning({ id: rateTables.id });
  return row.id;
}

/**
 * Makes an administrator's rates current, dated today unless the update says otherwise, with the
 * source "admin". An update of some rates keeps the others (crossed into the new table, as the
 * rate feed does), so no currency stops being quoted because it was not in the form. Answers the
 * new rates as GET rates does, against the update's base.
 *
 * A table dated after today, or with a rate that cannot be a price, is refused (422 naming the
 * field). A rate that moves by more than RATE_CONFIRM_SHARE (from the current table, or from any
 * table in force over the last day) must be confirmed by name in
 * `confirm_changes` (409 listing each unconfirmed move on its field otherwise); once confirmed,
 * the moves are recorded with the table and raised for a second administrator (rate-sanity.ts).
 */
export async function updateRates(db: Database, update: RateTableUpdate, by: number, now: Date): Promise<RatesAnswer> {
  const table = { base: update.base, as_of: update.as_of ?? utcDay(now), source: "admin", rates: update.rates };
  const [problem] = rateProblems(table, now);
  if (problem) throw new InvalidInput(problem.message, problem.field);
  const saved = await db.transaction(async (tx) => {
    // Read and written in one transaction: the moves are measured against the table they replace,
    // and against every table in force over the last day, so that steps add up (RATE_MOVES_OVER_MS).
    const inForce = await ratesInForceSince(tx, new Date(now.getTime() - RATE_MOVES_OVER_MS));
    const current = inForce[0];
    const moves = largestMoves(inForce, table);
    const confirmed = new Set<string>(update.confirm_changes);
    const unconfirmed = moves.filter((move) => !confirmed.has(move.currency));
    if (unconfirmed.length > 0) {
      const fields = Object.fromEntries(
        unconfirmed.map((move) => [`rates.${move.currency}`, `${describeMove(move)}: confirm this change.`]),
      );
      throw new Conflict(`${unconfirmed.map(describeMove).join("; ")}: confirm to apply.`, { fields });
    }
    const merged = mergeRateTables(current, table).table;
    const id = await saveRates(tx, merged, by, now, moves.length > 0 ? { changes: moves, by } : null);
    // The rate alerts are checked against this table, queued with it (decision 038).
    await queueRateCheck(tx, id, now);
    if (moves.length > 0) {
      await raiseAlert(tx, {
        kind: "rate_change",
        severity: "warning",
        subject: { rate_table_id: id, source: "admin", base: table.base, as_of: table.as_of, changes: moves },
        message: `An administrator confirmed large rate changes: ${
          moves.map(describeMove).join("; ")
        }. A second administrator should check them against the market.`,
        createdBy: by,
      }, now);
    }
    await audit(tx, {
      actor: by,
      action: "rates.update",
      before: { base: current.base, as_of: current.as_of, rates: current.rates },
      after: { base: merged.base, as_of: merged.as_of, rates: merged.rates, confirmed: moves },
    }, now);
    return merged;
  });
  return ratesFor(saved, table.base);
}
