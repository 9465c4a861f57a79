/**
 * The full cost of a payment (decision 030), pure: the caller loads the rates, the plan and the
 * overrides, and passes the clock.
 *
 * - The transfer fee is the plan's regular or priority fee in the currency paid from (or the
 *   customer's override of that kind), as a conversion's fee is (server/money/pricing.ts feeFor).
 * - From another currency, the conversion is priced by the conversion quote (server/money/quote.ts)
 *   with that fee: the same rate, markup tiers and rounding in the house's favour, so a payment
 *   costs what converting then paying would. "send" fixes what is debited (fee included), "receive"
 *   what arrives.
 * - The markup in money is what the rate's markup costs the customer, in the currency paid from:
 *   what is converted, less what would have bought the same amount at the mid-market rate (printed
 *   rate, rounded to the nearest minor unit). So converted at mid + markup + fee = total debited.
 * - In the recipient's own currency there is no rate and no markup: what arrives is what is
 *   debited less the fee.
 */
import { formatAmount, parseAmount } from "../money/amounts.ts";
import { MoneyError } from "../money/errors.ts";
import { feeFor, type FeeOverrides, type PricingPlan } from "../money/pricing.ts";
import { markupOf, quote } from "../money/quote.ts";
import type { RateTable } from "../money/rates.ts";

/** Which side the customer fixes: what they send (fee included) or what the recipient receives. */
export type PaymentFixed = "send" | "receive";

export interface PaymentPriceInput {
  /** The currency paid from (a balance of the customer's). */
  sell: string;
  /** The recipient's currency. */
  buy: string;
  amount: string;
  fixed: PaymentFixed;
  priority: boolean;
  table: RateTable;
  plan: PricingPlan;
  overrides: FeeOverrides | null;
  now: Date;
  validityMs: number;
}

export interface PaymentPrice {
  sell_currency: string;
  buy_currency: string;
  /** Everything debited, the fee included. */
  sell_minor: number;
  /** What arrives. */
  buy_minor: number;
  /** The transfer fee, in the sell currency. */
  fee_minor: number;
  /** What the markup costs, in the sell currency; null when nothing is converted. */
  markup_minor: number | null;
  /** Null when nothing is converted. */
  mid_rate: string | null;
  rate: string | null;
  bps: number;
  expires_at: string;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Prices a payment; throws a MoneyError naming the field (amount, sell_currency). */
export function pricePayment(input: PaymentPriceInput): PaymentPrice {
  const { sell, buy, amount, fixed, priority, plan, overrides, now, validityMs } = input;
  const feeKind = priority ? "priority" : "regular";
  const expires_at = new Date(now.getTime() + validityMs).toISOString();
  if (sell === buy) {
    const given = parseAmount(sell, amount);
    if (given === 0) throw new MoneyError("The amount must be more than zero.", "amount");
    const fee = feeFor(plan, sell, feeKind, overrides);
    let sellMinor = given;
    let buyMinor = given - fee;
    if (fixed === "send") {
      if (buyMinor <= 0) {
        throw new MoneyError(`The amount must be more than the fee of ${formatAmount(sell, fee)} ${sell}.`, "amount");
      }
    } else {
      buyMinor = given;
      sellMinor = given + fee;
      if (sellMinor > MAX_SAFE) throw new MoneyError("The amount is too large.", "amount");
    }
    return {
      sell_currency: sell,
      buy_currency: buy,
      sell_minor: sellMinor,
      buy_minor: buyMinor,
      fee_minor: fee,
      markup_minor: null,
      mid_rate: null,
      rate: null,
      bps: 0,
      expires_at,
    };
  }
  let q;
  try {
    q = quote({
      sell,
      buy,
      amount,
      fixed: fixed === "send" ? "sell" : "buy",
      table: input.table,
      plan,
      overrides,
      now,
      validityMs,
      feeKind,
    });
  } catch (error) {
    // The conversion quote names its sides sell/buy; a payment's are the balance and the recipient.
    if (error instanceof MoneyError && error.field === "sell") throw new MoneyError(error.message, "sell_currency");
    throw error;
  }
  return {
    sell_currency: q.sell_currency,
    buy_currency: q.buy_currency,
    sell_minor: q.sell_minor,
    buy_minor: q.buy_minor,
    fee_minor: q.fee_minor,
    markup_minor: markupOf(q.sell_minor - q.fee_minor, q.buy_minor, q.mid_rate, sell, buy),
    mid_rate: q.mid_rate,
    rate: q.rate,
    bps: q.bps,
    expires_at,
  };
}

// markupOf lives with the conversion quote, which shows the markup too; payments keep importing it from here.
export { markupOf };
