/**
 * The door to the notification queue for code outside the islands (a script of the page, a test
 * driving the browser): a `portal:notify` event on window. Islands call notify() directly.
 */
import { type NotificationColor, notifications, type NotificationStore } from "./notification-store.ts";

/** The window event non-React code dispatches to queue a notification. */
export const NOTIFY_EVENT = "portal:notify";

/** The detail of a `portal:notify` event. */
export interface NotifyEventDetail {
  title: string;
  description?: string;
  color?: NotificationColor;
  id?: string;
  timeout?: number | null;
}

/**
 * Lets non-React code queue a notification by dispatching
 * `new CustomEvent("portal:notify", { detail: { title, description?, color? } })` on window
 * (globalThis).
 * A detail without a text title is ignored with a console warning. Returns the function that stops
 * listening.
 */
export function listenForNotifyEvents(
  target: EventTarget = globalThis,
  store: NotificationStore = notifications,
): () => void {
  const onNotify = (event: Event) => {
    const detail = (event as CustomEvent<unknown>).detail as Partial<NotifyEventDetail> | null | undefined;
    if (!detail || typeof detail.title !== "string" || !detail.title.trim()) {
      console.warn(`Ignored a ${NOTIFY_EVENT} event without a title`, detail);
      return;
    }
    store.notify({
      title: detail.title,
      description: typeof detail.description === "string" ? detail.description : undefined,
      color: detail.color,
      id: typeof detail.id === "string" ? detail.id : undefined,
      timeout: typeof detail.timeout === "number" || detail.timeout === null ? detail.timeout : undefined,
    });
  };
  target.addEventListener(NOTIFY_EVENT, onNotify);
  return () => target.removeEventListener(NOTIFY_EVENT, onNotify);
}
