import { and, count, desc, eq, gt, isNull } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { conversions, quotes } from "../../db/schema-money.ts";
import { InsufficientFunds } from "../ledger/ledger.ts";
import { convert } from "../ledger/movements.ts";
import { formatAmount } from "./amounts.ts";
import { MoneyError } from "./errors.ts";
import type { FeeOverrides } from "./pricing.ts";
import { type Fixed, quote, type QuoteAnswer, quoteAnswer } from "./quote.ts";
import { currentRates, planForAccount } from "./store.ts";

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
  const [table, plan] = await Promise.all([currentRates(db), planForAccount(db, who.accountId)]);
  return quote({ ...request, table, plan, overrides: who.overrides, now, validityMs });
}

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
  await db.insert(quotes).values({
    id,
    accountId: who.accountId,
    userId: who.userId,
    sellCurrency: q.sell_currency,
    buyCurrency: q.buy_currency,
    sellMinor: q.sell_minor,
    buyMinor: q.buy_minor,
    feeMinor: q.fee_minor,
    midRate: q.mid_rate,
    rate: q.rate,
    bps: q.bps,
    expiresAt: new Date(q.expires_at),
    createdAt: now,
  });
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

/** Why a conversion was refused, in words for the customer. */
export class ConversionRefused extends Error {
  constructor(readonly status: 404 | 409 | 422, message: string) {
    super(message);
  }
}

/** Executes a held quote for its account. */
export async function executeQuote(
  db: Database,
  who: { accountId: number; userId: number },
  quoteId: string,
  now: Date,
): Promise<ConversionRow> {
  try {
    return await db.transaction(async (tx) => {
      const [held] = await tx.select().from(quotes).where(and(eq(quotes.id, quoteId), eq(quotes.accountId, who.accountId)));
      if (!held) throw new ConversionRefused(404, "There is no such quote for this account.");
      if (held.usedAt) throw new ConversionRefused(409, "This quote was already used. Get a new quote.");
      if (held.expiresAt.getTime() <= now.getTime()) throw new ConversionRefused(409, "This quote has expired. Get a new quote.");
      // Conditional, so two requests with the same quote cannot both pass.
      const used = await tx.update(quotes).set({ usedAt: now })
        .where(and(eq(quotes.id, quoteId), isNull(quotes.usedAt), gt(quotes.expiresAt, now))).returning({ id: quotes.id });
      if (used.length !== 1) throw new ConversionRefused(409, "This quote was already used. Get a new quote.");
      const { transferId } = await convert(tx, {
        accountId: who.accountId,
        sellCurrency: held.sellCurrency,
        sellAmount: held.sellMinor,
        buyCurrency: held.buyCurrency,
        buyAmount: held.buyMinor,
        feeAmount: held.feeMinor,
        reference: `quote:${held.id}`,
        createdBy: who.userId,
      });
      const [row] = await tx.insert(conversions).values({
        accountId: who.accountId,
        quoteId: held.id,
        transferId,
        sellCurrency: held.sellCurrency,
        sellMinor: held.sellMinor,
        buyCurrency: held.buyCurrency,
        buyMinor: held.buyMinor,
        feeMinor: held.feeMinor,
        rate: held.rate,
        createdBy: who.userId,
        createdAt: now,
      }).returning();
      return row;
    });
  } catch (error) {
    if (error instanceof InsufficientFunds) {
      throw new ConversionRefused(
        422,
        `Not enough ${error.currency}: your balance is ${formatAmount(error.currency, error.available)} ${error.currency} and this conversion needs ${
          formatAmount(error.currency, error.required)
        } ${error.currency}.`,
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
