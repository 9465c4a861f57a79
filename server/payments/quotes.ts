import type { Database } from "../../db/client.ts";
import { run } from "../../db/sql.ts";
import { expectedArrival, offersPriority, railFor, RAILS, speedText } from "../../lib/payments/rails.ts";
import { InvalidInput } from "../errors.ts";
import type { FeeOverrides } from "../money/pricing.ts";
import { accountPlan, latestRates } from "../money/pricing-inputs.ts";
import { groupedTransaction } from "../../db/group-commit.ts";
import { costAnswer } from "./answer.ts";
import { type PaymentFixed, pricePayment } from "./pricing.ts";
import { recipientFor } from "../recipients/index.ts";

export interface PaymentQuoteRequest {
  recipientId: number;
  amount: string;
  fixed: PaymentFixed;
  sellCurrency: string;
  priority: boolean;
}

/**
 * The full cost of paying a recipient of the account, held as a payment quote for the conversion
 * quote's validity (the payment screen's draft): the rate, the markup in money, the fee, the total
 * debited, what arrives, by which rail and when.
 */
export async function holdPaymentQuote(
  db: Database,
  request: PaymentQuoteRequest,
  who: { accountId: number; userId: number; overrides: FeeOverrides | null },
  now: Date,
  validityMs: number,
) {
  const recipient = await recipientFor(db, who.accountId, request.recipientId);
  const { currency, country } = recipient;
  const table = await latestRates(db);
  const plan = await accountPlan(db, who.accountId);
  const price = pricePayment({
    sell: request.sellCurrency,
    buy: currency,
    amount: request.amount,
    fixed: request.fixed,
    priority: request.priority,
    table,
    plan,
    overrides: who.overrides,
    now,
    validityMs,
  });
  const route = railFor(currency, country);
  if (!route.ok) throw new InvalidInput(route.message, "recipient_id");
  const rail = route.rail;
  // Charging the priority fee for nothing faster would be taking money for nothing.
  if (request.priority && !offersPriority(rail)) {
    throw new InvalidInput(
      `A ${RAILS[rail].name} arrives ${speedText(rail, false)} already: there is no priority to pay for.`,
      "priority",
    );
  }
  const values = {
    id: crypto.randomUUID(),
    accountId: who.accountId,
    userId: who.userId,
    recipientId: recipient.id,
    sellCurrency: price.sell_currency,
    buyCurrency: price.buy_currency,
    sellMinor: price.sell_minor,
    buyMinor: price.buy_minor,
    feeMinor: price.fee_minor,
    // In the recipient's own currency nothing is converted: stored as the rate 1, answered as none.
    midRate: price.mid_rate ?? "1",
    rate: price.rate ?? "1",
    bps: price.bps,
    priority: request.priority,
    rail,
    expectedArrival: expectedArrival(rail, request.priority, now),
    expiresAt: new Date(price.expires_at),
    createdAt: now,
    recipientDetails: detailsVersion(recipient.details),
  };
  // Held together with other writes under one COMMIT (db/group-commit.ts), not a sync of its own.
  // Fixed SQL (db/sql.ts): Drizzle's insert builder cost more CPU than SQLite's insert itself.
  await groupedTransaction(db, (tx) =>
    run(tx, INSERT_PAYMENT_QUOTE, [
      values.id,
      values.accountId,
      values.userId,
      values.recipientId,
      values.sellCurrency,
      values.buyCurrency,
      values.sellMinor,
      values.buyMinor,
      values.feeMinor,
      values.midRate,
      values.rate,
      values.bps,
      values.priority ? 1 : 0,
      values.rail,
      values.expectedArrival.getTime(),
      values.expiresAt.getTime(),
      values.createdAt.getTime(),
      values.recipientDetails,
    ]));
  return {
    id: values.id,
    recipient_id: recipient.id,
    ...costAnswer(values),
    reference_max: RAILS[rail].referenceMax,
    expires_at: price.expires_at,
  };
}

const INSERT_PAYMENT_QUOTE = `INSERT INTO payment_quotes (id, account_id, user_id, recipient_id, sell_currency,
    buy_currency, sell_minor, buy_minor, fee_minor, mid_rate, rate, bps, priority, rail, expected_arrival, expires_at,
    created_at, recipient_details)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * The recipient's bank details as a quote records them (JSON, keys sorted, so that the same details
 * always read the same): a payment is confirmed only to the details its cost was shown for.
 */
export function detailsVersion(details: Record<string, string>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(details).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)));
}
