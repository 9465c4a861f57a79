import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { SecretBox } from "./encryption.ts";

/**
 * A registration in this browser, before its email address is confirmed (decision 023). A
 * registration signs nobody in: the browser keeps a sealed note of the address it registered and,
 * when that address was new, of the user it created. The note lets /verify say where the link went
 * and send it again, and lets the link, opened in this browser, sign the new user in. For an
 * address that already had an account it names no user, so it can never sign anyone in; sealed,
 * and of the same length either way, it does not tell which it is.
 */

export const REGISTRATION_COOKIE = "registration";
/** As long as the validation link. */
const LASTS_MS = 24 * 60 * 60 * 1000;

export interface Registration {
  email: string;
  /** The user created by this registration; null when the address already had an account. */
  userId: number | null;
}

export async function rememberRegistration(
  c: Context,
  box: SecretBox,
  registration: Registration,
  options: { now: number; secure: boolean },
): Promise<void> {
  // The id is padded so that the note is as long with a user as without.
  const note = { email: registration.email, user: String(registration.userId ?? 0).padStart(16, "0"), at: options.now };
  setCookie(c, REGISTRATION_COOKIE, await box.seal(new TextEncoder().encode(JSON.stringify(note))), {
    path: "/",
    httpOnly: true,
    secure: options.secure,
    sameSite: "Lax",
    maxAge: LASTS_MS / 1000,
  });
}

/** This browser's registration of the last 24 hours, or null. */
export async function registrationOf(c: Context, box: SecretBox, now: number): Promise<Registration | null> {
  const sealed = getCookie(c, REGISTRATION_COOKIE);
  if (!sealed || sealed.length > 1000) return null;
  try {
    const note = JSON.parse(new TextDecoder().decode(await box.open(sealed)));
    if (typeof note.email !== "string" || typeof note.at !== "number" || now - note.at >= LASTS_MS) return null;
    const userId = Number(note.user);
    return { email: note.email, userId: Number.isSafeInteger(userId) && userId > 0 ? userId : null };
  } catch {
    // Not one of ours, or sealed with another key.
    return null;
  }
}

export function forgetRegistration(c: Context): void {
  deleteCookie(c, REGISTRATION_COOKIE, { path: "/" });
}
