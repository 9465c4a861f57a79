/**
 * What makes a new rate table believable before quotes use it (issue 14, finding 6;
 * docs/decisions/025). Two checks, for an administrator's table and the ECB's alike:
 *
 * - Refused outright: a table dated after today (UTC), and a rate that is not a price at all, more
 *   than RATE_SANE_FACTOR times or less than 1/RATE_SANE_FACTOR of the same pair's reference rate
 *   (the embedded indicative set, INDICATIVE_RATES). 10.001 EUR per GBP, 0.001 or 1e-30 are refused
 *   whoever sends them.
 * - Large moves: a rate more than RATE_CONFIRM_SHARE away from the current table's rate of the
 *   same pair. An administrator must confirm each of them; the feed holds a day that has any.
 *
 * Rates are compared pair by pair, base → currency, as the new table states them; a currency the
 * new table leaves out keeps its rate and so does not move.
 */
import Big from "big.js";
import type { RateMove } from "../../db/schema-money.ts";
import { RATE_CONFIRM_SHARE, RATE_SANE_FACTOR } from "../../lib/constants.ts";
import { crossRate, formatRate, INDICATIVE_RATES, type RateTable } from "./rates.ts";

export type { RateMove };

export interface RateProblem {
  /** The input it is about: "as_of" or "rates.USD". */
  field: string;
  message: string;
}

/** Today's date in UTC, YYYY-MM-DD. */
export function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** The rates given in a table, other than its base's own. */
function givenRates(table: RateTable): Array<[string, Big]> {
  return Object.entries(table.rates).filter(([code]) => code !== table.base).map((
    [code, rate],
  ) => [code, new Big(rate)]);
}

/** The table's date and every rate that cannot be right, each with its field, in words. */
export function rateProblems(table: RateTable, now: Date): RateProblem[] {
  const problems: RateProblem[] = [];
  const today = utcDay(now);
  if (table.as_of > today) {
    problems.push({
      field: "as_of",
      message: `Rates cannot be dated after today: ${table.as_of} is later than ${today} (UTC).`,
    });
  }
  for (const [code, rate] of givenRates(table)) {
    const reference = crossRate(INDICATIVE_RATES, table.base, code);
    if (rate.gt(reference.times(RATE_SANE_FACTOR)) || rate.times(RATE_SANE_FACTOR).lt(reference)) {
      problems.push({
        field: `rates.${code}`,
        message: `The rate of ${code}, ${rate.toFixed()}, cannot be right: 1 ${table.base} is worth about ${
          formatRate(reference)
        } ${code}, and a rate more than ${RATE_SANE_FACTOR} times that or less than 1/${RATE_SANE_FACTOR} of it is refused.`,
      });
    }
  }
  return problems;
}

/**
 * The rates of `table` that move by more than RATE_CONFIRM_SHARE from `current`'s rate of the same
 * pair. A pair `current` cannot price (a currency it lacks) has nothing to move from.
 */
export function largeMoves(current: RateTable, table: RateTable): RateMove[] {
  const moves: RateMove[] = [];
  for (const [code, rate] of givenRates(table)) {
    let before: Big;
    try {
      before = crossRate(current, table.base, code);
    } catch {
      continue;
    }
    const share = rate.div(before).minus(1).abs();
    if (share.lte(RATE_CONFIRM_SHARE)) continue;
    moves.push({
      currency: code,
      pair: `${table.base}/${code}`,
      from: formatRate(before),
      to: formatRate(rate),
      percent: share.times(100).round(1, Big.roundHalfUp).toFixed(1),
    });
  }
  return moves;
}

/**
 * How far back an administrator's new rates are measured: moves are counted from every table in
 * force over the last day, so that a move split into steps of less than RATE_CONFIRM_SHARE each
 * still needs its confirmation and reaches a second administrator.
 */
export const RATE_MOVES_OVER_MS = 24 * 60 * 60 * 1000;

/**
 * The rates of `table` that move by more than RATE_CONFIRM_SHARE from the same pair's rate in any
 * of `tables` (the tables in force over a period), each with its largest move, in `table`'s order.
 */
export function largestMoves(tables: readonly RateTable[], table: RateTable): RateMove[] {
  const largest = new Map<string, { move: RateMove; share: Big }>();
  for (const earlier of tables) {
    for (const move of largeMoves(earlier, table)) {
      const share = new Big(move.to).div(move.from).minus(1).abs();
      const known = largest.get(move.currency);
      if (!known || share.gt(known.share)) largest.set(move.currency, { move, share });
    }
  }
  return givenRates(table).flatMap(([code]) => largest.get(code)?.move ?? []);
}

/** "EUR/GBP moves by 25.3 % (0.879000 → 1.101000)". */
export function describeMove(move: RateMove): string {
  return `${move.pair} moves by ${move.percent} % (${move.from} → ${move.to})`;
}
