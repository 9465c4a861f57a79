import Big from "big.js";
import { isCurrency } from "../money/currencies.ts";
import { crossRate, crossValue, rateDecimals, type RateTable } from "../money/rates.ts";

/**
 * The rate an alert watches (decision 038): the pair's MID-MARKET rate, "1 sell = x buy", printed
 * exactly as GET rates and the quote's mid_rate print it (rateDecimals places, half-even). Not the
 * customer rate: that depends on the amount (the plan's markup tiers) and on the account's plan,
 * and an alert has no amount. The printed value is what is compared with the target, so an alert
 * fires exactly when the rate the customer reads on any screen reaches it. Null when the table
 * cannot price the pair.
 */
export function watchedRate(table: RateTable, sell: string, buy: string): string | null {
  if (!isCurrency(sell) || !isCurrency(buy)) return null;
  try {
    const decimals = rateDecimals(crossRate(table, sell, buy));
    return crossValue(table, sell, buy, 1, decimals, Big.roundHalfEven).toFixed(decimals);
  } catch {
    return null;
  }
}

/** Whether `rate` is at or past `target` in `direction`. */
export function reached(rate: string, target: string, direction: "above" | "below"): boolean {
  const cmp = new Big(rate).cmp(new Big(target));
  return direction === "above" ? cmp >= 0 : cmp <= 0;
}
