/**
 * The notification (toast) queue, free of any framework (SPEC.md sections 4 and 9).
 *
 * - At most NOTIFICATIONS_MAX_VISIBLE are visible at once; the rest wait in order (first in, first
 *   shown).
 * - A dismissed notification is first marked `leaving` (so it can fade out) and is removed
 *   NOTIFICATION_REMOVE_DELAY_MS later; only then does the next queued one become visible. A leaving
 *   one still takes its place until it is gone.
 * - Auto-dismiss: a notification's `timeout` (ms) starts when it becomes visible, not while it
 *   waits. Default: errors stay until dismissed; every other kind goes after DEFAULT_TIMEOUT_MS.
 *   `timeout: 0` (or null) means never. pause(id) / resume(id) hold the countdown (the queue
 *   component pauses while the pointer or focus is on a notification).
 * - Notifying again with an id that is visible or waiting updates it in place instead of adding a
 *   copy, so pushing the server's notifications twice (a re-mount) shows each once.
 *
 * Timers are looked up on globalThis when used, so vitest's fake timers drive them. Why the queue
 * works this way: docs/decisions/017-the-notification-queue.md. Other ways in: notify-event.ts
 * (a window event, for code outside the islands) and carried-notification.ts (across a page load).
 */
import { NOTIFICATION_REMOVE_DELAY_MS, NOTIFICATIONS_MAX_VISIBLE } from "../../lib/constants.ts";
import type { Notification } from "../../lib/notification.ts";

export type { Notification } from "../../lib/notification.ts";
export type NotificationColor = NonNullable<Notification["color"]>;
export const NOTIFICATION_COLORS: readonly NotificationColor[] = ["info", "success", "warning", "error"];

/** Auto-dismiss delay (ms) for every kind but errors, unless a notification says otherwise. */
export const DEFAULT_TIMEOUT_MS = 5_000;

export type NotifyInput = Omit<Notification, "id"> & {
  id?: string;
  /** Auto-dismiss after this many ms once visible; 0 or null: never. Default: see DEFAULT_TIMEOUT_MS. */
  timeout?: number | null;
};
export type VisibleNotification = Notification & { leaving: boolean };
export interface NotificationSnapshot {
  visible: readonly VisibleNotification[];
  queued: readonly Notification[];
}
export type Listener = () => void;

export interface NotificationStore {
  /** Queues a notification (shown at once if there is room); returns its id. */
  notify(input: NotifyInput): string;
  /** Starts removing a notification: a visible one leaves, a queued one is dropped. False if unknown. */
  dismiss(id: string): boolean;
  /** Holds a visible notification's auto-dismiss countdown. */
  pause(id: string): void;
  /** Lets a paused countdown run on with the time it had left. */
  resume(id: string): void;
  /** Calls the listener after every change; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void;
  /** The current state; the same object until something changes. */
  snapshot(): NotificationSnapshot;
  /** Removes everything at once and stops all timers. */
  clear(): void;
}

export interface NotificationStoreOptions {
  maxVisible?: number;
  removeDelayMs?: number;
  /** Default auto-dismiss delay for a notification that sets none; null: never. */
  defaultTimeout?: (n: Notification) => number | null;
}

const defaultTimeoutFor = (n: Notification): number | null => n.color === "error" ? null : DEFAULT_TIMEOUT_MS;

interface Entry {
  notification: Notification;
  leaving: boolean;
  timeout: number | null;
  /** Auto-dismiss timer while it runs. */
  timer?: ReturnType<typeof setTimeout>;
  /** When the running auto-dismiss fires (Date.now() based), for pause. */
  deadline?: number;
  /** Time left while paused. */
  remaining?: number;
  paused?: boolean;
  /** Removal timer while leaving. */
  removal?: ReturnType<typeof setTimeout>;
}

let sequence = 0;
const newId = () => `n${Date.now().toString(36)}-${(++sequence).toString(36)}`;

/** A path of this site ("/account/…"), never "//elsewhere" or "/\elsewhere": a toast leads only within the portal. */
const sitePath = (href: unknown) => typeof href === "string" && /^\/(?![\/\\])/.test(href);

function clean(input: NotifyInput, id: string): Notification {
  const n: Notification = { id, title: String(input.title) };
  if (input.description !== undefined && input.description !== null && input.description !== "") {
    n.description = String(input.description);
  }
  if (input.color && NOTIFICATION_COLORS.includes(input.color)) n.color = input.color;
  if (input.link && sitePath(input.link.href) && input.link.text) {
    n.link = { href: input.link.href, text: String(input.link.text) };
  }
  return n;
}

/**
 * What the queue shows for a list pushed in order onto an empty store, with no timers: the first
 * `maxVisible` (after merging repeated ids) visible, the rest queued. The queue component's server
 * snapshot, so the server and the first client render agree with what the store will hold.
 */
export function snapshotOf(
  list: readonly Notification[],
  maxVisible = NOTIFICATIONS_MAX_VISIBLE,
): NotificationSnapshot {
  const byId = new Map<string, Notification>();
  for (const n of list) byId.set(n.id, clean(n, n.id));
  const all = [...byId.values()];
  return {
    visible: all.slice(0, maxVisible).map((n) => ({ ...n, leaving: false })),
    queued: all.slice(maxVisible),
  };
}

