import type { Database } from "../../db/client.ts";
import { rowsOf } from "../../db/sql.ts";
import { incomeEntries } from "../profit/report.ts";

/**
 * The daily income summary (`income_days`, decision 070), filled lazily by the reads that need it:
 * per customer account, UTC day and currency, the fees and markup of the movements that
 * server/profit/report.ts `incomeEntries` reads (the one reader of the house's income, which
 * prices each markup with `markupOf`), summed here in JavaScript.
 *
 * Only a day that is over is filled: the ledger is append-only and each entry is dated when it is
 * written, so a day that ended more than `CLOSED_AFTER` ago (a transaction that began before
 * midnight may commit after it) never gains income. A partner's assignment or share change is not
 * in the summary (the read looks them up), so a later change changes no filled row. Today and the
 * days that closed less than `CLOSED_AFTER` ago are read movement by movement.
 *
 * A day's rows and its mark in `income_days_filled` are written in one write transaction, and only
 * for a day not marked yet: a repeated fill, or two readers filling the same days at once, write
 * each day once (the second finds it marked and writes nothing).
 */

const DAY = 86_400_000;

/** How long after its midnight (UTC) a day is taken as over: longer than any write transaction. */
export const CLOSED_AFTER = 3_600_000;

/** The first day (days since 1970-01-01) that is not over at `now`: every day before it is. */
export const firstOpenDay = (now: number) => Math.floor((now - CLOSED_AFTER) / DAY);

const COLUMNS = ["day", "account_id", "currency", "fees", "markup", "entries", "first_at", "last_at", "irregular"];

interface DayRow {
  day: number;
  account_id: number;
  currency: string;
  fees: number;
  markup: number;
  entries: number;
  first_at: number | null;
  last_at: number | null;
  irregular: number;
}

/**
 * Fills the summary for the days of [startDay, endDay) that are over at `now` and not filled yet;
 * returns the first day of the range it does not cover (the range's end, or the first day not
 * over), from which the caller reads movement by movement.
 */
export async function fillIncomeDays(db: Database, startDay: number, endDay: number, now = Date.now()) {
  const closedEnd = Math.max(startDay, Math.min(endDay, firstOpenDay(now)));
  if (closedEnd <= startDay) return startDay;
  const filled = new Set(
    (await rowsOf<{ day: number }>(db, "SELECT day FROM income_days_filled WHERE day >= ? AND day < ?", [
      startDay,
      closedEnd,
    ])).map((r) => r.day),
  );
  const missing: number[] = [];
  for (let day = startDay; day < closedEnd; day++) if (!filled.has(day)) missing.push(day);
  if (!missing.length) return closedEnd;

  const from = missing[0], to = missing[missing.length - 1] + 1;
  const { fees, markups } = await incomeEntries(db, from * DAY, to * DAY);
  const wanted = new Set(missing);
  const rows = new Map<string, DayRow>();
  for (const [field, entries] of [["fees", fees], ["markup", markups]] as const) {
    for (const e of entries) {
      const day = Math.floor(e.at / DAY);
      if (!wanted.has(day)) continue;
      const key = `${day}:${e.account_id ?? 0}:${e.currency}`;
      const row = rows.get(key) ?? {
        day,
        account_id: e.account_id ?? 0,
        currency: e.currency,
        fees: 0,
        markup: 0,
        entries: 0,
        first_at: null,
        last_at: null,
        irregular: 0,
      };
      rows.set(key, row);
      // A refund counts for its payout's time (decision 065), not its own: it is not summed, and its
      // account's day is read movement by movement.
      if (e.attributed_at !== e.at) {
        row.irregular++;
        continue;
      }
      row[field] += e.amount;
      row.entries++;
      row.first_at = row.first_at === null ? e.at : Math.min(row.first_at, e.at);
      row.last_at = row.last_at === null ? e.at : Math.max(row.last_at, e.at);
    }
  }

  // One write transaction: the rows of the days not marked yet, then their marks.
  await db.$client.batch([
    {
      sql: `INSERT INTO income_days (${COLUMNS.join(", ")})
        SELECT ${COLUMNS.map((c) => `json_extract(r.value, '$.${c}')`).join(", ")}
        FROM json_each(?) r
        WHERE NOT EXISTS (SELECT 1 FROM income_days_filled f WHERE f.day = json_extract(r.value, '$.day'))
        ON CONFLICT DO NOTHING`,
      args: [JSON.stringify([...rows.values()])],
    },
    {
      sql: "INSERT INTO income_days_filled (day) SELECT value FROM json_each(?) WHERE true ON CONFLICT DO NOTHING",
      args: [JSON.stringify(missing)],
    },
  ], "write");
  return closedEnd;
}
