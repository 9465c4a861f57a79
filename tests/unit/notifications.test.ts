// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import NotificationQueue from "../../islands/NotificationQueue.tsx";
import type { Notification } from "../../lib/notification.ts";
import { NOTIFICATION_REMOVE_DELAY_MS, NOTIFICATIONS_MAX_VISIBLE } from "../../lib/constants.ts";
import { carryToNextPage, showCarried } from "../../islands/lib/carried-notification.ts";
import {
  createNotificationStore,
  DEFAULT_TIMEOUT_MS,
  notifications,
  type NotificationStore,
} from "../../islands/lib/notification-store.ts";
import { listenForNotifyEvents, NOTIFY_EVENT } from "../../islands/lib/notify-event.ts";

const titles = (store: NotificationStore) => store.snapshot().visible.map((n) => n.title);

let store: NotificationStore;
beforeEach(() => {
  vi.useFakeTimers();
  store = createNotificationStore();
});
afterEach(() => {
  store.clear();
  vi.useRealTimers();
});

describe("notification queue", () => {
  test("the constants are those of the spec: five at once, 200 ms to leave", () => {
    expect(NOTIFICATIONS_MAX_VISIBLE).toBe(5);
    expect(NOTIFICATION_REMOVE_DELAY_MS).toBe(200);
  });

  test("six queued: five are shown in order, the sixth waits", () => {
    for (let i = 1; i <= 6; i++) store.notify({ title: `N${i}`, color: "error" });
    const { visible, queued } = store.snapshot();
    expect(visible.map((n) => n.title)).toEqual(["N1", "N2", "N3", "N4", "N5"]);
    expect(visible.every((n) => !n.leaving)).toBe(true);
    expect(queued.map((n) => n.title)).toEqual(["N6"]);
  });

  test("a dismissed one fades for 200 ms; only then does the sixth appear", () => {
    const ids = Array.from({ length: 6 }, (_, i) => store.notify({ title: `N${i + 1}`, color: "error" }));

    expect(store.dismiss(ids[1])).toBe(true);
    let snap = store.snapshot();
    expect(snap.visible.find((n) => n.id === ids[1])?.leaving).toBe(true);
    expect(titles(store)).toEqual(["N1", "N2", "N3", "N4", "N5"]);

    vi.advanceTimersByTime(NOTIFICATION_REMOVE_DELAY_MS - 1);
    expect(titles(store)).toEqual(["N1", "N2", "N3", "N4", "N5"]);
    expect(store.snapshot().queued.map((n) => n.title)).toEqual(["N6"]);

    vi.advanceTimersByTime(1);
    snap = store.snapshot();
    expect(snap.visible.map((n) => n.title)).toEqual(["N1", "N3", "N4", "N5", "N6"]);
    expect(snap.queued).toEqual([]);
  });

  test("the waiting ones come in the order they were queued", () => {
    const ids = Array.from({ length: 8 }, (_, i) => store.notify({ title: `N${i + 1}`, color: "error" }));
    store.dismiss(ids[4]);
    store.dismiss(ids[0]);
    vi.advanceTimersByTime(NOTIFICATION_REMOVE_DELAY_MS);
    expect(titles(store)).toEqual(["N2", "N3", "N4", "N6", "N7"]);
    expect(store.snapshot().queued.map((n) => n.title)).toEqual(["N8"]);
  });

  test("dismissing a waiting one drops it at once; unknown ids are refused", () => {
    const ids = Array.from({ length: 7 }, (_, i) => store.notify({ title: `N${i + 1}`, color: "error" }));
    expect(store.dismiss(ids[5])).toBe(true);
    expect(store.snapshot().queued.map((n) => n.title)).toEqual(["N7"]);
    expect(store.dismiss("nope")).toBe(false);
  });

  test("listeners hear every change and the snapshot only changes when the queue does", () => {
    const listener = vi.fn();
    const stop = store.subscribe(listener);
    const before = store.snapshot();
    expect(store.snapshot()).toBe(before);
    const id = store.notify({ title: "Saved" });
    expect(listener).toHaveBeenCalledTimes(1);
    expect(store.snapshot()).not.toBe(before);
    store.dismiss(id);
    vi.advanceTimersByTime(NOTIFICATION_REMOVE_DELAY_MS);
    expect(listener).toHaveBeenCalledTimes(3); // queued, leaving, removed
    stop();
    store.notify({ title: "Again" });
    expect(listener).toHaveBeenCalledTimes(3);
  });

  test("non-errors leave by themselves after 5 s; errors stay until dismissed", () => {
    store.notify({ title: "Saved", color: "success" });
    store.notify({ title: "Failed", color: "error" });
    store.notify({ title: "Quick", timeout: 1_000 });
    vi.advanceTimersByTime(1_000 + NOTIFICATION_REMOVE_DELAY_MS);
    expect(titles(store)).toEqual(["Saved", "Failed"]);
    vi.advanceTimersByTime(DEFAULT_TIMEOUT_MS);
    expect(titles(store)).toEqual(["Failed"]);
    vi.advanceTimersByTime(60_000);
    expect(titles(store)).toEqual(["Failed"]);
  });

  test("a waiting notification's countdown starts only when it is shown", () => {
    for (let i = 1; i <= 5; i++) store.notify({ title: `E${i}`, color: "error" });
    store.notify({ title: "Info" });
    vi.advanceTimersByTime(DEFAULT_TIMEOUT_MS * 2);
    expect(store.snapshot().queued.map((n) => n.title)).toEqual(["Info"]);
    store.dismiss(store.snapshot().visible[0].id);
    vi.advanceTimersByTime(NOTIFICATION_REMOVE_DELAY_MS);
    expect(titles(store)).toContain("Info");
    vi.advanceTimersByTime(DEFAULT_TIMEOUT_MS - 1);
    expect(titles(store)).toContain("Info");
  });

  test("a paused countdown holds, and runs on after resume", () => {
    const id = store.notify({ title: "Saved", timeout: 3_000 });
    vi.advanceTimersByTime(2_000);
    store.pause(id);
    vi.advanceTimersByTime(10_000);
    expect(titles(store)).toEqual(["Saved"]);
    store.resume(id);
    vi.advanceTimersByTime(1_000 + NOTIFICATION_REMOVE_DELAY_MS);
    expect(titles(store)).toEqual([]);
  });

  test("the same id twice is shown once, updated in place", () => {
    store.notify({ id: "flash-1", title: "Welcome" });
    store.notify({ id: "flash-1", title: "Welcome back" });
    expect(store.snapshot().visible.map((n) => [n.id, n.title])).toEqual([["flash-1", "Welcome back"]]);
  });
});

