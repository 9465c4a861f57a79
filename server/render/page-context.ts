import { createContext, useContext } from "react";
import type { ColorMode } from "../../lib/constants.ts";
import type { Notification } from "../../lib/notification.ts";
import type { SessionUser } from "../auth/session-user.ts";

/** What layouts and pages know about the request being rendered. */
export interface PageContext {
  /** The path with its query, as the visitor asked for it. */
  path: string;
  user: SessionUser | null;
  /** For an administrator acting on behalf of a customer: that customer, with their email. */
  onBehalf: (SessionUser & { cc_contact: string }) | null;
  /** The visitor's colour-mode preference (from its cookie), or the mode the route forces. */
  colorMode: ColorMode;
  /** Set when the route forces light or dark through its metadata. */
  forcedColorMode: "light" | "dark" | null;
  /** Notifications the server queued across the last redirect. */
  notifications: Notification[];
}

export const PageContextValue = createContext<PageContext | null>(null);

export function usePage(): PageContext {
  const page = useContext(PageContextValue);
  if (!page) throw new Error("usePage() outside a page render");
  return page;
}
