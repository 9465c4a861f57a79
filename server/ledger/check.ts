/**
 * Verifies the ledger's invariants (ledger.ts) on any database, reading only, in one read
 * transaction (a consistent snapshot even while the server writes). `deno task ledger:check` runs
 * it from the command line (scripts/ledger-check.ts).
 */
import type { InValue, Transaction } from "@libsql/client";
import type { Database } from "../../db/client.ts";
import { CUSTOMER_PURPOSES, HOUSE_PURPOSES, MAY_GO_NEGATIVE } from "../../db/schema-money.ts";

/** The triggers of migration 0003_ledger_immutable. */
export const LEDGER_TRIGGERS = [
  "ledger_entries_no_update",
  "ledger_entries_no_delete",
  "ledger_transfers_no_update",
  "ledger_transfers_no_delete",
  "ledger_accounts_fixed",
  "ledger_accounts_no_delete",
  "ledger_entries_currency",
] as const;

const TABLES = ["ledger_accounts", "ledger_transfers", "ledger_entries"];

/** At most this many lines per kind of violation; the rest are counted. */
const MAX_LINES = 20;

export interface CurrencyTotals {
  currency: string;
  /** Ledger accounts in this currency. */
  accounts: number;
  entries: number;
  /** Sum of the customer balances, minor units. */
  customers: number;
  /** The house's balances by purpose. */
  house: Partial<Record<(typeof HOUSE_PURPOSES)[number], number>>;
  /** Sum of every stored balance in this currency: 0 in a sound ledger. */
  total: number;
}

export interface LedgerReport {
  ok: boolean;
  transfers: number;
  entries: number;
  accounts: number;
  currencies: CurrencyTotals[];
  violations: string[];
}

type Row = Record<string, unknown>;

const quoted = (values: readonly string[]) => values.map((v) => `'${v}'`).join(", ");
const NEGATIVE_OK = quoted(MAY_GO_NEGATIVE);

/** Each check: a query whose rows are violations (those `filter` keeps, when given), and how to say one. */
interface Check {
  sql: string;
  filter?: (r: Row) => boolean;
  say: (r: Row) => string;
}

/**
 * The business records that point at the ledger: each must have its transfer, of its kind, and
 * each transfer the portal posted for a record (reference "quote:…" for a conversion, "receipt:…"
 * for a receipt, "payment:…" for a payment) must have its record: they commit together, so a crash
 * can never leave one without the other. Checked when the tables exist.
 */

