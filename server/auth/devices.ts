import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { SecretBox } from "./encryption.ts";
import { sha256Hex } from "./tokens.ts";
import type { UserRow } from "./users.ts";

/**
 * A device that has passed the second factor for an account (decision 023): its browser keeps a
 * sealed note of it, which lets it through a pause of the account's sign-in (many failures from
 * several places), never through anything else: the password and the second factor are still
 * asked. Sealed with the app's key, so it can be neither read nor made elsewhere. The note is of
 * the password the account had then: a password changed or reset forgets every device known
 * before, as a bank does, since one of them may be the device of whoever knew the old password.
 */

export const DEVICE_COOKIE = "device";
const REMEMBERED_MS = 180 * 24 * 60 * 60 * 1000;

/** What a browser's note says: whom it passed the second factor for, under which password. */
export interface DeviceNote {
  user: number;
  /** A digest of the password hash then (a new password has a new hash, with its own salt). */
  password: string;
}

/** The password a note is of: a digest of its hash, so the note does not carry the hash itself. */
async function passwordOf(user: Pick<UserRow, "passwordHash">): Promise<string> {
  return (await sha256Hex(`device:${user.passwordHash ?? ""}`)).slice(0, 32);
}

/** After a passed second factor: this browser is a known device of the user for 180 days. */
export async function rememberDevice(
  c: Context,
  box: SecretBox,
  user: Pick<UserRow, "id" | "passwordHash">,
  options: { now: number; secure: boolean },
): Promise<void> {
  const note = { user: user.id, password: await passwordOf(user), at: options.now };
  setCookie(c, DEVICE_COOKIE, await box.seal(new TextEncoder().encode(JSON.stringify(note))), {
    path: "/api/",
    httpOnly: true,
    secure: options.secure,
    sameSite: "Strict",
    maxAge: REMEMBERED_MS / 1000,
  });
}

/** The note of the user this browser passed the second factor for within 180 days, or null. */
export async function knownDeviceOf(c: Context, box: SecretBox, now: number): Promise<DeviceNote | null> {
  const sealed = getCookie(c, DEVICE_COOKIE);
  if (!sealed || sealed.length > 300) return null;
  try {
    const note = JSON.parse(new TextDecoder().decode(await box.open(sealed)));
    const fresh = typeof note.at === "number" && note.at <= now && now - note.at < REMEMBERED_MS;
    // A note made before notes named their password is of no password: it is forgotten.
    return fresh && Number.isSafeInteger(note.user) && typeof note.password === "string"
      ? { user: note.user, password: note.password }
      : null;
  } catch {
    // Not one of ours, or made with another key.
    return null;
  }
}

/** Whether the note is of this user under the password they have now. */
export async function isKnownDevice(
  note: DeviceNote | null,
  user: Pick<UserRow, "id" | "passwordHash"> | null | undefined,
): Promise<boolean> {
  return !!note && !!user?.passwordHash && note.user === user.id && note.password === await passwordOf(user);
}
