import type { Database } from "../../db/client.ts";
import { isRaised, raiseAlert } from "../alerts/alerts.ts";
import { queueRateCheck } from "../ratealerts/check.ts";
import { fetchEcbRates } from "./ecb.ts";
import { describeMove, largeMoves, rateProblems } from "./rate-sanity.ts";
import { mergeRateTables, type RateTable } from "./rates.ts";
import { currentRates, saveRates } from "./store.ts";

/**
 * What a reading of the feed did: made its rates current, found nothing newer, held a day that
 * moves some rate by more than RATE_CONFIRM_SHARE, or refused a day that cannot be right.
 */
export type FeedOutcome = "updated" | "unchanged" | "held" | "refused";

/**
 * Reads the ECB daily reference rates and makes them current. Currencies the ECB does not publish
 * (AED, KWD, BHD) keep their previous rates, crossed into the new table. Nothing is written when
 * the feed has nothing newer than what we have.
 *
 * The feed gets the checks an administrator's table gets (rate-sanity.ts): a day dated after today
 * or with a rate that cannot be a price is refused, and a day that moves a rate by more than
 * RATE_CONFIRM_SHARE from the current table is held; either is raised once as a rate_change alert
 * (the feed is read every 6 hours), and quotes keep the current rates until a person decides. A
 * large move away from the embedded indicative set is not held: those are approximate values,
 * labelled so, that any real day replaces.
 */
export async function refreshRates(
  db: Database,
  url: string,
  fetchFn: typeof fetch = fetch,
  now = new Date(),
): Promise<FeedOutcome> {
  const ecb = await fetchEcbRates(url, fetchFn);
  const current = await currentRates(db);
  // The embedded indicative set always gives way; any other table (the ECB's, an administrator's)
  // only to a newer day.
  if (current.source !== "indicative" && current.as_of >= ecb.as_of) return "unchanged";

  const problems = rateProblems(ecb, now);
  if (problems.length > 0) {
    await raiseOnce(db, ecb, now, "critical", {
      problems,
    }, `The ECB rates of ${ecb.as_of} were refused: ${problems.map((p) => p.message).join(" ")}`);
    return "refused";
  }
  const moves = current.source === "indicative" ? [] : largeMoves(current, ecb);
  if (moves.length > 0) {
    await raiseOnce(
      db,
      ecb,
      now,
      "warning",
      { changes: moves, rates: ecb.rates },
      `The ECB rates of ${ecb.as_of} are held, not applied: ${
        moves.map(describeMove).join("; ")
      }. Quotes keep the current rates until an administrator enters the rates (confirming the moves).`,
    );
    return "held";
  }
  const { table } = mergeRateTables(current, ecb);
  // The rate alerts are checked against this table, queued with it (decision 038).
  await db.transaction(async (tx) => queueRateCheck(tx, await saveRates(tx, table, null, now), now));
  return "updated";
}

/** A rate_change alert for this feed day, unless one is already open. */
async function raiseOnce(
  db: Database,
  ecb: RateTable,
  now: Date,
  severity: "warning" | "critical",
  details: Record<string, unknown>,
  message: string,
): Promise<void> {
  const about = { source: "ecb", as_of: ecb.as_of };
  await db.transaction(async (tx) => {
    if (await isRaised(tx, "rate_change", about)) return;
    await raiseAlert(
      tx,
      { kind: "rate_change", severity, subject: { ...about, base: ecb.base, ...details }, message },
      now,
    );
  });
}