const RECORD_CHECKS: (Check & { table: string })[] = [
  {
    table: "conversions",
    sql:
      `SELECT c.id, c.transfer_id FROM conversions c LEFT JOIN ledger_transfers t ON t.id = c.transfer_id AND t.kind = 'conversion'
          WHERE t.id IS NULL ORDER BY c.id`,
    say: (r) => `conversion ${r.id}: its transfer ${r.transfer_id} is missing or is not a conversion`,
  },
  {
    table: "conversions",
    sql: `SELECT t.id FROM ledger_transfers t LEFT JOIN conversions c ON c.transfer_id = t.id
          WHERE t.kind = 'conversion' AND t.reference LIKE 'quote:%' AND c.id IS NULL ORDER BY t.id`,
    say: (r) => `transfer ${r.id}: a conversion transfer without its conversion record`,
  },
  {
    // What the customer was told a conversion did is what its transfer did to their balances and
    // the house's fee income: the record and the money cannot tell two stories.
    table: "conversions",
    sql: `SELECT c.id, c.sell_currency, c.buy_currency, c.sell_minor, c.buy_minor, c.fee_minor,
            COALESCE(SUM(CASE WHEN a.kind = 'customer' AND a.purpose = 'balance' AND a.account_id = c.account_id
              AND a.currency = c.sell_currency THEN e.amount END), 0) AS sold,
            COALESCE(SUM(CASE WHEN a.kind = 'customer' AND a.purpose = 'balance' AND a.account_id = c.account_id
              AND a.currency = c.buy_currency THEN e.amount END), 0) AS bought,
            COALESCE(SUM(CASE WHEN a.kind = 'house' AND a.purpose = 'fee_income' THEN e.amount END), 0) AS fee,
            COUNT(CASE WHEN a.kind = 'customer' AND (a.account_id <> c.account_id OR a.purpose <> 'balance')
              THEN 1 END) AS others
          FROM conversions c JOIN ledger_entries e ON e.transfer_id = c.transfer_id
            JOIN ledger_accounts a ON a.id = e.ledger_account_id
          GROUP BY c.id
          HAVING sold <> -c.sell_minor OR bought <> c.buy_minor OR fee <> c.fee_minor OR others > 0
          ORDER BY c.id`,
    say: (r) =>
      `conversion ${r.id} says ${r.sell_minor} ${r.sell_currency} sold (fee ${r.fee_minor}) for ${r.buy_minor} ${r.buy_currency}, ` +
      `but its transfer moved ${r.sold} ${r.sell_currency}, ${r.bought} ${r.buy_currency} and a fee of ${r.fee}` +
      `${Number(r.others) > 0 ? `, and ${r.others} entries of other customer balances` : ""}`,
  },
  {
    table: "receipts",
    sql:
      `SELECT r.id, r.transfer_id FROM receipts r LEFT JOIN ledger_transfers t ON t.id = r.transfer_id AND t.kind = 'receipt'
          WHERE r.transfer_id IS NOT NULL AND t.id IS NULL ORDER BY r.id`,
    say: (r) => `receipt ${r.id}: its transfer ${r.transfer_id} is missing or is not a receipt`,
  },
  {
    table: "receipts",
    sql: `SELECT t.id FROM ledger_transfers t LEFT JOIN receipts r ON r.transfer_id = t.id
          WHERE t.kind = 'receipt' AND t.reference LIKE 'receipt:%' AND r.id IS NULL ORDER BY t.id`,
    say: (r) => `transfer ${r.id}: a receipt transfer without its receipt record`,
  },
  {
    table: "receipts",
    sql:
      `SELECT r.id FROM receipts r LEFT JOIN ledger_transfers t ON t.id = r.allocation_transfer_id AND t.kind = 'allocation'
          WHERE r.status = 'allocated' AND t.id IS NULL ORDER BY r.id`,
    say: (r) => `receipt ${r.id}: allocated, but its allocation transfer is missing`,
  },
  {
    table: "receipts",
    sql: `SELECT r.id FROM receipts r LEFT JOIN ledger_transfers t ON t.id = r.reversal_transfer_id
            AND t.kind = 'receipt_reversal'
          WHERE r.status = 'reversed' AND t.id IS NULL ORDER BY r.id`,
    say: (r) => `receipt ${r.id}: reversed, but its reversing transfer is missing`,
  },
  {
    // A customer's held balance is exactly what their open payments reserve (decision 027).
    table: "payments",
    sql: `WITH held AS (
            SELECT account_id, currency, balance FROM ledger_accounts WHERE kind = 'customer' AND purpose = 'held'
          ), open AS (
            SELECT account_id, sell_currency AS currency, SUM(sell_minor) AS reserved FROM payments
            WHERE status IN ('pending_approval', 'approved') GROUP BY account_id, sell_currency
          )
          SELECT h.account_id, h.currency, h.balance, COALESCE(o.reserved, 0) AS reserved
            FROM held h LEFT JOIN open o ON o.account_id = h.account_id AND o.currency = h.currency
            WHERE h.balance <> COALESCE(o.reserved, 0)
          UNION ALL
          SELECT o.account_id, o.currency, 0, o.reserved FROM open o
            LEFT JOIN held h ON h.account_id = o.account_id AND h.currency = o.currency WHERE h.account_id IS NULL
          ORDER BY 1, 2`,
    say: (r) =>
      `account ${r.account_id}: its ${r.currency} held balance is ${r.balance} but its open payments reserve ${r.reserved}`,
  },
  {
    // Every payment's money moved as its status says: held when made; paid out once sent; released,
    // settled or refunded when it ended.
    table: "payments",
    sql: `SELECT p.id, p.status,
            (SELECT group_concat(kind) FROM ledger_transfers t WHERE t.reference LIKE 'payment:' || p.id || ':%') AS kinds
          FROM payments p ORDER BY p.id`,
    filter: (r) => {
      const kinds = new Set(String(r.kinds ?? "").split(",").filter(Boolean));
      const expected: Record<string, string[]> = {
        pending_approval: ["payment_hold"],
        approved: ["payment_hold"],
        rejected: ["payment_hold", "payment_release"],
        cancelled: ["payment_hold", "payment_release"],
        submitted: ["payment_hold", "payment_payout"],
        completed: ["payment_hold", "payment_payout", "payment_settlement"],
      };
      const want = r.status === "failed"
        ? (kinds.has("payment_payout")
          ? ["payment_hold", "payment_payout", "payment_refund"]
          : ["payment_hold", "payment_release"])
        : expected[String(r.status)] ?? [];
      return want.length !== kinds.size || want.some((k) => !kinds.has(k));
    },
    say: (r) => `payment ${r.id} is ${r.status} but its ledger transfers are [${r.kinds ?? ""}]`,
  },
  {
    // Each of a payment's movements moved its amounts (what the customer was told it debits, pays
    // out and charges), on its own account: hold and release the total between available and held,
    // a payout the total out of held with the fee earned and the amount owed to the recipient, a
    // settlement that amount, a refund the payout's reverse to available.
    table: "payments",
    sql: `SELECT p.id, t.kind, p.sell_minor, p.buy_minor, p.fee_minor,
            COALESCE(SUM(CASE WHEN a.kind = 'customer' AND a.purpose = 'balance' THEN e.amount END), 0) AS available,
            COALESCE(SUM(CASE WHEN a.kind = 'customer' AND a.purpose = 'held' THEN e.amount END), 0) AS held,
            COALESCE(SUM(CASE WHEN a.kind = 'house' AND a.purpose = 'payouts' THEN e.amount END), 0) AS owed,
            COALESCE(SUM(CASE WHEN a.kind = 'house' AND a.purpose = 'fee_income' THEN e.amount END), 0) AS fee,
            COUNT(CASE WHEN a.kind = 'customer' AND (a.account_id <> p.account_id OR a.currency <> p.sell_currency)
              THEN 1 END) AS others
          FROM ledger_transfers t
            JOIN payments p ON p.id = CAST(substr(t.reference, 9, instr(substr(t.reference, 9), ':') - 1) AS INTEGER)
              AND t.reference = 'payment:' || p.id || ':' || substr(t.kind, 9)
            JOIN ledger_entries e ON e.transfer_id = t.id JOIN ledger_accounts a ON a.id = e.ledger_account_id
          WHERE t.kind IN ('payment_hold', 'payment_release', 'payment_payout', 'payment_settlement', 'payment_refund')
          GROUP BY p.id, t.id
          HAVING others > 0 OR NOT (
               (t.kind = 'payment_hold' AND available = -p.sell_minor AND held = p.sell_minor AND owed = 0 AND fee = 0)
            OR (t.kind = 'payment_release' AND available = p.sell_minor AND held = -p.sell_minor AND owed = 0 AND fee = 0)
            OR (t.kind = 'payment_payout' AND available = 0 AND held = -p.sell_minor AND owed = p.buy_minor
                AND fee = p.fee_minor)
            OR (t.kind = 'payment_settlement' AND available = 0 AND held = 0 AND owed = -p.buy_minor AND fee = 0)
            OR (t.kind = 'payment_refund' AND available = p.sell_minor AND held = 0 AND owed = -p.buy_minor
                AND fee = -p.fee_minor))
          ORDER BY p.id, t.id`,
    say: (r) =>
      `payment ${r.id}: its ${r.kind} moved available ${r.available}, held ${r.held}, owed to the recipient ${r.owed}, ` +
      `fee ${r.fee}${Number(r.others) > 0 ? ` and ${r.others} entries of another balance` : ""}, ` +
      `which its total ${r.sell_minor}, amount ${r.buy_minor} and fee ${r.fee_minor} do not give`,
  },
  {
    table: "payments",
    sql: `SELECT t.id, t.reference FROM ledger_transfers t
          WHERE t.kind LIKE 'payment_%' AND NOT EXISTS (
            SELECT 1 FROM payments p WHERE t.reference = 'payment:' || p.id || ':' || substr(t.kind, 9)
          ) ORDER BY t.id`,
    say: (r) => `transfer ${r.id} (${r.reference}): a payment movement without its payment`,
  },
];

