import type { Database } from "../../db/client.ts";
import { fetchEcbRates } from "./ecb.ts";
import { mergeRateTables } from "./rates.ts";
import { currentRates, saveRates } from "./store.ts";

/** How often the ECB's daily reference rates are read (they change once a working day). */
export const RATE_FEED_EVERY_MS = 6 * 60 * 60 * 1000;

/**
 * Reads the ECB daily reference rates and makes them current. Currencies the ECB does not publish
 * (AED, KWD, BHD) keep their previous rates, crossed into the new table. Nothing is written when
 * the feed has nothing newer than what we have.
 */
export async function refreshRates(
  db: Database,
  url: string,
  fetchFn: typeof fetch = fetch,
  now = new Date(),
): Promise<"updated" | "unchanged"> {
  const ecb = await fetchEcbRates(url, fetchFn);
  const current = await currentRates(db);
  // The embedded indicative set always gives way; any other table (the ECB's, an administrator's)
  // only to a newer day.
  if (current.source !== "indicative" && current.as_of >= ecb.as_of) return "unchanged";
  const { table } = mergeRateTables(current, ecb);
  await saveRates(db, table, null, now);
  return "updated";
}

/** Runs refreshRates now and then on a schedule; a failure is logged and retried at the next run. */
export function scheduleRateFeed(db: Database, url: string): () => void {
  const run = () =>
    refreshRates(db, url).then((result) => {
      if (result === "updated") console.log("[rates] ECB reference rates updated");
    }).catch((error) =>
      console.warn(`[rates] reading ${url} failed: ${error instanceof Error ? error.message : error}`)
    );
  run();
  const timer = setInterval(run, RATE_FEED_EVERY_MS);
  Deno.unrefTimer(timer);
  return () => clearInterval(timer);
}
