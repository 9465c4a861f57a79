import { useEffect, useState } from "react";
import type { ColorMode } from "../lib/constants.ts";
import { applyMode, storeMode, syncStoredMode } from "./lib/color-mode.ts";

const NEXT: Record<ColorMode, ColorMode> = { system: "light", light: "dark", dark: "system" };
const LABEL: Record<ColorMode, string> = { system: "System", light: "Light", dark: "Dark" };

function ModeIcon({ mode }: { mode: ColorMode }) {
  const common = {
    "aria-hidden": true,
    focusable: false,
    viewBox: "0 0 24 24",
    fill: "none",
    stroke: "currentColor",
    strokeWidth: 2,
    strokeLinecap: "round" as const,
    strokeLinejoin: "round" as const,
    className: "size-4 shrink-0",
  };
  if (mode === "light") {
    return (
      <svg {...common}>
        <circle cx="12" cy="12" r="4" />
        <path d="M12 2v2M12 20v2M4.93 4.93l1.41 1.41M17.66 17.66l1.41 1.41M2 12h2M20 12h2M4.93 19.07l1.41-1.41M17.66 6.34l1.41-1.41" />
      </svg>
    );
  }
  if (mode === "dark") {
    return (
      <svg {...common}>
        <path d="M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8z" />
      </svg>
    );
  }
  return (
    <svg {...common}>
      <rect x="2" y="4" width="20" height="13" rx="2" />
      <path d="M8 21h8M12 17v4" />
    </svg>
  );
}

/**
 * The colour-mode control: a button that cycles System → Light → Dark. The choice is stored in
 * local storage, mirrored into the cookie the server reads, and applied to <html data-theme> at
 * once. On a page that forces light or dark it is disabled and says so.
 */
export default function ColorModeToggle({ mode, forced }: { mode: ColorMode; forced: "light" | "dark" | null }) {
  const [current, setCurrent] = useState<ColorMode>(mode);

  useEffect(() => {
    // The cookie may have expired while local storage still holds the choice.
    const synced = syncStoredMode();
    if (synced) setCurrent(synced);
  }, []);

  if (forced) {
    return (
      <button
        type="button"
        disabled
        aria-label={`Colour mode: ${LABEL[forced]} (this page uses ${forced} mode)`}
        data-mode={forced}
        className="inline-flex cursor-not-allowed items-center gap-2 rounded-md px-3 py-2 text-sm font-medium text-neutral-600 dark:text-neutral-300"
      >
        <ModeIcon mode={forced} />
        <span>This page uses {forced} mode</span>
      </button>
    );
  }

  const next = NEXT[current];
  const choose = () => {
    if (!storeMode(next)) return;
    applyMode(next);
    setCurrent(next);
  };

  return (
    <button
      type="button"
      onClick={choose}
      aria-label={`Colour mode: ${LABEL[current]}`}
      title={`Switch to ${LABEL[next].toLowerCase()} mode`}
      data-mode={current}
      className="inline-flex items-center gap-2 rounded-md px-3 py-2 text-sm font-medium text-neutral-700 hover:bg-neutral-100 hover:text-neutral-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-primary-600 dark:text-neutral-200 dark:hover:bg-neutral-800 dark:hover:text-white"
    >
      <ModeIcon mode={current} />
      {/* On a phone the icon alone (the button's name says the mode): the header must fit 360 px. */}
      <span className="hidden sm:inline">{LABEL[current]}</span>
    </button>
  );
}