const CHECKS: Check[] = [
  {
    sql: `SELECT transfer_id, currency, SUM(amount) AS sum FROM ledger_entries
          GROUP BY transfer_id, currency HAVING SUM(amount) <> 0 ORDER BY transfer_id, currency`,
    say: (r) => `transfer ${r.transfer_id}: its ${r.currency} entries sum to ${r.sum}, not 0`,
  },
  {
    sql: `SELECT t.id, COUNT(e.id) AS n FROM ledger_transfers t LEFT JOIN ledger_entries e ON e.transfer_id = t.id
          GROUP BY t.id HAVING COUNT(e.id) < 2 ORDER BY t.id`,
    say: (r) => `transfer ${r.id}: ${r.n} entr${r.n === 1 ? "y" : "ies"} (a transfer has at least two)`,
  },
  {
    sql: `SELECT a.id, a.currency, a.purpose, a.account_id, a.balance, COALESCE(SUM(e.amount), 0) AS sum
          FROM ledger_accounts a LEFT JOIN ledger_entries e ON e.ledger_account_id = a.id
          GROUP BY a.id HAVING a.balance IS NOT COALESCE(SUM(e.amount), 0) ORDER BY a.id`,
    say: (r) => `${describe(r)}: stored balance ${r.balance} but its entries sum to ${r.sum}`,
  },
  {
    sql: `SELECT id, currency, purpose, account_id, balance FROM ledger_accounts
          WHERE purpose NOT IN (${NEGATIVE_OK}) AND balance < 0 ORDER BY id`,
    say: (r) => `${describe(r)}: balance ${r.balance} is below zero`,
  },
  {
    // The balance after each transfer, in the order they were written (ids only grow): a balance
    // that may not go negative never did, even if later entries brought it back.
    sql: `WITH per AS (
            SELECT e.ledger_account_id AS account, e.transfer_id AS transfer, SUM(e.amount) AS delta
            FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.ledger_account_id
            WHERE a.purpose NOT IN (${NEGATIVE_OK})
            GROUP BY e.ledger_account_id, e.transfer_id
          ), running AS (
            SELECT account, transfer, SUM(delta) OVER (PARTITION BY account ORDER BY transfer) AS balance FROM per
          )
          SELECT a.id, a.currency, a.purpose, a.account_id, MIN(r.transfer) AS transfer, MIN(r.balance) AS lowest
          FROM running r JOIN ledger_accounts a ON a.id = r.account
          WHERE r.balance < 0 GROUP BY a.id ORDER BY a.id`,
    say: (r) => `${describe(r)}: went below zero at transfer ${r.transfer} (lowest ${r.lowest})`,
  },
  {
    sql: `SELECT e.id, e.transfer_id, e.currency, a.id AS account, a.currency AS account_currency
          FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.ledger_account_id
          WHERE e.currency IS NOT a.currency ORDER BY e.id`,
    say: (r) =>
      `entry ${r.id} (transfer ${r.transfer_id}) is in ${r.currency} but its ledger account ${r.account} is in ${r.account_currency}`,
  },
  {
    sql: `SELECT e.id, e.transfer_id, e.ledger_account_id,
            (SELECT COUNT(*) FROM ledger_transfers t WHERE t.id = e.transfer_id) AS has_transfer,
            (SELECT COUNT(*) FROM ledger_accounts a WHERE a.id = e.ledger_account_id) AS has_account
          FROM ledger_entries e WHERE has_transfer = 0 OR has_account = 0 ORDER BY e.id`,
    say: (r) =>
      `entry ${r.id} points to a missing ${
        r.has_transfer === 0 ? `transfer ${r.transfer_id}` : `ledger account ${r.ledger_account_id}`
      }`,
  },
  {
    sql: `SELECT id, transfer_id, amount, typeof(amount) AS type FROM ledger_entries
          WHERE typeof(amount) <> 'integer' OR amount = 0 ORDER BY id`,
    say: (r) => `entry ${r.id} (transfer ${r.transfer_id}): amount ${r.amount} (${r.type}) is not a non-zero integer`,
  },
  {
    sql: `SELECT id, currency, purpose, account_id, balance, typeof(balance) AS type FROM ledger_accounts
          WHERE typeof(balance) <> 'integer' ORDER BY id`,
    say: (r) => `${describe(r)}: balance ${r.balance} (${r.type}) is not an integer`,
  },
  {
    sql: `SELECT id, kind, currency, purpose, account_id FROM ledger_accounts
          WHERE NOT ((kind = 'customer' AND account_id IS NOT NULL AND purpose IN (${quoted(CUSTOMER_PURPOSES)}))
                  OR (kind = 'house' AND account_id IS NULL AND purpose IN (${quoted(HOUSE_PURPOSES)})))
             OR currency IS NULL OR length(currency) <> 3 OR currency NOT GLOB '[A-Z][A-Z][A-Z]'
          ORDER BY id`,
    say: (r) =>
      `ledger account ${r.id} is malformed (kind ${r.kind}, account ${r.account_id}, purpose ${r.purpose}, currency ${r.currency})`,
  },
  {
    sql: `SELECT kind, account_id, purpose, currency, COUNT(*) AS n, group_concat(id) AS ids FROM ledger_accounts
          GROUP BY kind, account_id, purpose, currency HAVING COUNT(*) > 1`,
    say: (r) =>
      `ledger accounts ${r.ids} are the same ${r.purpose} in ${r.currency}${
        r.account_id === null ? " of the house" : ` of account ${r.account_id}`
      }`,
  },
  {
    sql:
      `SELECT currency, SUM(balance) AS total FROM ledger_accounts GROUP BY currency HAVING SUM(balance) <> 0 ORDER BY currency`,
    say: (r) => `${r.currency}: the balances sum to ${r.total}, not 0`,
  },
];

