/** Rate alerts' fixed words and limits, shared by the schema, the contracts and the islands (decision 038). */

/** above: fires when the rate is at or above the target; below: at or below. */
export const RATE_ALERT_DIRECTIONS = ["above", "below"] as const;
export type RateAlertDirection = (typeof RATE_ALERT_DIRECTIONS)[number];

/** The most alerts an account keeps (fired ones count until deleted). */
export const RATE_ALERTS_PER_ACCOUNT = 20;
