/**
 * A period given as two days (YYYY-MM-DD, UTC) by its filters `from` and `to`: every screen and call
 * that takes one refuses a period that ends before it starts, in the same words, naming `to`
 * (transactions, profit, referrals, the console's customers).
 */
export const DATES_REVERSED = "The date to is before the date from.";

/** The problem of a period that ends before it starts, or null (either day may be left out). */
export function reversedPeriod(from?: string | null, to?: string | null): { field: "to"; message: string } | null {
  return from && to && from > to ? { field: "to", message: DATES_REVERSED } : null;
}
