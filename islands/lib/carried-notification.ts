/**
 * A notification carried to the next page of this tab (sessionStorage): a call that ends in a full
 * navigation (a 401 sends the visitor to '/') would otherwise lose what it had to say. The server
 * does the same for its own notifications with the flash cookie (server/render/flash.ts).
 */
import { notifications, type NotificationStore, type NotifyInput } from "./notification-store.ts";

const CARRIED_KEY = "portal:carried-notification";

/** Keeps a notification for the next page of this tab. */
export function carryToNextPage(input: NotifyInput, storage: Pick<Storage, "setItem"> = sessionStorage): void {
  try {
    storage.setItem(CARRIED_KEY, JSON.stringify(input));
  } catch { /* storage full or disabled: the message is lost, the navigation is not */ }
}

/** Shows the notification carried from the previous page, once. */
export function showCarried(
  storage: Pick<Storage, "getItem" | "removeItem"> = sessionStorage,
  store: NotificationStore = notifications,
): void {
  let carried: NotifyInput | null = null;
  try {
    const raw = storage.getItem(CARRIED_KEY);
    storage.removeItem(CARRIED_KEY);
    carried = raw ? JSON.parse(raw) : null;
  } catch { /* nothing usable was carried */ }
  if (carried && typeof carried.title === "string") store.notify(carried);
}
