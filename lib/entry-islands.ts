/**
 * The layouts' islands (routes/layouts/parts.tsx): on every page that has islands, so they come
 * inside the hydration entry's chunk (islands/client.ts imports them) instead of as modules of
 * their own. The build leaves them out of its entries (vite.config.ts) and the server names no
 * module for them (server/render/assets.ts). In lib/ because the build, the server and the browser
 * all read it.
 */
export const ENTRY_ISLANDS = ["NotificationQueue", "ColorModeToggle"] as const;
export type EntryIsland = (typeof ENTRY_ISLANDS)[number];
