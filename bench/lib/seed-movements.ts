/**
 * Bench only: many movements on one account, written straight into the ledger tables in batched
 * inserts (the ledger's own calls would take minutes for 100,000). Every transfer's entries sum to
 * zero per currency, the balances are updated with them, and each receipt and conversion has its
 * record (a receipts row; a quote and a conversions row), so `checkLedger` holds afterwards.
 *
 * The movements are spread over the year before now, oldest first, in a cycle of five:
 * two receipts of 100.00 GBP, one of 50.00 EUR, two conversions of 20.00 GBP (fee 0.50) to 17.00
 * EUR. The GBP balance never goes below zero along the way.
 */
import type { InArgs } from "@libsql/client";
import type { Database } from "../../db/client.ts";

const YEAR_MS = 365 * 86_400_000;
/** Rows per INSERT statement. */
const ROWS = 400;

export interface Seeded {
  movements: number;
  /** A payer named on one receipt in a hundred, for a free-text search that finds few. */
  rarePayer: string;
  /** The time of the middle movement, for a one-day period. */
  middleAt: number;
}

type Row = (string | number | null)[];

async function one<T>(db: Database, sql: string, args: InArgs = []): Promise<T> {
  return (await db.$client.execute({ sql, args })).rows[0] as unknown as T;
}

