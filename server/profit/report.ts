/**
 * The profit report (issue 11, item 7; docs/decisions/047): the house's FX markup and fee income
 * by period, currency and partner, read from the ledger so that it reconciles with the house
 * accounts.
 *
 * - **Fees** are the entries of the house's `fee_income` accounts (conversions, payments sent,
 *   refunds of payments, corrections): the fees of a period in a currency are exactly how much
 *   `fee_income` in that currency changed over the period.
 * - **Markup** is read from the `fx_position` entries of the movements that convert (`conversion`,
 *   `payment_payout`, and `payment_refund`, which gives it back): the house took `converted` of the
 *   currency sold into its position and gave `bought` of the other, and at the mid rate of the
 *   quote `bought` was worth bought ÷ mid; the rest is markup, in the currency sold, as every
 *   other screen counts it (`markupOf`). So fx_position(sold) grew by markup + bought ÷ mid.
 *   Corrections of the FX position are not trading income and are left out.
 * - A movement belongs to the period (UTC) of its ledger transfer's time.
 * - **Partner**: each movement is the customer account's, and it is the partner's whose customer the
 *   account's owner was at the movement's time (their partner history, decision 062), so moving a
 *   customer changes no earlier period; a payment's refund is the partner's of the payout it
 *   reverses (decision 065); movements of nobody's customers are under "No partner". The report
 *   by partner and the partners' commissions (server/partners/referrals.ts) both read
 *   `attributedIncome` (server/partners/income.ts), which sums the daily income summary
 *   (decision 070) and reads with `incomeEntries` only the days it cannot sum.
 */
import { DATES_REVERSED } from "../../lib/periods.ts";
import type { Database } from "../../db/client.ts";
import { rowsOf } from "../../db/sql.ts";
import { formatMinor } from "../../lib/money/amounts.ts";
import type { CurrencyCode } from "../../lib/money/currencies.ts";
import { markupOf } from "../money/quote.ts";
import { attributedIncome } from "../partners/income.ts";

export const PROFIT_GROUPS = ["day", "week", "month"] as const;
export type ProfitGroup = (typeof PROFIT_GROUPS)[number];
export const PROFIT_BY = ["currency", "partner"] as const;
export type ProfitBy = (typeof PROFIT_BY)[number];

/** The name the report gives accounts no partner introduced. */
export const NO_PARTNER = "No partner";

export interface ProfitQuery {
  /** First day included, YYYY-MM-DD (UTC). */
  from: string;
  /** Last day included, YYYY-MM-DD (UTC). */
  to: string;
  group: ProfitGroup;
  by: ProfitBy;
}

export interface ProfitRow {
  /** The first day of the period, YYYY-MM-DD (a week starts on Monday). */
  period: string;
  currency: string;
  /** The partner's name, "No partner"; null when the report is by currency only. */
  partner: string | null;
  markup: string;
  fees: string;
  total: string;
}

/** Minor units per (period, currency, partner), before they are written as decimals. */
export interface ProfitFigures {
  period: string;
  currency: string;
  partner: string | null;
  markup: number;
  fees: number;
}

const DAY = 86_400_000;

/** The [start, end) of the query's days in epoch milliseconds. */
export function periodBounds(q: Pick<ProfitQuery, "from" | "to">): { start: number; end: number } {
  return { start: Date.parse(`${q.from}T00:00:00Z`), end: Date.parse(`${q.to}T00:00:00Z`) + DAY };
}

/** The first day of the period `at` falls in: the day, its week's Monday, or its month's 1st. */
export function periodOf(at: number, group: ProfitGroup): string {
  const day = new Date(at);
  if (group === "month") return day.toISOString().slice(0, 8) + "01";
  if (group === "week") {
    const sinceMonday = (day.getUTCDay() + 6) % 7;
    return new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() - sinceMonday))
      .toISOString().slice(0, 10);
  }
  return day.toISOString().slice(0, 10);
}

/** Every period from `from` to `to`, in order (the charts draw the empty ones as zero). */
export function periodsBetween(q: Pick<ProfitQuery, "from" | "to" | "group">): string[] {
  const { start, end } = periodBounds(q);
  const out: string[] = [];
  for (let at = start; at < end; at += DAY) {
    const p = periodOf(at, q.group);
    if (out[out.length - 1] !== p) out.push(p);
  }
  return out;
}

interface FeeEntry {
  at: number;
  /** The time whose partner and share it counts for (see `incomeEntries`). */
  attributed_at: number;
  currency: string;
  amount: number;
  account_id: number | null;
}

/** A movement's income: see `incomeEntries`. */
export type IncomeEntry = FeeEntry;

/**
 * Some accounts' movements on some days: [account id, from, to) in epoch milliseconds, for
 * `incomeEntries` to read only the movements whose customer entries are on those accounts then.
 */
export type MovementsOf = [accountId: number, from: number, to: number][];

