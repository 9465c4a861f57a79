import { useEffect, useLayoutEffect, useMemo, useSyncExternalStore } from "react";
import type { Notification } from "../lib/notification.ts";
import { showCarried } from "./lib/carried-notification.ts";
import {
  type NotificationColor,
  notifications,
  snapshotOf,
  type VisibleNotification,
} from "./lib/notification-store.ts";
import { listenForNotifyEvents } from "./lib/notify-event.ts";

const ACCENT: Record<NotificationColor, string> = {
  info: "border-l-sky-600",
  success: "border-l-emerald-600",
  warning: "border-l-amber-500",
  error: "border-l-red-600",
};
const ICON_COLOR: Record<NotificationColor, string> = {
  info: "text-sky-700 dark:text-sky-300",
  success: "text-emerald-700 dark:text-emerald-300",
  warning: "text-amber-700 dark:text-amber-300",
  error: "text-red-700 dark:text-red-300",
};
/** Said before the title to screen readers, so the kind is not told by colour alone. */
const KIND_LABEL: Record<NotificationColor, string> = {
  info: "Information",
  success: "Success",
  warning: "Warning",
  error: "Error",
};

function KindIcon({ color }: { color: NotificationColor }) {
  const common = {
    "aria-hidden": true,
    focusable: false,
    viewBox: "0 0 24 24",
    fill: "none",
    stroke: "currentColor",
    strokeWidth: 2,
    strokeLinecap: "round" as const,
    strokeLinejoin: "round" as const,
    className: `mt-0.5 size-5 shrink-0 ${ICON_COLOR[color]}`,
  };
  switch (color) {
    case "success":
      return (
        <svg {...common}>
          <circle cx="12" cy="12" r="9" />
          <path d="m8 12 3 3 5-6" />
        </svg>
      );
    case "warning":
      return (
        <svg {...common}>
          <path d="M10.3 3.9 1.8 18a2 2 0 0 0 1.7 3h17a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0z" />
          <path d="M12 9v4M12 17h.01" />
        </svg>
      );
    case "error":
      return (
        <svg {...common}>
          <circle cx="12" cy="12" r="9" />
          <path d="m15 9-6 6M9 9l6 6" />
        </svg>
      );
    default:
      return (
        <svg {...common}>
          <circle cx="12" cy="12" r="9" />
          <path d="M12 11v5M12 8h.01" />
        </svg>
      );
  }
}

function Toast({ n }: { n: VisibleNotification }) {
  const color = n.color ?? "info";
  const motion = n.leaving ? "translate-y-1 opacity-0" : "translate-y-0 opacity-100";
  return (
    <li
      data-notification-id={n.id}
      data-color={color}
      data-leaving={n.leaving ? "true" : undefined}
      onMouseEnter={() => notifications.pause(n.id)}
      onMouseLeave={() => notifications.resume(n.id)}
      onFocus={() => notifications.pause(n.id)}
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) notifications.resume(n.id);
      }}
      className={`pointer-events-auto flex w-full items-start gap-3 rounded-lg border border-l-4 border-neutral-200 bg-white p-4 text-neutral-900 shadow-lg transition duration-200 ease-out starting:translate-y-1 starting:opacity-0 motion-reduce:transition-none dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-100 ${
        ACCENT[color]
      } ${motion}`}
    >
      <KindIcon color={color} />
      <div className="min-w-0 flex-1">
        <p className="text-sm font-semibold break-words">
          {color === "info" ? null : <span className="sr-only">{`${KIND_LABEL[color]}: `}</span>}
          <span>{n.title}</span>
        </p>
        {n.description
          ? (
            <p id={`${n.id}-text`} className="mt-1 text-sm break-words text-neutral-600 dark:text-neutral-300">
              {n.description}
            </p>
          )
          : null}
        {
          /* A link in the tab order (focus pauses the countdown); described by the text, since several
            toasts may each say "Open the payment". Never preloaded on hover or focus: a payment of
            another of the person's accounts switches the session to it when its page is fetched
            (decision 060), which only following the link may do. */
        }
        {n.link
          ? (
            <a
              href={n.link.href}
              data-no-preload
              aria-describedby={n.description ? `${n.id}-text` : undefined}
              className="mt-2 inline-block text-sm font-medium text-primary-700 underline hover:text-primary-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-primary-600 dark:text-primary-300"
            >
              {n.link.text}
            </a>
          )
          : null}
      </div>
      <button
        type="button"
        aria-label="Dismiss notification"
        onClick={() => notifications.dismiss(n.id)}
        className="-m-1 shrink-0 rounded-md p-1 text-neutral-600 hover:bg-neutral-100 hover:text-neutral-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-primary-600 dark:text-neutral-300 dark:hover:bg-neutral-800 dark:hover:text-white"
      >
        <svg
          aria-hidden="true"
          focusable="false"
          viewBox="0 0 24 24"
          fill="none"
          stroke="currentColor"
          strokeWidth={2}
          strokeLinecap="round"
          className="size-4"
        >
          <path d="M6 6l12 12M18 6 6 18" />
        </svg>
      </button>
    </li>
  );
}

/**
 * The page's notifications (toasts): at most five at once, the rest wait in order. `initial` are
 * the ones the server queued across a redirect: the server renders the first five of them, and the
 * client hydrates with the same (the server snapshot), then hands them to the queue. Non-React code
 * queues one with a `portal:notify` event on window.
 */
export default function NotificationQueue({ initial }: { initial: Notification[] }) {
  const serverSnapshot = useMemo(() => snapshotOf(initial ?? []), [initial]);
  const { visible } = useSyncExternalStore(
    notifications.subscribe,
    notifications.snapshot,
    () => serverSnapshot,
  );

  // A layout effect, so the store holds the server's notifications before the first paint after
  // hydration (no flash of an empty queue). Pushing the same ids twice updates them in place.
  useLayoutEffect(() => {
    for (const n of initial ?? []) notifications.notify(n);
  }, []);
  useEffect(() => {
    showCarried();
    return listenForNotifyEvents(globalThis);
  }, []);

  return (
    <section
      aria-label="Notifications"
      aria-live="polite"
      className="pointer-events-none fixed inset-x-0 bottom-0 z-50 flex justify-center p-4 sm:inset-x-auto sm:right-0 sm:justify-end"
    >
      <ol className="flex w-full max-w-sm flex-col gap-2">
        {visible.map((n) => <Toast key={n.id} n={n} />)}
      </ol>
    </section>
  );
}
