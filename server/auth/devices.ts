import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { SecretBox } from "./encryption.ts";

/**
 * A device that has passed the second factor for an account (decision 023): its browser keeps a
 * sealed note of it, which lets it through a pause of the account's sign-in (many failures from
 * several places), never through anything else: the password and the second factor are still
 * asked. Sealed with the app's key, so it can be neither read nor made elsewhere.
 */

export const DEVICE_COOKIE = "device";
const REMEMBERED_MS = 180 * 24 * 60 * 60 * 1000;

/** After a passed second factor: this browser is a known device of the user for 180 days. */
export async function rememberDevice(
  c: Context,
  box: SecretBox,
  userId: number,
  options: { now: number; secure: boolean },
): Promise<void> {
  const note = new TextEncoder().encode(JSON.stringify({ user: userId, at: options.now }));
  setCookie(c, DEVICE_COOKIE, await box.seal(note), {
    path: "/api/",
    httpOnly: true,
    secure: options.secure,
    sameSite: "Strict",
    maxAge: REMEMBERED_MS / 1000,
  });
}

/** The user this browser passed the second factor for within 180 days, or null. */
export async function knownDeviceOf(c: Context, box: SecretBox, now: number): Promise<number | null> {
  const sealed = getCookie(c, DEVICE_COOKIE);
  if (!sealed || sealed.length > 200) return null;
  try {
    const note = JSON.parse(new TextDecoder().decode(await box.open(sealed)));
    const fresh = typeof note.at === "number" && note.at <= now && now - note.at < REMEMBERED_MS;
    return fresh && Number.isSafeInteger(note.user) ? note.user : null;
  } catch {
    // Not one of ours, or made with another key.
    return null;
  }
}