interface PositionEntry {
  transfer_id: number;
  kind: string;
  at: number;
  attributed_at: number;
  currency: string;
  amount: number;
  account_id: number | null;
  sell_currency: string | null;
  buy_currency: string | null;
  mid_rate: string | null;
}

/**
 * The ledger's fee and markup income in [start, end), a figure per movement (minor units, signed),
 * each with the customer account it was earned on (null for a correction). The one query of the
 * house's income: the profit report and the partners' commissions both read it.
 *
 * Each entry has two times: `at`, its ledger time, which puts it in a period (decision 047), and
 * `attributed_at`, the time whose partner and share it counts for (decision 065). They are the
 * same but for a payment's refund, which reverses its payout (decision 027): it counts for the
 * partner, at the share, of the payout it takes back, even if the customer has moved since, so the
 * partner who earned commission on the payout is the one who loses it.
 */
export async function incomeEntries(db: Database, start: number, end: number, only?: MovementsOf) {
  // Which customer account a movement was for: its first customer entry (none for a correction).
  const customerOf = `(SELECT ca.account_id FROM ledger_entries ce
      JOIN ledger_accounts ca ON ca.id = ce.ledger_account_id AND ca.kind = 'customer'
      WHERE ce.transfer_id = e.transfer_id ORDER BY ce.id LIMIT 1)`;
  // A refund's payout: the same payment's reference, step payout (ledger_transfers_reference).
  const attributedAt = `CASE WHEN t.kind = 'payment_refund'
      THEN COALESCE((SELECT po.created_at FROM ledger_transfers po
             WHERE po.kind = 'payment_payout' AND po.reference = substr(t.reference, 1, length(t.reference) - 6) || 'payout'),
           e.created_at)
      ELSE e.created_at END`;
  // The house's entries of the period; or only those of the movements of some accounts on some
  // days, found from the customers' side (ledger_entries_account_time), never the whole period.
  const source = (purpose: string) =>
    only
      ? {
        // CROSS JOIN keeps the order written: from the accounts asked for, never a scan of all.
        from: `(SELECT DISTINCT ce.transfer_id FROM json_each(?) j
             CROSS JOIN ledger_accounts ca ON ca.kind = 'customer' AND ca.account_id = json_extract(j.value, '$[0]')
             CROSS JOIN ledger_entries ce ON ce.ledger_account_id = ca.id
              AND ce.created_at >= json_extract(j.value, '$[1]') AND ce.created_at < json_extract(j.value, '$[2]')) x
           CROSS JOIN ledger_entries e INDEXED BY ledger_entries_transfer ON e.transfer_id = x.transfer_id
           CROSS JOIN ledger_accounts a ON a.id = e.ledger_account_id`,
        where: `a.kind = 'house' AND a.purpose = '${purpose}' AND e.created_at >= ? AND e.created_at < ?`,
        args: [JSON.stringify(only), start, end],
      }
      : {
        from: "ledger_accounts a JOIN ledger_entries e ON e.ledger_account_id = a.id",
        where: `a.kind = 'house' AND a.purpose = '${purpose}' AND e.created_at >= ? AND e.created_at < ?`,
        args: [start, end],
      };
  const feeSource = source("fee_income");
  const fees = await rowsOf<FeeEntry>(
    db,
    `SELECT e.created_at AS at, ${attributedAt} AS attributed_at, a.currency, e.amount, ${customerOf} AS account_id
       FROM ${feeSource.from}
       JOIN ledger_transfers t ON t.id = e.transfer_id
      WHERE ${feeSource.where}`,
    feeSource.args,
  );
  // A payment's payout and refund carry the reference payment:<id>:payout|refund (decision 027).
  const positionSource = source("fx_position");
  const positions = await rowsOf<PositionEntry>(
    db,
    `SELECT e.transfer_id, t.kind, e.created_at AS at, ${attributedAt} AS attributed_at, a.currency, e.amount, ${customerOf} AS account_id,
            COALESCE(c.sell_currency, p.sell_currency) AS sell_currency,
            COALESCE(c.buy_currency, p.buy_currency) AS buy_currency,
            COALESCE(q.mid_rate, p.mid_rate) AS mid_rate
       FROM ${positionSource.from}
       JOIN ledger_transfers t ON t.id = e.transfer_id
       LEFT JOIN conversions c ON t.kind = 'conversion' AND c.transfer_id = t.id
       LEFT JOIN quotes q ON q.id = c.quote_id
       LEFT JOIN payments p ON t.kind IN ('payment_payout', 'payment_refund')
            AND p.id = CAST(substr(t.reference, 9, instr(substr(t.reference, 9), ':') - 1) AS INTEGER)
      WHERE ${positionSource.where}
        AND t.kind IN ('conversion', 'payment_payout', 'payment_refund')
      ORDER BY e.transfer_id`,
    positionSource.args,
  );
  const markups: IncomeEntry[] = [];
  const byTransfer = new Map<number, PositionEntry[]>();
  for (const row of positions) byTransfer.set(row.transfer_id, [...(byTransfer.get(row.transfer_id) ?? []), row]);
  for (const legs of byTransfer.values()) {
    const first = legs[0];
    const sold = legs.find((l) => l.currency === first.sell_currency);
    const bought = legs.find((l) => l.currency === first.buy_currency);
    if (!first.mid_rate || !sold || !bought) {
      throw new Error(`Profit report: transfer ${first.transfer_id} has no conversion or payment to price it.`);
    }
    // A payout takes the sold currency in (positive); a refund gives it back (negative).
    const sign = sold.amount > 0 ? 1 : -1;
    const markup = markupOf(
      Math.abs(sold.amount),
      Math.abs(bought.amount),
      first.mid_rate,
      first.sell_currency!,
      first.buy_currency!,
    );
    if (markup !== 0) {
      markups.push({
        at: first.at,
        attributed_at: first.attributed_at,
        currency: sold.currency,
        amount: sign * markup,
        account_id: first.account_id,
      });
    }
  }
  return { fees, markups };
}

