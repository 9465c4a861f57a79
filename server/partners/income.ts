import type { Database } from "../../db/client.ts";
import { rowsOf } from "../../db/sql.ts";
import { incomeEntries, type MovementsOf } from "../profit/report.ts";
import { partnerHistories } from "./assignments.ts";

/**
 * The one place that says whose a period's income was (decisions 051, 055, 062, 065, 070): the
 * house's fee and markup income of the period (`incomeEntries`' figures), each part given to the
 * partner whose customer the account's first owner was at the income's attributed time, at that
 * partner's share then. The partners' commissions (referrals.ts) and the profit report by partner
 * (server/profit/report.ts) both read it, so they agree to the minor unit.
 *
 * Read from the daily summary (`income_days`, db/income-days.ts): an account's income of a day is
 * one part, at the partner and share of its first income, when neither can change between its first
 * and its last income of the day. Read movement by movement instead, for an account and day: when
 * the account's owner changed partner between those two times, when their partner's share changed
 * between them, or when the summary holds a movement it
 * cannot sum (a refund, which counts for its payout's time; a markup beyond exact 64-bit
 * arithmetic). Sums of parts are sums of movements, so every figure is what reading every movement
 * gives.
 */

const DAY = 86_400_000;

/** Fee and markup income (minor units, signed) in one currency, given to one partner. */
export interface AttributedIncome {
  /** Ledger time that puts it in a period: the movement's, or the start of the day it sums. */
  at: number;
  currency: string;
  fees: number;
  markup: number;
  /** The partner it counts for; null: nobody's. */
  partner_id: number | null;
  /** That partner's share then, in basis points, when asked for (`shares`); null otherwise or nobody's. */
  share_bps: number | null;
}

/**
 * A partner's share over time (decision 055): the last in their history that started by then (the
 * first one for a movement before it), or their current share when they have no history (a partner
 * from before it whose share never changed since).
 */
async function shareHistories(db: Database) {
  const [rows, partners] = await Promise.all([
    rowsOf<{ partner_id: number; share_bps: number; starts_at: number }>(
      db,
      "SELECT partner_id, share_bps, starts_at FROM partner_shares ORDER BY partner_id, starts_at, id",
    ),
    rowsOf<{ id: number; share_bps: number }>(db, "SELECT id, share_bps FROM partners"),
  ]);
  const current = new Map(partners.map((p) => [p.id, p.share_bps]));
  const history = new Map<number, { share_bps: number; starts_at: number }[]>();
  for (const r of rows) {
    history.set(r.partner_id, [...(history.get(r.partner_id) ?? []), { ...r, starts_at: Number(r.starts_at) }]);
  }
  return {
    at(partnerId: number, at: number): number {
      const shares = history.get(partnerId);
      if (!shares?.length) return current.get(partnerId)!;
      let share = shares[0].share_bps;
      for (const s of shares) if (s.starts_at <= at) share = s.share_bps;
      return share;
    },
    /** Whether the share in force can differ between two times of [from, to]. */
    changesWithin(partnerId: number, from: number, to: number): boolean {
      return (history.get(partnerId) ?? []).some((s) => s.starts_at > from && s.starts_at <= to);
    },
  };
}

/**
 * The income of [start, end) with the partner it counts for and, with `shares`, that partner's share.
 * `start` and `end` are midnights (UTC), as every period of the figures is whole days.
 */
export async function attributedIncome(
  db: Database,
  start: number,
  end: number,
  { shares: withShares }: { shares: boolean },
): Promise<AttributedIncome[]> {
  if (start % DAY || end % DAY) throw new Error("Attributed income is read for whole days (UTC).");
  const days = await rowsOf<{
    day: number;
    account_id: number;
    currency: string;
    fees: number;
    markup: number;
    entries: number;
    first_at: number | null;
    last_at: number | null;
    irregular: number;
  }>(
    db,
    `SELECT day, account_id, currency, fees, markup, entries, first_at, last_at, irregular FROM income_days
      WHERE day >= ? AND day < ?`,
    [start / DAY, end / DAY],
  );
  const partners = await partnerHistories(db, days.map((d) => d.account_id || null));
  const shares = withShares ? await shareHistories(db) : null;
  const part = (at: number, attributedAt: number, accountId: number | null, currency: string) => {
    const partnerId = partners.at(accountId, attributedAt);
    return {
      at,
      currency,
      fees: 0,
      markup: 0,
      partner_id: partnerId,
      share_bps: shares && partnerId !== null ? shares.at(partnerId, attributedAt) : null,
    };
  };

  // Each account's day: the times of its first and last income, whether it is read movement by
  // movement. Its partner and share are those of its first income when neither changes after it
  // and by its last: a change before the first or after the last changes nothing in between.
  const accountDays = new Map<string, { first: number; last: number; byMovement: boolean }>();
  for (const d of days) {
    const key = `${d.account_id}:${d.day}`;
    const found = accountDays.get(key) ?? { first: Infinity, last: -Infinity, byMovement: false };
    if (d.first_at !== null) found.first = Math.min(found.first, Number(d.first_at));
    if (d.last_at !== null) found.last = Math.max(found.last, Number(d.last_at));
    if (d.irregular > 0) found.byMovement = true;
    accountDays.set(key, found);
  }
  const byMovement = new Set<string>();
  for (const [key, d] of accountDays) {
    const accountId = Number(key.split(":")[0]) || null;
    let moving = d.byMovement || (d.first <= d.last && partners.changesWithin(accountId, d.first, d.last));
    if (!moving && shares && d.first <= d.last) {
      const partnerId = partners.at(accountId, d.first);
      moving = partnerId !== null && shares.changesWithin(partnerId, d.first, d.last);
    }
    if (moving) byMovement.add(key);
  }

  const parts: AttributedIncome[] = [];
  for (const d of days) {
    const key = `${d.account_id}:${d.day}`;
    // A day's sum counts as the figures count movements: a part only where there were some.
    if (byMovement.has(key) || !d.entries) continue;
    const p = part(d.day * DAY, accountDays.get(key)!.first, d.account_id || null, d.currency);
    p.fees = d.fees;
    p.markup = d.markup;
    parts.push(p);
  }
  if (byMovement.size) {
    const pairs = [...byMovement].map((key) => key.split(":").map(Number) as [number, number]);
    // Customer accounts from their own entries; the house's own income (account 0) by its whole day.
    const only: MovementsOf = pairs.filter(([a]) => a).map(([a, day]) => [a, day * DAY, (day + 1) * DAY]);
    const houseDays = pairs.filter(([a]) => !a).map(([, day]) => day);
    const read = [
      // Customers' movements: only those of the accounts and days asked for.
      ...(only.length ? [{ house: false, entries: await incomeEntries(db, start, end, only) }] : []),
      // The house's own (no customer account) of a whole day.
      ...await Promise.all(
        houseDays.map(async (day) => ({ house: true, entries: await incomeEntries(db, day * DAY, (day + 1) * DAY) })),
      ),
    ];
    for (const { house, entries: { fees, markups } } of read) {
      for (const [field, entries] of [["fees", fees], ["markup", markups]] as const) {
        for (const e of entries) {
          if (house !== (e.account_id === null)) continue;
          if (!byMovement.has(`${e.account_id ?? 0}:${Math.floor(e.at / DAY)}`)) continue;
          const p = part(e.at, e.attributed_at, e.account_id, e.currency);
          p[field] = e.amount;
          parts.push(p);
        }
      }
    }
  }
  return parts;
}
