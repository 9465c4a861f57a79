import type { Client, InStatement } from "@libsql/client";
import { CURRENCIES, CURRENCY_CODES } from "../lib/money/currencies.ts";

/**
 * The daily income summary (`income_days`, decision 070): per customer account, day (UTC) and
 * currency, the house's fee and markup income of the ledger, as server/profit/report.ts
 * `incomeEntries` reads it movement by movement. The partners' commissions and the profit report
 * by partner read a year from here, a row per account and day, instead of every movement with its
 * lookups (server/partners/income.ts).
 *
 * Kept by triggers on the ledger, so that no writer (the movements, a test fixture, the bench's
 * seed) can forget it, in the transaction that writes the income; the ledger is append-only
 * (0003_ledger_immutable), so only inserts need a trigger. Like decision 052's search tables
 * (db/derived.ts), the triggers are not in a migration (drizzle-kit says no trigger; the generated
 * SQL is not edited): `ensureIncomeDays` runs after the migrations, each start, and when a trigger
 * is missing or its text differs from the one here it drops them, fills the table again from the
 * whole ledger and creates them, in one write transaction.
 *
 * - **Fees**: each entry of a house `fee_income` account adds to the row of the movement's customer
 *   account (its first customer entry, as `incomeEntries` reads it), 0 when it has none (yet: an
 *   entry written before the movement's customer entry is moved to it when that one comes).
 * - **Markup**: a conversion's or a payout's `fx_position` legs priced at the mid rate of its quote
 *   or payment, by the same arithmetic as `markupOf` (server/money/quote.ts), in 64-bit integers:
 *   exact whenever they cannot overflow, checked before; otherwise the movement is not summed and
 *   counts as `irregular`. Counted when the last of its legs and its pricing row is written.
 * - **Refunds** are not summed: a refund counts for the partner of its payout's time (decision 065),
 *   another day. Its customer entry counts it as `irregular` on its account and day.
 *
 * `first_at` and `last_at` are the times of the first and last income summed in a row: a row whose
 * account's owner changes partner, or whose partner's share changes, after the first and by the
 * last, or with an irregular movement, is read movement by movement (server/partners/income.ts).
 */

const DAY_MS = 86_400_000;

/**
 * The customer account a movement was for: the account of its first customer entry (none for the
 * house's own corrections). server/profit/report.ts `incomeEntries` reads it with this same text.
 */
export const CUSTOMER_OF = (transferId: string) =>
  `(SELECT ca.account_id FROM ledger_entries ce
      JOIN ledger_accounts ca ON ca.id = ce.ledger_account_id AND ca.kind = 'customer'
      WHERE ce.transfer_id = ${transferId} ORDER BY ce.id LIMIT 1)`;

/** Decimal places of a currency; NULL for one the portal does not know (markupOf throws: irregular). */
const minorUnitsOf = (code: string) =>
  `(CASE ${code} ${CURRENCY_CODES.map((c) => `WHEN '${c}' THEN ${CURRENCIES[c].minorUnits}`).join(" ")} ELSE NULL END)`;

/** 10^k as an integer, for 0 ≤ k ≤ 18. */
const pow10 = (k: string) => `CAST(substr('1000000000000000000', 1, (${k}) + 1) AS INTEGER)`;

const HOUSE = (alias: string, purpose: string) =>
  `${alias}.ledger_account_id = (SELECT la.id FROM ledger_accounts la
      WHERE la.kind = 'house' AND la.purpose = '${purpose}' AND la.currency = ${alias}.currency)`;

/**
 * One row per movement of `where` (a condition on ledger_transfers t) whose two fx_position legs
 * and pricing row exist: its day, customer account (0: none), the currency sold, and its markup,
 * signed (a refund gives it back), or NULL when 64-bit integers cannot compute it exactly.
 *
 * markupOf: with the mid rate as digits ÷ 10^f and shift = minor units bought − sold, the bought
 * amount at mid is round(bought × 10^f ÷ (digits × 10^shift)), half up; the markup is what was
 * converted less that. Here num = bought × 10^(f + max(−shift, 0)), den = digits × 10^max(shift, 0),
 * and (2 num + den) ÷ (2 den) is computed only when 2 num + den fits in 63 bits.
 */
