/**
 * Colour-mode rules shared by the server and the islands (SPEC.md sections 2 and 4). Pure: no DOM,
 * no server imports. The browser side (storage, cookie, <html data-theme>) is in
 * islands/lib/color-mode.ts.
 */
import { COLOR_MODE_STORAGE_KEY, COLOR_MODES, type ColorMode } from "./constants.ts";

/** A colour mode a route may force: never "system". */
export type ForcedColorMode = "light" | "dark";

/** The cookie mirrors the local-storage preference for a year, so the server can paint it first. */
export const COLOR_MODE_COOKIE_MAX_AGE_S = 365 * 24 * 60 * 60;

/** Whether a value is one of the colour modes a visitor can choose (system, light, dark). */
export function isColorMode(value: unknown): value is ColorMode {
  return typeof value === "string" && (COLOR_MODES as readonly string[]).includes(value);
}

/**
 * The colour mode a route forces, from its metadata: `{ colorMode: "light" | "dark" }` (or the bare
 * value). Forcing "system" is refused with a console warning and treated as not forced, as is any
 * other value; no metadata means not forced.
 */
export function resolveForcedMode(
  meta: { colorMode?: string | null } | string | null | undefined,
): ForcedColorMode | null {
  const value = typeof meta === "string" ? meta : meta?.colorMode;
  if (value === undefined || value === null) return null;
  if (value === "light" || value === "dark") return value;
  if (value === "system") {
    console.warn('A page cannot force colour mode "system"; it is treated as not forced.');
  } else {
    console.warn(`Unknown forced colour mode ${JSON.stringify(value)}; it is treated as not forced.`);
  }
  return null;
}

/**
 * The Set-Cookie / document.cookie text that mirrors a preference: path=/, SameSite=Lax, a year.
 * `secure` adds Secure (the islands pass it on https pages).
 */
export function colorModeCookie(mode: ColorMode, { secure = false }: { secure?: boolean } = {}): string {
  return `${COLOR_MODE_STORAGE_KEY}=${mode}; Path=/; Max-Age=${COLOR_MODE_COOKIE_MAX_AGE_S}; SameSite=Lax${
    secure ? "; Secure" : ""
  }`;
}

/** The colour mode in a Cookie header or document.cookie string, or null when absent or invalid. */
export function colorModeFromCookieHeader(cookieHeader: string | null | undefined): ColorMode | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== COLOR_MODE_STORAGE_KEY) continue;
    const value = part.slice(eq + 1).trim();
    return isColorMode(value) ? value : null;
  }
  return null;
}
