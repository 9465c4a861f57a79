import { InvalidInput } from "../errors.ts";

/**
 * The refusals of server/money: input that breaks a money rule. Its message is written for the
 * customer or administrator ("GBP amounts have at most 2 decimal places.") and can be shown as it
 * is; `field` names the input it is about ("amount", "sell", "rates.USD", "tiers.1.up_to") when
 * there is one. Answered 422 (server/errors.ts).
 */
export class MoneyError extends InvalidInput {
  override name = "MoneyError";
}