function markupRows(where: string): string {
  const digits = "replace(mid, '.', '')";
  const fraction = "(CASE WHEN instr(mid, '.') > 0 THEN length(mid) - instr(mid, '.') ELSE 0 END)";
  const shift = `(${minorUnitsOf("buy")} - ${minorUnitsOf("sell")})`;
  const kNum = `(${fraction} + max(-${shift}, 0))`;
  const kDen = `max(${shift}, 0)`;
  const den = `(CAST(${digits} AS INTEGER) * ${pow10(kDen)})`;
  const pn = pow10(kNum);
  const exact = `coalesce(${digits} <> '' AND ${digits} NOT GLOB '*[^0-9]*' AND length(${digits}) + ${kDen} <= 18
      AND ${kNum} <= 18 AND ${den} > 0 AND bought <= (9223372036854775807 - ${den}) / (2 * ${pn}), 0)`;
  return `SELECT day, account_id, currency, at,
      CASE WHEN ${exact} THEN sign * (converted - (2 * bought * ${pn} + ${den}) / (2 * ${den})) END AS markup
    FROM (SELECT s.created_at / ${DAY_MS} AS day, s.created_at AS at, coalesce(${CUSTOMER_OF("t.id")}, 0) AS account_id,
        s.currency AS currency, CASE WHEN s.amount > 0 THEN 1 ELSE -1 END AS sign, abs(s.amount) AS converted,
        abs(b.amount) AS bought, COALESCE(q.mid_rate, p.mid_rate) AS mid,
        COALESCE(c.sell_currency, p.sell_currency) AS sell, COALESCE(c.buy_currency, p.buy_currency) AS buy
      FROM ledger_transfers t
      LEFT JOIN conversions c ON t.kind = 'conversion' AND c.transfer_id = t.id
      LEFT JOIN quotes q ON q.id = c.quote_id
      LEFT JOIN payments p ON t.kind IN ('payment_payout', 'payment_refund')
           AND p.id = CAST(substr(t.reference, 9, instr(substr(t.reference, 9), ':') - 1) AS INTEGER)
      JOIN ledger_entries s ON s.transfer_id = t.id AND s.currency = COALESCE(c.sell_currency, p.sell_currency)
           AND ${HOUSE("s", "fx_position")}
      JOIN ledger_entries b ON b.transfer_id = t.id AND b.currency = COALESCE(c.buy_currency, p.buy_currency)
           AND ${HOUSE("b", "fx_position")}
      WHERE ${where} AND COALESCE(q.mid_rate, p.mid_rate) IS NOT NULL)`;
}

/** The movements whose markup the summary holds. */
const PRICED = "t.kind IN ('conversion', 'payment_payout')";

/**
 * Adds rows (day, account_id, currency, fees, markup, entries, first_at, last_at, irregular) to the
 * summary; a row's times widen to include theirs (NULL: none).
 */
const addRows = (select: string) =>
  `INSERT INTO income_days (day, account_id, currency, fees, markup, entries, first_at, last_at, irregular)
    SELECT * FROM (${select}) WHERE true
    ON CONFLICT (day, account_id, currency) DO UPDATE SET fees = fees + excluded.fees,
      markup = markup + excluded.markup, entries = entries + excluded.entries,
      first_at = CASE WHEN first_at IS NULL OR excluded.first_at < first_at THEN excluded.first_at ELSE first_at END,
      last_at = CASE WHEN last_at IS NULL OR excluded.last_at > last_at THEN excluded.last_at ELSE last_at END,
      irregular = irregular + excluded.irregular`;

/**
 * `markupRows` as summary rows, times `sign` (−1 takes them away, leaving the row's times as they
 * were), on `account` (default: theirs).
 */
const markupAsRows = (where: string, sign = 1, account = "account_id") =>
  `SELECT day, ${account}, currency, 0, ${sign} * coalesce(sum(markup), 0), ${sign} * count(nullif(markup, 0)),
      ${sign > 0 ? "min(at), max(at)" : "NULL, NULL"}, ${sign} * count(*) FILTER (WHERE markup IS NULL)
    FROM (${markupRows(where)}) GROUP BY day, ${account === "account_id" ? "account_id" : "2"}, currency`;

const kindOf = (transferId: string) => `(SELECT kind FROM ledger_transfers WHERE id = ${transferId})`;
const isAccount = (kind: string, purpose?: string) =>
  `(SELECT kind = '${kind}'${
    purpose ? ` AND purpose = '${purpose}'` : ""
  } FROM ledger_accounts WHERE id = NEW.ledger_account_id)`;

/** The fee entries of transfer NEW.transfer_id written before NEW, as summary rows on `account`. */
const earlierFees = (sign: number, account: string) =>
  `SELECT e.created_at / ${DAY_MS}, ${account}, e.currency, ${sign} * sum(e.amount), 0, ${sign} * count(*),
      ${sign > 0 ? "min(e.created_at), max(e.created_at)" : "NULL, NULL"}, 0
    FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.ledger_account_id AND a.kind = 'house' AND a.purpose = 'fee_income'
    WHERE e.transfer_id = NEW.transfer_id AND e.id < NEW.id AND ${kindOf("NEW.transfer_id")} <> 'payment_refund'
    GROUP BY e.created_at / ${DAY_MS}, e.currency`;

/** Both fx_position legs of NEW's transfer were written before NEW (so its markup was counted). */
const LEGS_BEFORE = `(SELECT count(*) FROM ledger_entries x JOIN ledger_accounts xa ON xa.id = x.ledger_account_id
    AND xa.kind = 'house' AND xa.purpose = 'fx_position' WHERE x.transfer_id = t.id AND x.id < NEW.id) >= 2`;

