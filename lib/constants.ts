/**
 * Business constants and limits of SPEC.md section 9, in one place.
 * Shared by the server and the islands, so it must stay free of server-only imports.
 */

/** Notifications: at most this many are shown at once; the rest wait in order. */
export const NOTIFICATIONS_MAX_VISIBLE = 5;
/** A removed notification stays this long (ms) so that it can animate out. */
export const NOTIFICATION_REMOVE_DELAY_MS = 200;

/** Every POST or PUT aborts the current request batch and opens a new one after this pause (ms). */
export const BATCH_RESET_PAUSE_MS = 100;

/** Clearing on-behalf mode waits this long (ms) before the mode is removed. */
export const ON_BEHALF_CLEAR_DELAY_MS = 1500;

/** After a failed island chunk load, the page reloads at most once in this window (ms). */
export const RELOAD_GUARD_MS = 10_000;

/** At most this many route preloads run at once. */
export const MAX_CONCURRENT_PRELOADS = 4;

/** Theme: one primary colour (orange or green) and a slate neutral. */
export const THEME = { primary: "orange", neutral: "slate" } as const satisfies {
  primary: "orange" | "green";
  neutral: "slate";
};

/** Avatar sizes in px. */
export const AVATAR_SIZES = {
  "3xs": 16,
  "2xs": 20,
  xs: 24,
  sm: 28,
  md: 32,
  lg: 36,
  xl: 40,
  "2xl": 44,
  "3xl": 48,
} as const;
export type AvatarSize = keyof typeof AVATAR_SIZES;

/** Colour modes a visitor can choose; the preference is kept in local storage under this key. */
export const COLOR_MODES = ["system", "light", "dark"] as const;
export type ColorMode = (typeof COLOR_MODES)[number];
export const COLOR_MODE_STORAGE_KEY = "color-mode";

/** Idempotency keys are kept at least this long (ms). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * A rate that moves by more than this share of its current value (0.1: 10 %) is applied only when
 * the administrator confirms that very move, and is then raised for a second administrator; the
 * ECB feed holds such a day instead of applying it (docs/decisions/025).
 */
export const RATE_CONFIRM_SHARE = 0.1;

/**
 * A rate is refused outright when it is more than this many times, or less than this fraction of,
 * the same pair's reference rate (the embedded indicative set): no confirmation makes it a price.
 */
export const RATE_SANE_FACTOR = 5;

/**
 * How long (hours) the rate of a payment converted on the way is guaranteed while it waits for
 * approval, counted from when it was confirmed (docs/decisions/092): a working day for an approver
 * in any time zone, yet short enough that the company does not sell a free currency option, as
 * approving only after the market moved the account's way would be. Past it the payment can no
 * longer be approved, and must be rejected or cancelled and prepared again at the day's rate.
 */
export const PENDING_PAYMENT_RATE_HOURS = 24;
