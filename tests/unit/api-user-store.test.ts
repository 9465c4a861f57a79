// @vitest-environment happy-dom
import { afterEach, describe, expect, test, vi } from "vitest";
import { createPersistedStore } from "../../islands/lib/user-store.ts";

afterEach(() => createPersistedStore("prefs", null).clear());

describe("persisted stores", () => {
  test("keep their value as JSON in a cookie named by the store id", () => {
    const store = createPersistedStore<{ currency: string; pinned: number[] } | null>("prefs", null);
    expect(store.get()).toBeNull();
    store.set({ currency: "EUR", pinned: [1, 2] });
    const cookie = document.cookie.split("; ").find((c) => c.startsWith("prefs="))!;
    expect(JSON.parse(decodeURIComponent(cookie.slice("prefs=".length)))).toEqual({ currency: "EUR", pinned: [1, 2] });
  });

  test("the value survives a page load (a new store with the same id reads it)", () => {
    createPersistedStore("prefs", { theme: "light" }).set({ theme: "dark" });
    expect(createPersistedStore("prefs", { theme: "light" }).get()).toEqual({ theme: "dark" });
  });

  test("writes the cookie for the whole site, a year, SameSite=Lax", () => {
    const writes: string[] = [];
    // The real setter, wherever on the prototype chain the DOM defines it.
    let proto = Object.getPrototypeOf(document);
    while (!Object.getOwnPropertyDescriptor(proto, "cookie")) proto = Object.getPrototypeOf(proto);
    const descriptor = Object.getOwnPropertyDescriptor(proto, "cookie")!;
    vi.spyOn(document, "cookie", "set").mockImplementation((text: string) => {
      writes.push(text);
      descriptor.set!.call(document, text);
    });
    createPersistedStore("prefs", 0).set(1);
    expect(writes[0]).toMatch(/^prefs=1; Path=\/; Max-Age=31536000; SameSite=Lax$/);
  });

  test("get() gives the same object until the value changes (safe for useSyncExternalStore)", () => {
    const store = createPersistedStore<{ n: number } | null>("prefs", null);
    store.set({ n: 1 });
    const first = store.get();
    expect(store.get()).toBe(first);
    store.set({ n: 2 });
    expect(store.get()).not.toBe(first);
    expect(store.get()).toEqual({ n: 2 });
  });

  test("subscribers hear every set and clear, until they unsubscribe", () => {
    const store = createPersistedStore<number | null>("prefs", null);
    const heard: (number | null)[] = [];
    const stop = store.subscribe((value) => heard.push(value));
    store.set(5);
    store.clear();
    stop();
    store.set(6);
    expect(heard).toEqual([5, null]);
  });

  test("clear() removes the cookie and goes back to the initial value", () => {
    const store = createPersistedStore("prefs", "none");
    store.set("some");
    store.clear();
    expect(document.cookie).not.toContain("prefs=");
    expect(store.get()).toBe("none");
  });

  test("an unreadable cookie counts as absent", () => {
    document.cookie = "prefs=%7Bnot json; Path=/";
    expect(createPersistedStore("prefs", "fallback").get()).toBe("fallback");
  });
});
