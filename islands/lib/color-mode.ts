/**
 * Colour mode in the browser. The preference (system | light | dark) lives in local storage under
 * COLOR_MODE_STORAGE_KEY and is mirrored into a cookie of the same name, which the server reads to
 * write <html data-theme="..."> before the first paint (no flash, no inline script).
 *
 * A page may force light or dark (the server writes <html data-forced-color-mode="...">); then the
 * forced mode stays applied whatever the visitor chooses, and the choice is only stored.
 */
import { COLOR_MODE_STORAGE_KEY, type ColorMode } from "../../lib/constants.ts";
import { colorModeCookie, colorModeFromCookieHeader, type ForcedColorMode, isColorMode } from "../../lib/color-mode.ts";

export { type ForcedColorMode, isColorMode, resolveForcedMode } from "../../lib/color-mode.ts";

/** The parts of Storage these functions use (localStorage by default). */
export type ModeStorage = Pick<Storage, "getItem" | "setItem">;
/** The parts of Document these functions use (document by default). */
export type ModeDocument = {
  cookie: string;
  documentElement: HTMLElement;
  location?: { protocol: string } | null;
};

const defaultStorage = (): ModeStorage | null => {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // storage disabled (privacy settings)
  }
};

/** The stored preference, or null when nothing valid is stored (or storage is unavailable). */
export function readStoredMode(storage: ModeStorage | null = defaultStorage()): ColorMode | null {
  if (!storage) return null;
  try {
    const value = storage.getItem(COLOR_MODE_STORAGE_KEY);
    return isColorMode(value) ? value : null;
  } catch {
    return null;
  }
}

/** The preference the cookie carries, or null. */
export function readCookieMode(doc: Pick<ModeDocument, "cookie"> = document): ColorMode | null {
  return colorModeFromCookieHeader(doc.cookie);
}

/** The mode the page forces (<html data-forced-color-mode>), or null. */
export function forcedModeOf(doc: Pick<ModeDocument, "documentElement"> = document): ForcedColorMode | null {
  const forced = doc.documentElement.dataset.forcedColorMode;
  return forced === "light" || forced === "dark" ? forced : null;
}

function writeCookie(mode: ColorMode, doc: ModeDocument) {
  doc.cookie = colorModeCookie(mode, { secure: doc.location?.protocol === "https:" });
}

/**
 * Stores a preference in local storage and mirrors it into the cookie. Anything but system, light
 * or dark is refused: nothing is written and it returns false. It does not apply the mode (see
 * applyMode). The cookie is still written when storage is unavailable, so the choice holds for
 * the server.
 */
export function storeMode(
  mode: unknown,
  storage: ModeStorage | null = defaultStorage(),
  doc: ModeDocument = document,
): mode is ColorMode {
  if (!isColorMode(mode)) return false;
  try {
    storage?.setItem(COLOR_MODE_STORAGE_KEY, mode);
  } catch {
    // Quota or privacy settings: the cookie below still carries the choice.
  }
  writeCookie(mode, doc);
  return true;
}

/**
 * Applies a mode to <html data-theme>, unless the page forces one: then the forced mode stays (and
 * is re-applied). Returns the mode now applied; an invalid mode changes nothing.
 */
export function applyMode(mode: ColorMode, doc: Pick<ModeDocument, "documentElement"> = document): ColorMode {
  const root = doc.documentElement;
  const forced = forcedModeOf(doc);
  const next = forced ?? (isColorMode(mode) ? mode : null);
  if (next && root.dataset.theme !== next) root.dataset.theme = next;
  return (root.dataset.theme as ColorMode | undefined) ?? "system";
}

/**
 * On load: when local storage holds a mode different from the cookie's (the cookie expired or was
 * cleared), apply the stored mode and rewrite the cookie. Returns the stored mode when it had to
 * sync, otherwise null.
 */
export function syncStoredMode(
  storage: ModeStorage | null = defaultStorage(),
  doc: ModeDocument = document,
): ColorMode | null {
  const stored = readStoredMode(storage);
  if (!stored || stored === readCookieMode(doc)) return null;
  writeCookie(stored, doc);
  applyMode(stored, doc);
  return stored;
}