const TRIGGERS: Record<string, string> = {
  // A fee, on the movement's customer account as far as it is written (0 until its customer entry).
  income_days_fee: `AFTER INSERT ON ledger_entries
    WHEN ${isAccount("house", "fee_income")} AND ${kindOf("NEW.transfer_id")} <> 'payment_refund' BEGIN
    ${
    addRows(
      `SELECT NEW.created_at / ${DAY_MS}, coalesce(${
        CUSTOMER_OF("NEW.transfer_id")
      }, 0), NEW.currency, NEW.amount, 0, 1, NEW.created_at, NEW.created_at, 0`,
    )
  }; END`,
  // A payout's markup when its second fx_position leg is written (its payment is older); a
  // conversion's too when its conversions row came first.
  income_days_leg: `AFTER INSERT ON ledger_entries
    WHEN ${isAccount("house", "fx_position")} AND ${kindOf("NEW.transfer_id")} IN ('conversion', 'payment_payout') BEGIN
    ${addRows(markupAsRows(`t.id = NEW.transfer_id AND ${PRICED} AND ${LEGS_BEFORE.replace("x.id < NEW.id", "1")}`))};
    END`,
  // A conversion's markup when its conversions row is written after its legs (the usual order).
  income_days_conversion: `AFTER INSERT ON conversions BEGIN
    ${addRows(markupAsRows(`t.id = NEW.transfer_id AND t.kind = 'conversion'`))}; END`,
  // A movement's first customer entry: a refund is irregular on its day; income written before it
  // on account 0 moves to its account.
  income_days_customer: `AFTER INSERT ON ledger_entries
    WHEN ${isAccount("customer")} AND NOT EXISTS (SELECT 1 FROM ledger_entries o
      JOIN ledger_accounts oa ON oa.id = o.ledger_account_id AND oa.kind = 'customer'
      WHERE o.transfer_id = NEW.transfer_id AND o.id < NEW.id) BEGIN
    ${
    addRows(
      `SELECT NEW.created_at / ${DAY_MS}, (SELECT account_id FROM ledger_accounts WHERE id = NEW.ledger_account_id),
      NEW.currency, 0, 0, 0, NULL, NULL, 1 WHERE ${kindOf("NEW.transfer_id")} = 'payment_refund'`,
    )
  };
    ${addRows(earlierFees(-1, "0"))};
    ${addRows(earlierFees(1, "(SELECT account_id FROM ledger_accounts WHERE id = NEW.ledger_account_id)"))};
    ${addRows(markupAsRows(`t.id = NEW.transfer_id AND ${PRICED} AND ${LEGS_BEFORE}`, -1, "0"))};
    ${addRows(markupAsRows(`t.id = NEW.transfer_id AND ${PRICED} AND ${LEGS_BEFORE}`))};
    END`,
};

const createTrigger = (name: string) => `CREATE TRIGGER ${name} ${TRIGGERS[name]}`;

/** The summary as the triggers would have written it for the whole ledger (the backfill). */
export const INCOME_DAYS_FROM_LEDGER: string[] = [
  addRows(`SELECT e.created_at / ${DAY_MS}, coalesce(${CUSTOMER_OF("e.transfer_id")}, 0), e.currency,
      sum(e.amount), 0, count(*), min(e.created_at), max(e.created_at), 0
    FROM ledger_accounts a JOIN ledger_entries e ON e.ledger_account_id = a.id JOIN ledger_transfers t ON t.id = e.transfer_id
    WHERE a.kind = 'house' AND a.purpose = 'fee_income' AND t.kind <> 'payment_refund'
    GROUP BY 1, 2, 3`),
  addRows(markupAsRows(PRICED)),
  addRows(`SELECT e.created_at / ${DAY_MS}, ca.account_id, e.currency, 0, 0, 0, NULL, NULL, count(*)
    FROM ledger_transfers t
    JOIN ledger_entries e ON e.id = (SELECT ce.id FROM ledger_entries ce
      JOIN ledger_accounts cea ON cea.id = ce.ledger_account_id AND cea.kind = 'customer'
      WHERE ce.transfer_id = t.id ORDER BY ce.id LIMIT 1)
    JOIN ledger_accounts ca ON ca.id = e.ledger_account_id
    WHERE t.kind = 'payment_refund' GROUP BY 1, 2, 3`),
];

/**
 * Creates the triggers when one is missing or differs, after filling the summary from the whole
 * ledger, in one write transaction (see above). Called after the migrations (db/client.ts
 * migrateDatabase); running it again, or two instances at once, changes nothing.
 */
export async function ensureIncomeDays(client: Client): Promise<void> {
  const names = Object.keys(TRIGGERS);
  const stored = new Map(
    (await client.execute(
      `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN (${
        names.map((n) => `'${n}'`).join(", ")
      })`,
    )).rows.map((r) => [String(r.name), String(r.sql)]),
  );
  if (names.every((name) => stored.get(name) === createTrigger(name))) return;
  const statements: InStatement[] = [
    ...names.map((name) => `DROP TRIGGER IF EXISTS ${name}`),
    "DELETE FROM income_days",
    ...INCOME_DAYS_FROM_LEDGER,
    ...names.map(createTrigger),
  ];
  await client.batch(statements, "write");
}
