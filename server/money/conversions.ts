import { count, desc, eq } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { groupedTransaction } from "../../db/group-commit.ts";
import { fromColumns, rowOf, run, type Tx } from "../../db/sql.ts";
import { conversions } from "../../db/schema-money.ts";
import { BalanceOutOfRange, InsufficientFunds } from "../ledger/ledger.ts";
import { convert } from "../ledger/movements.ts";
import { formatAmount } from "./amounts.ts";
import { amountTooLarge, MoneyError } from "./errors.ts";
import { Conflict, InvalidInput, NotFound } from "../errors.ts";
import type { FeeOverrides } from "./pricing.ts";
import { type Fixed, quote, type QuoteAnswer, quoteAnswer } from "./quote.ts";
import { accountPlan, latestRates } from "./pricing-inputs.ts";

/**
 * Conversions between a customer's own balances: a quote held for its validity, then executed once.
 * Executing marks the quote used, moves the money in the ledger and records the conversion, all in
 * one database transaction: either everything happened or nothing did.
 */

export interface QuoteRequest {
  sell: string;
  buy: string;
  amount: string;
  fixed: Fixed;
}

/** A price for anyone: the account's plan and the user's fee overrides when known, else the default plan. */
export async function priceQuote(
  db: Database,
  request: QuoteRequest,
  who: { accountId: number | null; overrides: FeeOverrides | null },
  now: Date,
  validityMs: number,
) {
  // Fixed SQL, the JSON parsed once per text (./pricing-inputs.ts): a quote is held for every
  // conversion, so its reads cost as much as the execution's writes did (issue 9).
  const table = await latestRates(db);
  const plan = await accountPlan(db, who.accountId);
  return quote({ ...request, table, plan, overrides: who.overrides, now, validityMs });
}

