// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { createElement } from "react";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import ColorModeToggle from "../../islands/ColorModeToggle.tsx";
import {
  applyMode,
  readCookieMode,
  readStoredMode,
  resolveForcedMode,
  storeMode,
  syncStoredMode,
} from "../../islands/lib/color-mode.ts";
import { resolveForcedMode as serverResolveForcedMode } from "../../lib/color-mode.ts";
import { COLOR_MODE_STORAGE_KEY } from "../../lib/constants.ts";

const root = () => document.documentElement;

function clearCookie() {
  document.cookie = `${COLOR_MODE_STORAGE_KEY}=; Path=/; Max-Age=0`;
}

/** A document stand-in that keeps every cookie string written, attributes included. */
function recordingDoc() {
  const written: string[] = [];
  const documentElement = document.createElement("html");
  return {
    written,
    doc: {
      documentElement,
      location: { protocol: "https:" },
      get cookie() {
        return written.map((w) => w.split(";")[0]).join("; ");
      },
      set cookie(value: string) {
        written.push(value);
      },
    },
  };
}

beforeEach(() => {
  localStorage.clear();
  clearCookie();
  root().removeAttribute("data-theme");
  root().removeAttribute("data-forced-color-mode");
});
afterEach(() => cleanup());

describe("storing the preference", () => {
  test("a choice is kept in local storage and mirrored into the cookie the server reads", () => {
    expect(storeMode("dark")).toBe(true);
    expect(localStorage.getItem(COLOR_MODE_STORAGE_KEY)).toBe("dark");
    expect(readStoredMode()).toBe("dark");
    expect(document.cookie).toContain(`${COLOR_MODE_STORAGE_KEY}=dark`);
    expect(readCookieMode()).toBe("dark");
  });

  test("the cookie is site-wide, SameSite=Lax and lasts a year (Secure on https)", () => {
    const { doc, written } = recordingDoc();
    storeMode("light", localStorage, doc);
    expect(written).toHaveLength(1);
    const attrs = written[0].split(/;\s*/).map((a) => a.toLowerCase());
    expect(attrs[0]).toBe(`${COLOR_MODE_STORAGE_KEY}=light`);
    expect(attrs).toContain("path=/");
    expect(attrs).toContain("samesite=lax");
    expect(attrs).toContain(`max-age=${365 * 24 * 60 * 60}`);
    expect(attrs).toContain("secure");
  });

  test("anything but system, light or dark is refused and nothing is written", () => {
    storeMode("light");
    for (const bad of ["sepia", "", "DARK", null, undefined, 1]) {
      expect(storeMode(bad)).toBe(false);
    }
    expect(localStorage.getItem(COLOR_MODE_STORAGE_KEY)).toBe("light");
    expect(readCookieMode()).toBe("light");
  });

  test("a tampered stored value reads as no preference", () => {
    localStorage.setItem(COLOR_MODE_STORAGE_KEY, "neon");
    expect(readStoredMode()).toBeNull();
  });

  test("when the cookie is gone, the stored choice is applied and the cookie rewritten", () => {
    localStorage.setItem(COLOR_MODE_STORAGE_KEY, "dark");
    root().dataset.theme = "system"; // what the server wrote without the cookie
    expect(syncStoredMode()).toBe("dark");
    expect(root().dataset.theme).toBe("dark");
    expect(readCookieMode()).toBe("dark");
    // Nothing to do once they agree.
    expect(syncStoredMode()).toBeNull();
  });
});

describe("applying the mode", () => {
  test("sets <html data-theme>", () => {
    applyMode("dark");
    expect(root().dataset.theme).toBe("dark");
    applyMode("system");
    expect(root().dataset.theme).toBe("system");
  });

  test("a page that forces a mode keeps it whatever is chosen", () => {
    root().dataset.forcedColorMode = "light";
    root().dataset.theme = "light";
    expect(applyMode("dark")).toBe("light");
    expect(root().dataset.theme).toBe("light");
    // The choice is still stored for the other pages.
    storeMode("dark");
    expect(readStoredMode()).toBe("dark");
    localStorage.setItem(COLOR_MODE_STORAGE_KEY, "system");
    syncStoredMode();
    expect(root().dataset.theme).toBe("light");
  });
});

describe("forcing a mode from route metadata", () => {
  test("light and dark are forced; no metadata forces nothing", () => {
    expect(resolveForcedMode({ colorMode: "light" })).toBe("light");
    expect(resolveForcedMode({ colorMode: "dark" })).toBe("dark");
    expect(resolveForcedMode("dark")).toBe("dark");
    expect(resolveForcedMode({})).toBeNull();
    expect(resolveForcedMode(undefined)).toBeNull();
    expect(resolveForcedMode).toBe(serverResolveForcedMode);
  });

  test("forcing system is refused with a console warning and treated as not forced", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    expect(resolveForcedMode({ colorMode: "system" })).toBeNull();
    expect(warn).toHaveBeenCalledOnce();
    expect(String(warn.mock.calls[0][0])).toMatch(/system/);
  });
});

describe("the ColorModeToggle island", () => {
  test("cycles System → Light → Dark → System, storing and applying each choice", () => {
    render(createElement(ColorModeToggle, { mode: "system", forced: null }));
    const button = screen.getByRole("button", { name: "Colour mode: System" });
    fireEvent.click(button);
    expect(screen.getByRole("button", { name: "Colour mode: Light" })).toBe(button);
    expect(root().dataset.theme).toBe("light");
    expect(readStoredMode()).toBe("light");
    expect(readCookieMode()).toBe("light");
    fireEvent.click(button);
    expect(button.getAttribute("aria-label")).toBe("Colour mode: Dark");
    expect(root().dataset.theme).toBe("dark");
    fireEvent.click(button);
    expect(button.getAttribute("aria-label")).toBe("Colour mode: System");
    expect(readCookieMode()).toBe("system");
  });

  test("on a forced page it is disabled and says which mode the page uses", () => {
    root().dataset.forcedColorMode = "dark";
    render(createElement(ColorModeToggle, { mode: "light", forced: "dark" }));
    const button = screen.getByRole("button", { name: /Colour mode: Dark/ }) as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    expect(button.textContent).toContain("This page uses dark mode");
  });

  test("shows the stored choice when the cookie had expired", () => {
    localStorage.setItem(COLOR_MODE_STORAGE_KEY, "dark");
    act(() => {
      render(createElement(ColorModeToggle, { mode: "system", forced: null }));
    });
    expect(screen.getByRole("button", { name: "Colour mode: Dark" })).toBeTruthy();
    expect(readCookieMode()).toBe("dark");
  });
});
