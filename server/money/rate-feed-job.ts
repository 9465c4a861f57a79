import { z } from "zod";
import { defineJob, PermanentJobFailure } from "../jobs/define.ts";
import { defineSchedule } from "../jobs/schedules.ts";
import { refreshRates } from "./rate-feed.ts";
import { log } from "../log.ts";

/**
 * The ECB feed as a scheduled job (server/jobs/): read every 6 hours (the rates change once a
 * working day, around 16:00 CET), once over every process, and at start when the last slot was
 * missed. A reading that fails is tried twice more with backoff; the next slot tries again anyway.
 * refreshRates writes nothing when the feed has nothing newer, so a repeated reading is harmless.
 */
export const rateFeedJob = defineJob("rates.ecb_feed", {
  payload: z.object({}),
  maxAttempts: 3,
  retry: { baseMs: 60_000, capMs: 15 * 60_000 },
  run: async (_payload, ctx) => {
    const url = ctx.deps.config.ratesUrl;
    if (!url) throw new PermanentJobFailure("No rate feed is configured (RATES_URL).");
    // The reading is abandoned when the runner stops, so the job is given back at once.
    const fetchUntilStopped: typeof fetch = (input, init) =>
      fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, ctx.signal]) : ctx.signal });
    const outcome = await refreshRates(ctx.db, url, fetchUntilStopped, ctx.now());
    if (outcome === "updated") log.info("rates: ECB reference rates updated");
    else if (outcome === "held" || outcome === "refused") {
      log.warn(`rates: ECB reference rates ${outcome}: see the console's rate_change alert`, { outcome });
    }
    return { outcome };
  },
});

export const rateFeedSchedule = defineSchedule("rates.ecb_feed", {
  pattern: "0 */6 * * *",
  job: rateFeedJob,
  payload: () => ({}),
});
