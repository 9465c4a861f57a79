import type { Database } from "../../db/client.ts";
import { rowsOf } from "../../db/sql.ts";
import { incomeEntries, type IncomeEntry, type MovementsOf } from "../profit/report.ts";
import { partnerHistories } from "./assignments.ts";
import { fillIncomeDays } from "./income-days.ts";

/**
 * The one place that says whose a period's income was (decisions 051, 055, 062, 065, 070): the
 * house's fee and markup income of the period (`incomeEntries`' figures), each part given to the
 * partner whose customer the account's first owner was at the income's attributed time, at that
 * partner's share then. The partners' commissions (referrals.ts) and the profit report by partner
 * (server/profit/report.ts) both read it, so they agree to the minor unit.
 *
 * Read from the daily summary (`income_days`, income-days.ts), filled for the days of the period
 * that are over when first read; the days that are not yet are read movement by movement. An
 * account's income of a summed day is
 * one part, at the partner and share of its first income, when neither can change between its first
 * and its last income of the day. Read movement by movement instead, for an account and day: when
 * the account's owner changed partner between those two times, when their partner's share changed
 * between them, or when the summary holds a movement it
 * cannot sum (a refund, which counts for its payout's time). Sums of parts are sums of movements, so every figure is what reading every movement
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
  };
}

/** One movement's income at the partner of its attributed time and, with `shares`, their share then. */
function movementPart(
  field: "fees" | "markup",
  e: IncomeEntry,
  partners: Awaited<ReturnType<typeof partnerHistories>>,
  shares: Awaited<ReturnType<typeof shareHistories>> | null,
): AttributedIncome {
  const partnerId = partners.at(e.account_id, e.attributed_at);
  return {
    at: e.at,
    currency: e.currency,
    fees: field === "fees" ? e.amount : 0,
    markup: field === "markup" ? e.amount : 0,
    partner_id: partnerId,
    share_bps: shares && partnerId !== null ? shares.at(partnerId, e.attributed_at) : null,
  };
}

/** Where a period of the profit report starts, as a day number, from a day number (periodOf's rule). */
const PERIOD_DAY = {
  day: "d.day",
  // 1970-01-01 was a Thursday: (day + 3) % 7 is the days since Monday.
  week: "d.day - (d.day + 3) % 7",
  month: "CAST(julianday(date(d.day * 86400, 'unixepoch', 'start of month')) - 2440587.5 AS INTEGER)",
} as const;

/** A partner's share at time `at` in SQL, as `shareHistories().at` says it. */
const shareAt = (partner: string, at: string) =>
  `coalesce(
    (SELECT s.share_bps FROM partner_shares s WHERE s.partner_id = ${partner} AND s.starts_at <= ${at}
      ORDER BY s.starts_at DESC, s.id DESC LIMIT 1),
    (SELECT s.share_bps FROM partner_shares s WHERE s.partner_id = ${partner} ORDER BY s.starts_at, s.id LIMIT 1),
    (SELECT p.share_bps FROM partners p WHERE p.id = ${partner}))`;

/**
 * The income of [start, end) with the partner it counts for and, with `shares`, that partner's
 * share; with `period`, the income read from the summary is summed per period of the profit report
 * (`at` is the period's first day), else over the whole of [start, end) (`at` is `start`). `start`
 * and `end` are midnights (UTC), as every period of the figures is whole days.
 *
 * The database sums the summary's days by partner, share, currency (and period): each account's
 * day looks up its first owner and their partner at its first income, and whether it changes by its
 * last (on partner_assignments_user), so what leaves the database is a row per group and the few
 * account days read movement by movement.
 */