export async function seedMovements(
  db: Database,
  options: { accountRef: string; adminId: number; count: number },
): Promise<Seeded> {
  const { id: accountId } = await one<{ id: number }>(db, "SELECT id FROM accounts WHERE account_ref = ?", [
    options.accountRef,
  ]);
  const { user_id: userId } = await one<{ user_id: number }>(
    db,
    "SELECT user_id FROM account_members WHERE account_id = ? LIMIT 1",
    [accountId],
  );
  const now = Date.now();
  /** The ledger account (made when missing), by purpose and currency. */
  async function ledgerAccount(purpose: string, currency: string): Promise<number> {
    const customer = purpose === "balance";
    const found = await one<{ id: number } | undefined>(
      db,
      customer
        ? "SELECT id FROM ledger_accounts WHERE kind = 'customer' AND account_id = ? AND currency = ? AND purpose = 'balance'"
        : "SELECT id FROM ledger_accounts WHERE kind = 'house' AND purpose = ? AND currency = ?",
      customer ? [accountId, currency] : [purpose, currency],
    );
    if (found) return Number(found.id);
    const made = await one<{ id: number }>(
      db,
      `INSERT INTO ledger_accounts (kind, account_id, currency, purpose, balance, created_at)
       VALUES (?, ?, ?, ?, 0, ?) RETURNING id`,
      [customer ? "customer" : "house", customer ? accountId : null, currency, purpose, now],
    );
    return Number(made.id);
  }
  const la = {
    gbp: await ledgerAccount("balance", "GBP"),
    eur: await ledgerAccount("balance", "EUR"),
    inGbp: await ledgerAccount("incoming_funds", "GBP"),
    inEur: await ledgerAccount("incoming_funds", "EUR"),
    fxGbp: await ledgerAccount("fx_position", "GBP"),
    fxEur: await ledgerAccount("fx_position", "EUR"),
    feeGbp: await ledgerAccount("fee_income", "GBP"),
  };
  const { next } = await one<{ next: number }>(db, "SELECT coalesce(max(id), 0) + 1 AS next FROM ledger_transfers");
  const rarePayer = "Rare Payer Holdings";
  const start = now - YEAR_MS;
  const step = Math.floor(YEAR_MS / options.count);
  const totals = new Map<number, number>();
  const add = (ledgerAccountId: number, amount: number) =>
    totals.set(ledgerAccountId, (totals.get(ledgerAccountId) ?? 0) + amount);

  const tx = await db.$client.transaction("write");
  try {
    let transfers: Row[] = [];
    let entries: Row[] = [];
    let receipts: Row[] = [];
    let quotes: Row[] = [];
    let conversions: Row[] = [];
    let receiptCount = 0;
    const flush = async () => {
      const insert = async (table: string, columns: string[], rows: Row[]) => {
        if (!rows.length) return;
        const one = `(${columns.map(() => "?").join(", ")})`;
        await tx.execute({
          sql: `INSERT INTO ${table} (${columns.join(", ")}) VALUES ${rows.map(() => one).join(", ")}`,
          args: rows.flat(),
        });
      };
      for (let i = 0; i < transfers.length; i += ROWS) {
        await insert(
          "ledger_transfers",
          ["id", "kind", "description", "reference", "created_at", "created_by"],
          transfers.slice(i, i + ROWS),
        );
      }
      for (let i = 0; i < entries.length; i += ROWS) {
        await insert(
          "ledger_entries",
          ["transfer_id", "ledger_account_id", "currency", "amount", "created_at"],
          entries.slice(i, i + ROWS),
        );
      }
      for (let i = 0; i < receipts.length; i += ROWS) {
        await insert(
          "receipts",
          [
            "amount_minor",
            "currency",
            "payer_name",
            "reference",
            "received_at",
            "status",
            "account_id",
            "transfer_id",
            "recorded_by",
            "created_at",
          ],
          receipts.slice(i, i + ROWS),
        );
      }
      for (let i = 0; i < quotes.length; i += ROWS) {
        await insert(
          "quotes",
          [
            "id",
            "account_id",
            "user_id",
            "sell_currency",
            "buy_currency",
            "sell_minor",
            "buy_minor",
            "fee_minor",
            "mid_rate",
            "rate",
            "bps",
            "expires_at",
            "used_at",
            "created_at",
          ],
          quotes.slice(i, i + ROWS),
        );
      }
      for (let i = 0; i < conversions.length; i += ROWS) {
        await insert(
          "conversions",
          [
            "account_id",
            "quote_id",
            "transfer_id",
            "sell_currency",
            "sell_minor",
            "buy_currency",
            "buy_minor",
            "fee_minor",
            "rate",
            "created_by",
            "created_at",
          ],
          conversions.slice(i, i + ROWS),
        );
      }
      transfers = [];
      entries = [];
      receipts = [];
      quotes = [];
      conversions = [];
    };
    for (let i = 0; i < options.count; i++) {
      const id = next + i;
      const at = start + i * step;
      const day = new Date(at).toISOString().slice(0, 10);
      const cycle = i % 5;
      if (cycle <= 2) {
        const [currency, amount, incoming, balance] = cycle === 2
          ? ["EUR", 5000, la.inEur, la.eur]
          : ["GBP", 10000, la.inGbp, la.gbp];
        const reference = `receipt:bench-${id}`;
        receiptCount++;
        const payer = receiptCount % 100 === 0 ? rarePayer : `Payer ${receiptCount % 37}`;
        transfers.push([id, "receipt", "Receipt", reference, at, options.adminId]);
        entries.push([id, incoming, currency, -amount, at], [id, balance, currency, amount, at]);
        add(incoming, -amount);
        add(balance, amount);
        receipts.push([
          amount,
          currency,
          payer,
          `${options.accountRef} invoice ${i}`,
          day,
          "matched",
          accountId,
          id,
          options.adminId,
          at,
        ]);
      } else {
        const [sell, fee, buy] = [2000, 50, 1700];
        const quoteId = `bench-${id}`;
        transfers.push([id, "conversion", "Conversion GBP to EUR", `quote:${quoteId}`, at, userId]);
        entries.push(
          [id, la.gbp, "GBP", -sell, at],
          [id, la.feeGbp, "GBP", fee, at],
          [id, la.fxGbp, "GBP", sell - fee, at],
          [id, la.fxEur, "EUR", -buy, at],
          [id, la.eur, "EUR", buy, at],
        );
        add(la.gbp, -sell);
        add(la.feeGbp, fee);
        add(la.fxGbp, sell - fee);
        add(la.fxEur, -buy);
        add(la.eur, buy);
        quotes.push([
          quoteId,
          accountId,
          userId,
          "GBP",
          "EUR",
          sell,
          buy,
          fee,
          "0.880000",
          "0.871795",
          0,
          at + 30_000,
          at,
          at,
        ]);
        conversions.push([accountId, quoteId, id, "GBP", sell, "EUR", buy, fee, "0.871795", userId, at]);
      }
      if (transfers.length >= 5_000) await flush();
    }
    await flush();
    for (const [ledgerAccountId, amount] of totals) {
      await tx.execute({
        sql: "UPDATE ledger_accounts SET balance = balance + ? WHERE id = ?",
        args: [amount, ledgerAccountId],
      });
    }
    await tx.commit();
  } catch (error) {
    await tx.rollback();
    throw error;
  } finally {
    tx.close();
  }
  return { movements: options.count + 1, rarePayer, middleAt: start + Math.floor(options.count / 2) * step };
}