const INSERT_QUOTE = `INSERT INTO quotes (id, account_id, user_id, sell_currency, buy_currency, sell_minor, buy_minor,
    fee_minor, mid_rate, rate, bps, expires_at, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** A quote for a customer's conversion, stored so that it can be executed until it expires. */
export async function holdQuote(
  db: Database,
  request: QuoteRequest,
  who: { accountId: number; userId: number; overrides: FeeOverrides | null },
  now: Date,
  validityMs: number,
): Promise<QuoteAnswer & { id: string }> {
  const q = await priceQuote(db, request, who, now, validityMs);
  const id = crypto.randomUUID();
  // Quotes held together share one COMMIT (db/group-commit.ts) with each other and with the
  // executions beside them: alone, each was a COMMIT with its disk sync on the only thread (decision 053).
  await groupedTransaction(db, (tx) =>
    run(tx, INSERT_QUOTE, [
      id,
      who.accountId,
      who.userId,
      q.sell_currency,
      q.buy_currency,
      q.sell_minor,
      q.buy_minor,
      q.fee_minor,
      q.mid_rate,
      q.rate,
      q.bps,
      new Date(q.expires_at).getTime(),
      now.getTime(),
    ]));
  return { id, ...quoteAnswer(q) };
}

export type ConversionRow = typeof conversions.$inferSelect;

export function conversionAnswer(row: ConversionRow) {
  return {
    id: row.id,
    quote_id: row.quoteId,
    sell_currency: row.sellCurrency,
    sell_amount: formatAmount(row.sellCurrency, row.sellMinor),
    buy_currency: row.buyCurrency,
    buy_amount: formatAmount(row.buyCurrency, row.buyMinor),
    rate: row.rate,
    fee: formatAmount(row.sellCurrency, row.feeMinor),
    fee_currency: row.sellCurrency,
    transfer_id: row.transferId,
    created_at: row.createdAt.toISOString(),
  };
}

interface QuoteRow {
  id: string;
  sell_currency: string;
  buy_currency: string;
  sell_minor: number;
  buy_minor: number;
  fee_minor: number;
  rate: string;
}

/**
 * Executes a held quote for its account. Fixed SQL, like the ledger it calls (db/sql.ts): this is
 * the request a busy portal serves most. `alongside` runs last in the same transaction, with the
 * conversion: the HTTP layer stores the request's answer there, so that the answer commits with
 * the money (docs/decisions/025); if it throws, nothing of the conversion happened.
 */
export async function executeQuote(
  db: Database,
  who: { accountId: number; userId: number; onBehalfAdminId?: number | null },
  quoteId: string,
  now: Date,
  alongside?: (tx: Tx, conversion: ConversionRow) => Promise<void>,
): Promise<ConversionRow> {
  const at = now.getTime();
  try {
    // Conversions arriving together share one commit (db/group-commit.ts); each is still all or nothing.
    return await groupedTransaction<ConversionRow>(db, async (tx) => {
      // Marking the quote used is conditional, so two requests with the same quote cannot both pass.
      const held = await rowOf<QuoteRow>(
        tx,
        `UPDATE quotes SET used_at = ? WHERE id = ? AND account_id = ? AND used_at IS NULL AND expires_at > ?
         RETURNING id, sell_currency, buy_currency, sell_minor, buy_minor, fee_minor, rate`,
        [at, quoteId, who.accountId, at],
      );
      if (!held) {
        const quote = await rowOf<{ used_at: number | null }>(
          tx,
          "SELECT used_at FROM quotes WHERE id = ? AND account_id = ?",
          [
            quoteId,
            who.accountId,
          ],
        );
        if (!quote) throw new NotFound("There is no such quote for this account.");
        if (quote.used_at !== null) {
          throw new Conflict("This quote was already used. Get a new quote.", { code: "quote_used" });
        }
        throw new Conflict("This quote has expired. Get a new quote.", { code: "quote_expired" });
      }
      const { transferId } = await convert(tx, {
        accountId: who.accountId,
        sellCurrency: held.sell_currency,
        sellAmount: held.sell_minor,
        buyCurrency: held.buy_currency,
        buyAmount: held.buy_minor,
        feeAmount: held.fee_minor,
        reference: `quote:${held.id}`,
        createdBy: who.userId,
      });
      const row = await rowOf<Record<string, unknown>>(
        tx,
        `INSERT INTO conversions (account_id, quote_id, transfer_id, sell_currency, sell_minor, buy_currency, buy_minor, fee_minor, rate, created_by, on_behalf_admin_id, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
        [
          who.accountId,
          held.id,
          transferId,
          held.sell_currency,
          held.sell_minor,
          held.buy_currency,
          held.buy_minor,
          held.fee_minor,
          held.rate,
          who.userId,
          who.onBehalfAdminId ?? null,
          at,
        ],
      );
      const conversion = fromColumns(conversions, row!);
      await alongside?.(tx, conversion);
      return conversion;
    });
  } catch (error) {
    // The bought amount would take the balance past the most it holds: 422 on the quote, nothing moved.
    if (error instanceof BalanceOutOfRange) throw amountTooLarge(error, "quote_id");
    if (error instanceof InsufficientFunds) {
      throw new InvalidInput(
        `Not enough ${error.currency}: your available balance is ${
          formatAmount(error.currency, error.available)
        } ${error.currency} and this conversion needs ${
          formatAmount(error.currency, error.required)
        } ${error.currency}.`,
        // As a payment refused the same way: the amount (to sell) is what is short.
        "amount",
      );
    }
    throw error;
  }
}

export async function listConversions(db: Database, accountId: number, page: number, perPage: number) {
  const [{ total }] = await db.select({ total: count() }).from(conversions).where(eq(conversions.accountId, accountId));
  const rows = await db.select().from(conversions).where(eq(conversions.accountId, accountId))
    .orderBy(desc(conversions.id)).limit(perPage).offset((page - 1) * perPage);
  return { items: rows.map(conversionAnswer), page, per_page: perPage, total };
}

export { MoneyError };