export function createNotificationStore(options: NotificationStoreOptions = {}): NotificationStore {
  const maxVisible = options.maxVisible ?? NOTIFICATIONS_MAX_VISIBLE;
  const removeDelayMs = options.removeDelayMs ?? NOTIFICATION_REMOVE_DELAY_MS;
  const timeoutFor = options.defaultTimeout ?? defaultTimeoutFor;

  const visible: Entry[] = [];
  const queued: Entry[] = [];
  const listeners = new Set<Listener>();
  let current: NotificationSnapshot = { visible: [], queued: [] };

  function emit() {
    current = {
      visible: visible.map((e) => ({ ...e.notification, leaving: e.leaving })),
      queued: queued.map((e) => e.notification),
    };
    for (const listener of [...listeners]) listener();
  }

  function startCountdown(entry: Entry, ms: number) {
    entry.deadline = Date.now() + ms;
    entry.timer = globalThis.setTimeout(() => {
      entry.timer = undefined;
      dismiss(entry.notification.id);
    }, ms);
  }

  function stopCountdown(entry: Entry) {
    if (entry.timer !== undefined) globalThis.clearTimeout(entry.timer);
    entry.timer = undefined;
  }

  /** Makes waiting notifications visible while there is room. */
  function promote() {
    while (visible.length < maxVisible && queued.length) {
      const entry = queued.shift()!;
      visible.push(entry);
      if (entry.timeout) startCountdown(entry, entry.timeout);
    }
  }

  function find(id: string): { entry: Entry; list: Entry[]; index: number } | null {
    for (const list of [visible, queued]) {
      const index = list.findIndex((e) => e.notification.id === id);
      if (index >= 0) return { entry: list[index], list, index };
    }
    return null;
  }

  function notify(input: NotifyInput): string {
    const id = input.id ?? newId();
    const notification = clean(input, id);
    const timeout = input.timeout === undefined ? timeoutFor(notification) : input.timeout;
    const normalized = typeof timeout === "number" && Number.isFinite(timeout) && timeout > 0 ? timeout : null;

    const found = find(id);
    if (found) {
      // Same id again: update in place; a visible one (even one leaving) stays and starts its
      // countdown afresh.
      const { entry, list } = found;
      if (entry.removal !== undefined) globalThis.clearTimeout(entry.removal);
      entry.removal = undefined;
      entry.leaving = false;
      entry.notification = notification;
      entry.timeout = normalized;
      if (list === visible) {
        stopCountdown(entry);
        entry.remaining = undefined;
        if (normalized) {
          if (entry.paused) entry.remaining = normalized;
          else startCountdown(entry, normalized);
        }
      }
      emit();
      return id;
    }

    const entry: Entry = { notification, leaving: false, timeout: normalized };
    queued.push(entry);
    promote();
    emit();
    return id;
  }

  function dismiss(id: string): boolean {
    const found = find(id);
    if (!found) return false;
    const { entry, list, index } = found;
    if (list === queued) {
      queued.splice(index, 1);
      emit();
      return true;
    }
    if (entry.leaving) return true;
    stopCountdown(entry);
    entry.leaving = true;
    entry.removal = globalThis.setTimeout(() => {
      entry.removal = undefined;
      const at = visible.indexOf(entry);
      if (at >= 0) visible.splice(at, 1);
      promote();
      emit();
    }, removeDelayMs);
    emit();
    return true;
  }

  function pause(id: string) {
    const found = find(id);
    if (!found || found.list !== visible || found.entry.leaving || found.entry.paused) return;
    const { entry } = found;
    entry.paused = true;
    if (entry.timer !== undefined) {
      entry.remaining = Math.max(0, (entry.deadline ?? Date.now()) - Date.now());
      stopCountdown(entry);
    }
  }

  function resume(id: string) {
    const found = find(id);
    if (!found || !found.entry.paused) return;
    const { entry } = found;
    entry.paused = false;
    if (entry.remaining !== undefined && !entry.leaving) {
      // Leave a moment to read it after the pointer moves away.
      startCountdown(entry, Math.max(entry.remaining, 1_000));
    }
    entry.remaining = undefined;
  }

  return {
    notify,
    dismiss,
    pause,
    resume,
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    snapshot: () => current,
    clear() {
      for (const entry of visible) {
        stopCountdown(entry);
        if (entry.removal !== undefined) globalThis.clearTimeout(entry.removal);
      }
      visible.length = 0;
      queued.length = 0;
      emit();
    },
  };
}

/** The page's queue: what notify() and the NotificationQueue island use. */
export const notifications: NotificationStore = createNotificationStore();

export const notify = (input: NotifyInput): string => notifications.notify(input);
export const dismiss = (id: string): boolean => notifications.dismiss(id);
export const subscribe = (listener: Listener): () => void => notifications.subscribe(listener);
export const snapshot = (): NotificationSnapshot => notifications.snapshot();