export async function attributedIncome(
  db: Database,
  start: number,
  end: number,
  { shares: withShares, period }: { shares: boolean; period?: keyof typeof PERIOD_DAY },
): Promise<AttributedIncome[]> {
  if (start % DAY || end % DAY) throw new Error("Attributed income is read for whole days (UTC).");
  const periodDay = period ? PERIOD_DAY[period] : String(start / DAY);
  // The days of the period that are over are summed (filled now if they are not yet); from
  // `openDay` on, every movement is read.
  const openDay = await fillIncomeDays(db, start / DAY, end / DAY);
  const rows = await rowsOf<{
    kind: "sum" | "movements";
    day: number;
    currency: string | null;
    partner_id: number | null;
    share_bps: number | null;
    fees: number;
    markup: number;
    account_id: number;
  }>(
    db,
    `WITH o AS MATERIALIZED (
       SELECT d.day, d.account_id, d.currency, d.fees, d.markup, d.entries, d.first_at, d.last_at, d.irregular,
         (SELECT m.user_id FROM account_members m INDEXED BY account_members_first_owner
           WHERE m.account_id = d.account_id AND m.role = 'owner' ORDER BY m.created_at, m.user_id LIMIT 1) AS owner
       FROM income_days d WHERE d.day >= ? AND d.day < ?),
     -- Each row's partner at its first income, and whether it changes after it and by its last.
     p AS MATERIALIZED (SELECT o.*,
         (SELECT pa.partner_id FROM partner_assignments pa INDEXED BY partner_assignments_user
           WHERE pa.user_id = o.owner AND pa.starts_at <= o.first_at ORDER BY pa.starts_at DESC, pa.id DESC LIMIT 1)
           AS partner_id,
         o.irregular > 0 OR EXISTS (SELECT 1 FROM partner_assignments pa INDEXED BY partner_assignments_user
           WHERE pa.user_id = o.owner AND pa.starts_at > o.first_at AND pa.starts_at <= o.last_at) AS moved
       FROM o),
     -- And the partner's share then, and whether it changes after it and by the last.
     s AS MATERIALIZED (SELECT p.*,
         ${
      withShares ? `CASE WHEN p.partner_id IS NOT NULL THEN ${shareAt("p.partner_id", "p.first_at")} END` : "NULL"
    } AS share_bps,
         p.moved ${
      withShares
        ? `OR EXISTS (SELECT 1 FROM partner_shares ps WHERE ps.partner_id = p.partner_id
             AND ps.starts_at > p.first_at AND ps.starts_at <= p.last_at)`
        : ""
    } AS by_movement
       FROM p)
     SELECT 'sum' AS kind, ${periodDay} AS day, d.currency, d.partner_id, d.share_bps,
         sum(d.fees) AS fees, sum(d.markup) AS markup, NULL AS account_id
       FROM s d WHERE NOT d.by_movement AND d.entries > 0
      GROUP BY 2, d.currency, d.partner_id, d.share_bps
     UNION ALL
     SELECT 'movements', day, currency, NULL, NULL, 0, 0, account_id FROM s WHERE by_movement`,
    [start / DAY, openDay],
  );

  // A sum stands for at least one movement (rows with none are left out), as the figures count rows.
  const parts: AttributedIncome[] = rows.filter((r) => r.kind === "sum").map((r) => ({
    at: r.day * DAY,
    currency: r.currency!,
    fees: r.fees,
    markup: r.markup,
    partner_id: r.partner_id,
    share_bps: r.share_bps,
  }));
  // The rows read movement by movement, "account:day:currency" (a movement's income is in one
  // currency, the one it is summed in); their movements are read by account and day.
  const byMovement = new Set(
    rows.filter((r) => r.kind === "movements").map((r) => `${r.account_id}:${r.day}:${r.currency}`),
  );
  if (byMovement.size) {
    const pairs = [...new Set([...byMovement].map((key) => key.split(":").slice(0, 2).join(":")))]
      .map((key) => key.split(":").map(Number) as [number, number]);
    const partners = await partnerHistories(db, pairs.map(([a]) => a || null));
    const shares = withShares ? await shareHistories(db) : null;
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
          if (!byMovement.has(`${e.account_id ?? 0}:${Math.floor(e.at / DAY)}:${e.currency}`)) continue;
          parts.push(movementPart(field, e, partners, shares));
        }
      }
    }
  }
  if (openDay * DAY < end) {
    // The days not over yet: every movement, each at the partner and share of its time.
    const { fees, markups } = await incomeEntries(db, openDay * DAY, end);
    const partners = await partnerHistories(db, [...fees, ...markups].map((e) => e.account_id));
    const shares = withShares ? await shareHistories(db) : null;
    for (const [field, entries] of [["fees", fees], ["markup", markups]] as const) {
      for (const e of entries) {
        parts.push(movementPart(field, e, partners, shares));
      }
    }
  }
  return parts;
}
