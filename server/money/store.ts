import { desc } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { rateTables } from "../../db/schema-money.ts";
import type { RateTableUpdate } from "../../lib/contracts/console-money.ts";
import { seedDefaultPlan } from "./plans.ts";
import { INDICATIVE_RATES, mergeRateTables, type RatesAnswer, ratesFor, type RateTable } from "./rates.ts";

/**
 * Where rates live: the database. The latest rate table is the current one; each table written is
 * a change recorded with its time, source and author. The embedded indicative rates and the
 * default pricing plan (./plans.ts) are written on first start.
 */

/** Writes the embedded indicative rates and the default plan when the database has none. */
export async function seedMoney(db: Database, now = new Date()): Promise<void> {
  const [rates] = await db.select({ id: rateTables.id }).from(rateTables).limit(1);
  if (!rates) await saveRates(db, INDICATIVE_RATES, null, now);
  await seedDefaultPlan(db, now);
}

/** The current rate table: the latest written. */
export async function currentRates(db: Database): Promise<RateTable> {
  const [row] = await db.select().from(rateTables).orderBy(desc(rateTables.id)).limit(1);
  if (!row) return INDICATIVE_RATES;
  return { base: row.base, as_of: row.asOf, source: row.source, rates: row.rates };
}

export async function saveRates(db: Database, table: RateTable, by: number | null, now = new Date()): Promise<void> {
  await db.insert(rateTables).values({
    base: table.base,
    asOf: table.as_of,
    source: table.source,
    rates: table.rates,
    createdAt: now,
    createdBy: by,
  });
}

/**
 * Makes an administrator's rates current, dated today unless the update says otherwise, with the
 * source "admin". An update of some rates keeps the others (crossed into the new table, as the
 * rate feed does), so no currency stops being quoted because it was not in the form. Answers the
 * new rates as GET rates does, against the update's base.
 */
export async function updateRates(db: Database, update: RateTableUpdate, by: number, now: Date): Promise<RatesAnswer> {
  const table = { ...update, as_of: update.as_of ?? now.toISOString().slice(0, 10), source: "admin" };
  const merged = mergeRateTables(await currentRates(db), table).table;
  await saveRates(db, merged, by, now);
  return ratesFor(merged, table.base);
}