/** The report's figures in minor units, ordered by period, currency and partner. */
export async function profitFigures(db: Database, q: ProfitQuery): Promise<ProfitFigures[]> {
  const { start, end } = periodBounds(q);
  const rows = new Map<string, ProfitFigures>();
  const add = (at: number, currency: string, partner: string | null, field: "markup" | "fees", n: number) => {
    const period = periodOf(at, q.group);
    const key = `${period}\u0000${currency}\u0000${partner ?? ""}`;
    const row = rows.get(key) ?? { period, currency, partner, markup: 0, fees: 0 };
    row[field] += n;
    rows.set(key, row);
  };
  if (q.by === "partner") {
    // Each part for the partner of its time (decisions 062, 065), as the commissions read it.
    const [income, partners] = await Promise.all([
      attributedIncome(db, start, end, { shares: false, period: q.group }),
      rowsOf<{ id: number; name: string }>(db, "SELECT id, name FROM partners"),
    ]);
    const names = new Map(partners.map((p) => [p.id, p.name]));
    for (const part of income) {
      const partner = (part.partner_id === null ? undefined : names.get(part.partner_id)) ?? NO_PARTNER;
      // A part stands for at least one movement: its row is there even when they sum to zero.
      add(part.at, part.currency, partner, "fees", part.fees);
      add(part.at, part.currency, partner, "markup", part.markup);
    }
  } else {
    const { fees, markups } = await incomeEntries(db, start, end);
    for (const e of fees) add(e.at, e.currency, null, "fees", e.amount);
    for (const e of markups) add(e.at, e.currency, null, "markup", e.amount);
  }
  return [...rows.values()].sort((a, b) =>
    a.period.localeCompare(b.period) || a.currency.localeCompare(b.currency) ||
    (a.partner ?? "").localeCompare(b.partner ?? "")
  );
}

/** The report as the API answers it: decimal strings with the currency's digits. */
export async function profitReport(db: Database, q: ProfitQuery): Promise<ProfitRow[]> {
  return (await profitFigures(db, q)).map((r) => {
    const code = r.currency as CurrencyCode;
    return {
      period: r.period,
      currency: r.currency,
      partner: r.partner,
      markup: formatMinor(code, r.markup),
      fees: formatMinor(code, r.fees),
      total: formatMinor(code, r.markup + r.fees),
    };
  });
}

/** The report's period once its defaults are filled in: the 30 days up to today (UTC). */
export function profitQueryOf(
  query: { from?: string; to?: string; group: ProfitGroup; by: ProfitBy },
  now: number,
): ProfitQuery {
  const to = query.to ?? new Date(now).toISOString().slice(0, 10);
  const from = query.from ?? new Date(Date.parse(`${to}T00:00:00Z`) - 29 * 86_400_000).toISOString().slice(0, 10);
  return { from, to, group: query.group, by: query.by };
}

/** The longest period a report covers, and the longest by day (a chart of more days is unreadable). */
export const MAX_DAYS = 3660;
export const MAX_DAYS_BY_DAY = 366;

/** The problem with a query's period, with the field it names, or null. */
export function periodProblem(
  q: Pick<ProfitQuery, "from" | "to" | "group">,
): { field: string; message: string } | null {
  const { start, end } = periodBounds(q);
  if (start >= end) return { field: "to", message: DATES_REVERSED };
  const days = (end - start) / DAY;
  if (days > MAX_DAYS) return { field: "from", message: `A report covers at most ${MAX_DAYS} days.` };
  if (q.group === "day" && days > MAX_DAYS_BY_DAY) {
    return {
      field: "group",
      message: `By day, a report covers at most ${MAX_DAYS_BY_DAY} days: group by week or month.`,
    };
  }
  return null;
}

/** The report's CSV columns, in order. */
export const PROFIT_CSV_COLUMNS = ["period", "currency", "partner", "markup", "fees", "total"] as const;