function describe(r: Row): string {
  return r.purpose === "balance" || r.purpose === "held"
    ? `ledger account ${r.id} (account ${r.account_id}, ${r.currency} ${r.purpose === "held" ? "held " : ""}balance)`
    : `ledger account ${r.id} (house ${r.purpose}, ${r.currency})`;
}

async function rows(t: Transaction, sql: string, args: InValue[] = []): Promise<Row[]> {
  const result = await t.execute({ sql, args });
  return result.rows.map((row) => Object.fromEntries(result.columns.map((c) => [c, row[c]])));
}

/** Checks every invariant; `ok` is true when `violations` is empty. Reads only. */
export async function checkLedger(db: Database): Promise<LedgerReport> {
  const report: LedgerReport = { ok: false, transfers: 0, entries: 0, accounts: 0, currencies: [], violations: [] };
  const t = await db.$client.transaction("read");
  try {
    const present = new Set(
      (await rows(t, `SELECT type, name FROM sqlite_master WHERE type IN ('table', 'trigger')`)).map((r) =>
        `${r.type}:${r.name}`
      ),
    );
    const missingTables = TABLES.filter((name) => !present.has(`table:${name}`));
    if (missingTables.length) {
      report.violations.push(
        `missing table${missingTables.length > 1 ? "s" : ""} ${missingTables.join(", ")}: is the database migrated?`,
      );
      return report;
    }
    for (const name of LEDGER_TRIGGERS) {
      if (!present.has(`trigger:${name}`)) {
        report.violations.push(`missing trigger ${name}: the ledger is not protected against edits`);
      }
    }

    const [counts] = await rows(
      t,
      `SELECT (SELECT COUNT(*) FROM ledger_transfers) AS transfers, (SELECT COUNT(*) FROM ledger_entries) AS entries,
              (SELECT COUNT(*) FROM ledger_accounts) AS accounts`,
    );
    report.transfers = Number(counts.transfers);
    report.entries = Number(counts.entries);
    report.accounts = Number(counts.accounts);

    const perCurrency = new Map<string, CurrencyTotals>();
    const totals = (currency: string) => {
      let found = perCurrency.get(currency);
      if (!found) {
        perCurrency.set(currency, found = { currency, accounts: 0, entries: 0, customers: 0, house: {}, total: 0 });
      }
      return found;
    };
    for (
      const r of await rows(
        t,
        `SELECT currency, kind, purpose, COUNT(*) AS n, SUM(balance) AS sum FROM ledger_accounts GROUP BY currency, kind, purpose`,
      )
    ) {
      const c = totals(String(r.currency));
      c.accounts += Number(r.n);
      c.total += Number(r.sum);
      if (r.kind === "customer") c.customers += Number(r.sum);
      else c.house[r.purpose as keyof CurrencyTotals["house"]] = Number(r.sum);
    }
    for (const r of await rows(t, `SELECT currency, COUNT(*) AS n FROM ledger_entries GROUP BY currency`)) {
      totals(String(r.currency)).entries = Number(r.n);
    }
    report.currencies = [...perCurrency.values()].sort((a, b) => a.currency.localeCompare(b.currency));

    const checks: Check[] = [...CHECKS, ...RECORD_CHECKS.filter((check) => present.has(`table:${check.table}`))];
    for (const check of checks) {
      const found = (await rows(t, check.sql)).filter(check.filter ?? (() => true));
      report.violations.push(...found.slice(0, MAX_LINES).map(check.say));
      if (found.length > MAX_LINES) {
        report.violations.push(`... and ${found.length - MAX_LINES} more like the last one`);
      }
    }
  } finally {
    t.close();
  }
  report.ok = report.violations.length === 0;
  return report;
}

/** The report as lines of text, for the command line. */
export function formatReport(report: LedgerReport): string {
  const lines = [`${report.transfers} transfers, ${report.entries} entries, ${report.accounts} ledger accounts`];
  for (const c of report.currencies) {
    const house = Object.entries(c.house).map(([purpose, sum]) => `${purpose} ${sum}`).join(", ");
    lines.push(
      `  ${c.currency}: ${c.entries} entries, ${c.accounts} accounts; customers ${c.customers}; house ${
        house || "none"
      }; total ${c.total}`,
    );
  }
  if (report.currencies.length) lines.push("  (amounts in minor units)");
  if (report.ok) lines.push("OK: every invariant holds.");
  else {
    lines.push(`${report.violations.length} violation${report.violations.length === 1 ? "" : "s"}:`);
    for (const v of report.violations) lines.push(`  - ${v}`);
  }
  return lines.join("\n");
}
