/**
 * The floor for bench/conversions.ts: the rows one executed conversion writes, written by a plain
 * SQLite transaction through the `libsql` binding directly, each statement prepared once and
 * reused (no HTTP, no Hono, no Drizzle, no client layer, no reads: the fastest way this machine
 * has to write those rows from JavaScript), on a database of its own with the portal's schema (the
 * committed migrations) and the portal's settings (WAL, synchronous=FULL, foreign keys on: every
 * commit is synced to disk, as the portal's are). One transaction per conversion: the plain side
 * does not group commits, the portal does (db/group-commit.ts), which is how it can pass the
 * plain figure.
 *
 * One transaction = what POST account/conversions writes in executeQuote (server/money/
 * conversions.ts, server/ledger/movements.ts convert, ledger.ts postTransfer), in the same order:
 *   UPDATE quotes SET used_at (conditional, RETURNING id)
 *   INSERT ledger_transfers (RETURNING id)
 *   5 × (UPDATE ledger_accounts SET balance = balance + ? (conditional, RETURNING balance)
 *        + INSERT ledger_entries)
 *   INSERT conversions (RETURNING *)
 * The quotes it uses are inserted beforehand, outside the measured time (the HTTP side's quotes are
 * also prepared before its window). The database is funded by a receipt transfer first, so that
 * the ledger check (server/ledger/check.ts) passes on it afterwards: the plain rows are the same
 * rows, correct ones.
 */
import { type Client, createClient, type InValue } from "@libsql/client";
import Database from "libsql";
import { join } from "node:path";
import process from "node:process";
import { openDatabase, openMigratedDatabase } from "../../db/client.ts";
import { checkLedger, type LedgerReport } from "../../server/ledger/check.ts";
import { machineBusySeconds } from "./http1.ts";
import { tempDir } from "./processes.ts";

export interface PlainResult {
  transactions: number;
  seconds: number;
  perSecond: number;
  /** CPU time of this process per transaction (the libSQL binding runs on the calling thread). */
  cpuUsPerTx: number;
  /** Share of one core this process used while measuring. */
  cpu: number;
  /** CPU the rest of the machine used meanwhile, in cores (bench/load.ts's "others"); null if unknown. */
  otherCpu: number | null;
}

const SELL = "GBP";
const BUY = "EUR";
const SELL_MINOR = 1000; // 10.00 GBP
const FEE_MINOR = 100; // 1.00 GBP
const BUY_MINOR = 1008; // 10.08 EUR
const RATE = "1.120591";
const QUOTE_BATCH = 5000;

/**
 * The plain side: a database of its own (kept across rounds, like the portal's), measured in
 * windows. open() → measure() × rounds → check() → close().
 */
export class PlainConversions {
  private dir = tempDir("portal-bench-plain-");
  private url = `file:${join(this.dir.path, "plain.db")}`;
  /** @libsql/client: the set-up and the quotes, outside the measured time. */
  private client: Client | null = null;
  /** The binding's connection the measured transactions run on, and their statements. */
  private plain: Database.Database | null = null;
  private statements: ConversionStatements | null = null;
  private ids: Ids | null = null;
  private quotes: string[] = [];
  /** Conversions written so far (warm-ups included). */
  written = 0;

  async open(): Promise<void> {
    // The schema: the portal's own migrations (through Drizzle's migrator, not timed).
    (await openMigratedDatabase({ url: this.url })).$client.close();
    const client = createClient({ url: this.url, timeout: 5000 });
    await client.execute("PRAGMA journal_mode = WAL");
    await client.execute("PRAGMA synchronous = FULL");
    await client.execute("PRAGMA foreign_keys = ON");
    this.client = client;
    this.ids = await setUp(client);
    this.plain = new Database(join(this.dir.path, "plain.db"), { timeout: 5000 });
    this.plain.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;");
    this.statements = new ConversionStatements(this.plain);
  }

