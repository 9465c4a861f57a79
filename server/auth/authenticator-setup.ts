import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { SecretBox } from "./encryption.ts";
import { totpKeyFromText, totpKeyText } from "./totp.ts";

/**
 * The authenticator key handed out at setup, remembered until a code from it turns the app on
 * (decision 072). Enabling accepts only a code for the key this browser was given, after the
 * password or a current code (decision 023): someone at an unattended, signed-in browser cannot put
 * an app of their own in place with a key they chose.
 *
 * Kept in a sealed cookie (AES-GCM with the app's key, as the `registration` and `device` cookies):
 * nothing is stored on the server before the key is in use, so there is no table, no migration and
 * nothing to clean up, and it works whichever instance answers. It names its user and lasts 10
 * minutes; HttpOnly and sealed, the page can neither read it nor make one.
 */

export const AUTHENTICATOR_SETUP_COOKIE = "authenticator-setup";
/** Long enough to scan the code and type the first one, short enough not to linger. */
export const SETUP_LASTS_MS = 10 * 60 * 1000;
/** The cookie goes only with the authenticator's calls. */
const PATH = "/api/account/totp";
/** Tells this note from the other sealed notes (device, registration): the same key seals them. */
const PURPOSE = "authenticator-setup";

/** After setup: this browser may turn the app on with this key, for this user, for 10 minutes. */
export async function rememberKeyBeingSetUp(
  c: Context,
  box: SecretBox,
  setup: { userId: number; key: Uint8Array },
  options: { now: number; secure: boolean },
): Promise<void> {
  const note = { purpose: PURPOSE, user: setup.userId, key: totpKeyText(setup.key), at: options.now };
  setCookie(c, AUTHENTICATOR_SETUP_COOKIE, await box.seal(new TextEncoder().encode(JSON.stringify(note))), {
    path: PATH,
    httpOnly: true,
    secure: options.secure,
    sameSite: "Strict",
    maxAge: SETUP_LASTS_MS / 1000,
  });
}

/** The key this browser was given at setup for this user in the last 10 minutes, or null. */
export async function keyBeingSetUp(
  c: Context,
  box: SecretBox,
  userId: number,
  now: number,
): Promise<Uint8Array | null> {
  const sealed = getCookie(c, AUTHENTICATOR_SETUP_COOKIE);
  if (!sealed || sealed.length > 500) return null;
  try {
    const note = JSON.parse(new TextDecoder().decode(await box.open(sealed)));
    const fresh = typeof note.at === "number" && note.at <= now && now - note.at < SETUP_LASTS_MS;
    if (note.purpose !== PURPOSE || note.user !== userId || !fresh || typeof note.key !== "string") return null;
    return totpKeyFromText(note.key);
  } catch {
    // Not one of ours, or sealed with another key.
    return null;
  }
}

/** Once the app is on (or off): the key is no longer being set up. */
export function forgetKeyBeingSetUp(c: Context): void {
  deleteCookie(c, AUTHENTICATOR_SETUP_COOKIE, { path: PATH });
}
