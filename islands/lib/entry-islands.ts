/**
 * The layouts' islands (routes/layouts/parts.tsx): on every page that has islands, so they come
 * inside the hydration entry's chunk (islands/client.ts imports them) instead of as modules of
 * their own. The build leaves them out of its entries and the server names no module for them.
 */
export const ENTRY_ISLANDS = ["NotificationQueue", "ColorModeToggle"] as const;
export type EntryIsland = (typeof ENTRY_ISLANDS)[number];