  /** Back-to-back conversion transactions for warmupSeconds, then measured for durationSeconds. */
  async measure(options: { warmupSeconds: number; durationSeconds: number }): Promise<PlainResult> {
    const client = this.client!, ids = this.ids!;
    const run = async (seconds: number) => {
      let n = 0;
      let busyMs = 0;
      let cpuUs = 0;
      while (busyMs < seconds * 1000) {
        // New quotes outside the measured time, as the HTTP side prepares its quotes before its window.
        if (this.quotes.length === 0) this.quotes = await insertQuotes(client, ids, QUOTE_BATCH);
        const batch = this.quotes.splice(0, Math.min(this.quotes.length, 100));
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        for (const quoteId of batch) convertOnce(this.plain!, this.statements!, ids, quoteId);
        busyMs += performance.now() - t0;
        const cpu = process.cpuUsage(cpu0);
        cpuUs += cpu.user + cpu.system;
        n += batch.length;
      }
      this.written += n;
      return { n, seconds: busyMs / 1000, cpuUs };
    };
    if (options.warmupSeconds > 0) await run(options.warmupSeconds);
    const machine0 = machineBusySeconds();
    const self0 = process.cpuUsage();
    const wall0 = performance.now();
    const measured = await run(options.durationSeconds);
    const wall = (performance.now() - wall0) / 1000;
    const self = process.cpuUsage(self0);
    const machine1 = machineBusySeconds();
    return {
      otherCpu: machine0 !== null && machine1 !== null
        ? Math.max(0, machine1 - machine0 - (self.user + self.system) / 1e6) / wall
        : null,
      transactions: measured.n,
      seconds: measured.seconds,
      perSecond: measured.n / measured.seconds,
      cpuUsPerTx: measured.cpuUs / measured.n,
      cpu: measured.cpuUs / 1e6 / measured.seconds,
    };
  }

  /** The ledger check (server/ledger/check.ts) on the plain database, and its conversions count. */
  async check(): Promise<{ ledger: LedgerReport; conversions: number }> {
    const db = await openDatabase({ url: this.url });
    try {
      const ledger = await checkLedger(db);
      const result = await db.$client.execute("SELECT COUNT(*) AS n FROM conversions");
      return { ledger, conversions: Number(result.rows[0].n) };
    } finally {
      db.$client.close();
    }
  }

  close(): void {
    this.plain?.close();
    this.plain = null;
    this.client?.close();
    this.client = null;
    this.dir.remove();
  }
}

interface Ids {
  userId: number;
  accountId: number;
  customerSell: number;
  customerBuy: number;
  feeIncome: number;
  positionSell: number;
  positionBuy: number;
}

async function one(client: Client, sql: string, args: InValue[] = []): Promise<Record<string, unknown>> {
  const result = await client.execute({ sql, args });
  return result.rows[0] as unknown as Record<string, unknown>;
}

/** A user, an account, its two balances and the house's three accounts; the sell balance funded by a receipt. */
async function setUp(client: Client): Promise<Ids> {
  const now = Date.now();
  const user = await one(
    client,
    `INSERT INTO users (username, password_hash, level, type, validated, created_at)
    VALUES ('plain@bench.test', NULL, 'User', 'Personal', 1, ?) RETURNING id`,
    [now],
  );
  const account = await one(
    client,
    `INSERT INTO accounts (account_ref, type, name, opened_at) VALUES ('P00000000', 'Personal', 'Plain', ?) RETURNING id`,
    [now],
  );
  const ledgerAccount = async (kind: string, accountId: number | null, currency: string, purpose: string) =>
    Number(
      (await one(
        client,
        `INSERT INTO ledger_accounts (kind, account_id, currency, purpose, balance, created_at)
      VALUES (?, ?, ?, ?, 0, ?) RETURNING id`,
        [kind, accountId, currency, purpose, now],
      )).id,
    );
  const accountId = Number(account.id);
  const ids: Ids = {
    userId: Number(user.id),
    accountId,
    customerSell: await ledgerAccount("customer", accountId, SELL, "balance"),
    customerBuy: await ledgerAccount("customer", accountId, BUY, "balance"),
    feeIncome: await ledgerAccount("house", null, SELL, "fee_income"),
    positionSell: await ledgerAccount("house", null, SELL, "fx_position"),
    positionBuy: await ledgerAccount("house", null, BUY, "fx_position"),
  };
  // Funding: a receipt of 100,000,000.00 GBP (incoming_funds −, customer +).
  const incoming = await ledgerAccount("house", null, SELL, "incoming_funds");
  const funds = 10_000_000_000;
  const tx = await client.transaction("write");
  try {
    const transfer = await tx.execute({
      sql:
        `INSERT INTO ledger_transfers (kind, description, reference, created_at, created_by) VALUES ('receipt', 'Funding', 'bench-funding', ?, NULL) RETURNING id`,
      args: [now],
    });
    const transferId = Number(transfer.rows[0].id);
    for (const [id, amount] of [[incoming, -funds], [ids.customerSell, funds]]) {
      await tx.execute({
        sql: `UPDATE ledger_accounts SET balance = balance + ? WHERE id = ?`,
        args: [BigInt(amount), id],
      });
      await tx.execute({
        sql:
          `INSERT INTO ledger_entries (transfer_id, ledger_account_id, currency, amount, created_at) VALUES (?, ?, ?, ?, ?)`,
        args: [transferId, id, SELL, amount, now],
      });
    }
    await tx.commit();
  } finally {
    tx.close();
  }
  return ids;
}

