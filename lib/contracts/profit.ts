/**
 * The profit report (issue 11, item 7; docs/decisions/047): FX markup and fee income by period,
 * currency and partner, read from the ledger's house accounts; as JSON and as CSV.
 */
import { z } from "zod";
import { amountText, calendarDay, currencyCode } from "./common.ts";
import { defineCall } from "./define.ts";
import { CONSOLE_GUARDS } from "./guards.ts";

export const PROFIT_GROUPS = ["day", "week", "month"] as const;
export const PROFIT_BY = ["currency", "partner"] as const;

const date = (field: string) => calendarDay(field).optional();

/** What the report covers; the last 30 days (UTC) by day and by currency when nothing is given. */
export const profitQuery = z.object({
  /** The first day (UTC) included; 29 days before `to` unless given. */
  from: date("from"),
  /** The last day (UTC) included; today unless given. */
  to: date("to"),
  group: z.enum(PROFIT_GROUPS, { error: `group is one of ${PROFIT_GROUPS.join(", ")}.` }).optional().default("day"),
  by: z.enum(PROFIT_BY, { error: `by is one of ${PROFIT_BY.join(", ")}.` }).optional().default("currency"),
});

export const profitRow = z.object({
  /** The first day of the period, YYYY-MM-DD (a week starts on Monday, a month on the 1st). */
  period: z.string(),
  /** The currency of the income: what the customer sold (the fee and the markup are taken in it). */
  currency: currencyCode,
  /** The introducing partner, "No partner" for accounts none introduced; null in a report by currency. */
  partner: z.string().nullable(),
  /** What the rate's markup earned, signed (a refunded payment gives its markup back). */
  markup: amountText,
  /** The fees earned, signed (a refunded payment gives its fee back). */
  fees: amountText,
  /** markup + fees. */
  total: amountText,
});

export const profitAnswer = z.object({
  from: z.string(),
  to: z.string(),
  group: z.enum(PROFIT_GROUPS),
  by: z.enum(PROFIT_BY),
  rows: z.array(profitRow),
});

// Declared before any /console/profit/:x so that "profit.csv" is never read as something else.
export const profitCsv = defineCall({
  method: "GET",
  path: "/console/profit.csv",
  summary: "The profit report as CSV (text/csv): period, currency, partner, markup, fees, total; not JSON.",
  guards: CONSOLE_GUARDS,
  query: profitQuery,
  answer: z.string(),
});

export const profitReport = defineCall({
  method: "GET",
  path: "/console/profit",
  summary: "FX markup and fee income by day, week or month, by currency or by partner, from the ledger.",
  guards: CONSOLE_GUARDS,
  query: profitQuery,
  answer: profitAnswer,
});
