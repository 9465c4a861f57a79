import { InvalidInput } from "../errors.ts";
import { BalanceOutOfRange } from "../ledger/ledger.ts";
import { formatMinor } from "../../lib/money/amounts.ts";
import type { CurrencyCode } from "../../lib/money/currencies.ts";

/**
 * The refusals of server/money: input that breaks a money rule. Its message is written for the
 * customer or administrator ("GBP amounts have at most 2 decimal places.") and can be shown as it
 * is; `field` names the input it is about ("amount", "sell", "rates.USD", "tiers.1.up_to") when
 * there is one. Answered 422 (server/errors.ts).
 */
export class MoneyError extends InvalidInput {
  override name = "MoneyError";
}

/**
 * An amount that would take a balance beyond the most the ledger holds exactly, in the words of
 * `field`'s form (the input that carried it, when the caller knows): 422, and nothing was written (the
 * ledger refused inside the transaction).
 */
export function amountTooLarge(error: BalanceOutOfRange, field?: string): MoneyError {
  const currency = error.currency as CurrencyCode;
  return new MoneyError(
    `The amount ${formatMinor(currency, Math.abs(error.amount))} ${currency} is too large: it would take a balance ` +
      `beyond the most the ledger holds, ${formatMinor(currency, Number.MAX_SAFE_INTEGER)} ${currency}.`,
    field,
  );
}

/** Runs `movement`, refusing with amountTooLarge(…, field) when it would take a balance out of range. */
export async function withinLedgerRange<T>(field: string, movement: () => Promise<T>): Promise<T> {
  try {
    return await movement();
  } catch (error) {
    throw error instanceof BalanceOutOfRange ? amountTooLarge(error, field) : error;
  }
}