/** n held quotes, inserted in one transaction (not measured). */
async function insertQuotes(client: Client, ids: Ids, n: number): Promise<string[]> {
  const now = Date.now();
  const quotes = Array.from({ length: n }, () => crypto.randomUUID());
  await client.batch(
    quotes.map((id) => ({
      sql:
        `INSERT INTO quotes (id, account_id, user_id, sell_currency, buy_currency, sell_minor, buy_minor, fee_minor, mid_rate, rate, bps, expires_at, used_at, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, '1.137656', ?, 150, ?, NULL, ?)`,
      args: [id, ids.accountId, ids.userId, SELL, BUY, SELL_MINOR, BUY_MINOR, FEE_MINOR, RATE, now + 3_600_000, now],
    })),
    "write",
  );
  return quotes;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

type Statement = Database.Statement;

/** The conversion's statements, prepared once on the plain connection. */
class ConversionStatements {
  readonly begin: Statement;
  readonly useQuote: Statement;
  readonly insertTransfer: Statement;
  readonly moveBalance: Statement;
  readonly insertEntry: Statement;
  readonly insertConversion: Statement;
  readonly commit: Statement;

  constructor(db: Database.Database) {
    this.begin = db.prepare("BEGIN IMMEDIATE");
    this.useQuote = db.prepare(
      `UPDATE quotes SET used_at = ? WHERE id = ? AND used_at IS NULL AND expires_at > ? RETURNING id`,
    ).raw(true);
    this.insertTransfer = db.prepare(
      `INSERT INTO ledger_transfers (kind, description, reference, created_at, created_by) VALUES ('conversion', ?, ?, ?, ?) RETURNING id`,
    ).raw(true);
    this.moveBalance = db.prepare(`UPDATE ledger_accounts SET balance = balance + ?1 WHERE id = ?2
      AND (purpose IN ('fx_position', 'incoming_funds') OR balance + ?1 >= 0) AND abs(balance + ?1) <= ${MAX_SAFE} RETURNING balance`)
      .raw(true);
    this.insertEntry = db.prepare(
      `INSERT INTO ledger_entries (transfer_id, ledger_account_id, currency, amount, created_at) VALUES (?, ?, ?, ?, ?)`,
    );
    this.insertConversion = db.prepare(
      `INSERT INTO conversions (account_id, quote_id, transfer_id, sell_currency, sell_minor, buy_currency, buy_minor, fee_minor, rate, created_by, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    ).raw(true);
    this.commit = db.prepare("COMMIT");
  }
}

/** One conversion's writes, one transaction. */
function convertOnce(db: Database.Database, s: ConversionStatements, ids: Ids, quoteId: string): void {
  const now = Date.now();
  s.begin.run();
  try {
    const used = s.useQuote.all(now, quoteId, now);
    if (used.length !== 1) throw new Error(`quote ${quoteId} could not be used`);
    const [[transferId]] = s.insertTransfer.all(
      `Conversion ${SELL} to ${BUY}`,
      `quote:${quoteId}`,
      now,
      ids.userId,
    ) as [[number]];
    const entries: [number, string, number][] = [
      [ids.customerSell, SELL, -SELL_MINOR],
      [ids.feeIncome, SELL, FEE_MINOR],
      [ids.positionSell, SELL, SELL_MINOR - FEE_MINOR],
      [ids.positionBuy, BUY, -BUY_MINOR],
      [ids.customerBuy, BUY, BUY_MINOR],
    ];
    for (const [id, currency, amount] of entries) {
      // Bound as a BigInt so that SQLite adds integers, as the portal does.
      if (s.moveBalance.all(BigInt(amount), id).length !== 1) throw new Error(`ledger account ${id} refused ${amount}`);
      s.insertEntry.run(transferId, id, currency, amount, now);
    }
    s.insertConversion.all(
      ids.accountId,
      quoteId,
      transferId,
      SELL,
      SELL_MINOR,
      BUY,
      BUY_MINOR,
      FEE_MINOR,
      RATE,
      ids.userId,
      now,
    );
    s.commit.run();
  } finally {
    if (db.inTransaction) db.exec("ROLLBACK");
  }
}
