import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { FLASH_COOKIE, type Notification } from "../../lib/notification.ts";
import type { AppEnv } from "../env.ts";

/**
 * Queues a notification for the next page this visitor sees, so that a handler can redirect and
 * still tell the user what happened ("Payment approved").
 */
export function flash(c: Context<AppEnv>, notification: Omit<Notification, "id">): void {
  // This request's queue: what the visitor's cookie already held, plus every flash() so far.
  let queued = queues.get(c);
  if (!queued) queues.set(c, queued = readFlash(c));
  queued.push({ id: crypto.randomUUID(), ...notification });
  setCookie(c, FLASH_COOKIE, JSON.stringify(queued), {
    path: "/",
    httpOnly: true,
    sameSite: "Lax",
    // Over HTTPS only in production, as the session's cookie: it can carry what a refusal said.
    secure: c.get("config")?.appEnv === "production",
    maxAge: 60,
  });
}

const queues = new WeakMap<Context, Notification[]>();

/**
 * The queued notifications of this request, those it came with and those queued while answering it
 * (a session found ended, on the page it was found on); the cookie is cleared as they are taken.
 */
export function takeFlash(c: Context): Notification[] {
  const queued = queues.get(c) ?? readFlash(c);
  queues.delete(c);
  if (queued.length) deleteCookie(c, FLASH_COOKIE, { path: "/" });
  return queued;
}

/** How many notifications this request's page will show from the cookie (takeFlash), before the person's own. */
export function flashCount(c: Context): number {
  return (queues.get(c) ?? readFlash(c)).length;
}

function readFlash(c: Context): Notification[] {
  const raw = getCookie(c, FLASH_COOKIE);
  if (!raw) return [];
  try {
    const parsed = JSON.parse(raw);
    return Array.isArray(parsed)
      ? parsed.filter((n) => n && typeof n.title === "string" && typeof n.id === "string")
      : [];
  } catch {
    return [];
  }
}