describe("portal:notify events", () => {
  test("a CustomEvent on window queues one", () => {
    const stop = listenForNotifyEvents(globalThis, store);
    globalThis.dispatchEvent(
      new CustomEvent(NOTIFY_EVENT, {
        detail: { title: "Rate alert", description: "EUR/GBP hit 0.85", color: "warning" },
      }),
    );
    expect(store.snapshot().visible).toEqual([
      expect.objectContaining({
        title: "Rate alert",
        description: "EUR/GBP hit 0.85",
        color: "warning",
        leaving: false,
      }),
    ]);
    stop();
    globalThis.dispatchEvent(new CustomEvent("portal:notify", { detail: { title: "Ignored" } }));
    expect(titles(store)).toEqual(["Rate alert"]);
  });

  test("an event without a title is ignored with a warning", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const stop = listenForNotifyEvents(globalThis, store);
    globalThis.dispatchEvent(new CustomEvent(NOTIFY_EVENT, { detail: { description: "no title" } }));
    stop();
    expect(titles(store)).toEqual([]);
    expect(warn).toHaveBeenCalledOnce();
  });
});

describe("the NotificationQueue island", () => {
  afterEach(() => {
    cleanup();
    notifications.clear();
  });

  const server = (n: number): Notification[] =>
    Array.from({ length: n }, (_, i) => ({ id: `s${i + 1}`, title: `Server ${i + 1}`, color: "error" as const }));

  test("the server shows the first five it queued; the client hydrates the same, then the sixth follows", () => {
    const initial = server(6);
    const html = renderToString(createElement(NotificationQueue, { initial }));
    const container = document.createElement("div");
    container.innerHTML = html;
    document.body.append(container);
    expect(container.querySelectorAll("li").length).toBe(5);
    expect(container.querySelector("[aria-live=polite]")).not.toBeNull();

    // A hydration mismatch would be a console.error, which fails the test.
    render(createElement(NotificationQueue, { initial }), { container, hydrate: true });
    const shown = () => screen.queryAllByRole("listitem").map((li) => li.dataset.notificationId);
    expect(shown()).toEqual(["s1", "s2", "s3", "s4", "s5"]);

    const buttons = screen.getAllByRole("button", { name: "Dismiss notification" });
    expect(buttons).toHaveLength(5);
    fireEvent.click(buttons[0]);
    const leaving = container.querySelector('[data-notification-id="s1"]')!;
    expect(leaving.getAttribute("data-leaving")).toBe("true");
    expect(leaving.className).toContain("opacity-0");
    act(() => void vi.advanceTimersByTime(NOTIFICATION_REMOVE_DELAY_MS - 1));
    expect(shown()).toEqual(["s1", "s2", "s3", "s4", "s5"]);
    act(() => void vi.advanceTimersByTime(1));
    expect(shown()).toEqual(["s2", "s3", "s4", "s5", "s6"]);
    expect(screen.getByText("Server 6")).toBeTruthy();
  });

  test("a payment's notification links to its page, reachable by keyboard and pausing while focused; never off the site", () => {
    const initial: Notification[] = [
      {
        id: "notification-7",
        title: "Payment approved",
        description: "Ada approved the payment of 110.93 EUR to Jean Dupont.",
        color: "success",
        link: { href: "/account/pendingpayments/12", text: "Open the payment" },
      },
      { id: "notification-8", title: "Elsewhere", link: { href: "//evil.example/x", text: "Open the payment" } },
    ];
    render(createElement(NotificationQueue, { initial }));
    const [link, ...others] = screen.getAllByRole("link", { name: "Open the payment" });
    expect(others, "a link off the site is dropped").toEqual([]);
    expect(link.getAttribute("href")).toBe("/account/pendingpayments/12");
    expect(link.tabIndex).toBe(0);
    // Its page may switch the session's account (decision 060): hovering must not fetch it ahead.
    expect(link.hasAttribute("data-no-preload")).toBe(true);
    expect(link.getAttribute("aria-describedby")).toBe("notification-7-text");
    expect(document.getElementById("notification-7-text")?.textContent).toContain("Jean Dupont");
    // Someone tabbing to the link has time to press it: the countdown holds while it has focus.
    act(() => link.focus());
    act(() => void vi.advanceTimersByTime(DEFAULT_TIMEOUT_MS * 2));
    expect(screen.getByRole("link", { name: "Open the payment" })).toBe(link);
  });

  test("it shows a notification dispatched as a portal:notify event, with its description", () => {
    render(createElement(NotificationQueue, { initial: [] }));
    act(() => {
      globalThis.dispatchEvent(
        new CustomEvent("portal:notify", { detail: { title: "Copied", description: "IBAN copied", color: "success" } }),
      );
    });
    const item = screen.getByRole("listitem");
    expect(item.dataset.color).toBe("success");
    expect(screen.getByText("Copied")).toBeTruthy();
    expect(screen.getByText("IBAN copied")).toBeTruthy();
  });
});

describe("a notification carried to the next page", () => {
  test("is shown once on the next page of the tab, then forgotten", () => {
    carryToNextPage({ title: "Please sign in.", color: "error" });
    showCarried(sessionStorage, store);
    expect(titles(store)).toEqual(["Please sign in."]);
    expect(store.snapshot().visible[0].color).toBe("error");
    showCarried(sessionStorage, store);
    expect(titles(store)).toEqual(["Please sign in."]);
  });

  test("storage that refuses it loses the message, not the navigation", () => {
    const full = {
      setItem: () => {
        throw new DOMException("full", "QuotaExceededError");
      },
    };
    expect(() => carryToNextPage({ title: "Lost" }, full)).not.toThrow();
  });
});
