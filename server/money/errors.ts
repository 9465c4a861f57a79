/**
 * The one error class of server/money. Its message is written for the customer or administrator
 * ("GBP amounts have at most 2 decimal places.") and can be shown as it is; `field` names the
 * input it is about ("amount", "sell", "rates.USD", "tiers.1.up_to") when there is one, so a route
 * can answer a 400 with it.
 */
export class MoneyError extends Error {
  override name = "MoneyError";
  readonly field: string | undefined;

  constructor(message: string, field?: string) {
    super(message);
    this.field = field;
  }
}
