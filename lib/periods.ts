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

/**
 * What a date input may show of a day typed into the URL: the day when it is one (YYYY-MM-DD, a
 * real date), else nothing. A browser warns about, and shows empty, any other value; the page's
 * refusal names what was wrong.
 */
export function dateInputValue(value: string | null | undefined): string | undefined {
  if (!value || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const day = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === value ? value : undefined;
}
