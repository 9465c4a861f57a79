/**
 * The client's copy of the session user summary, kept across page loads. SPEC.md section 9:
 * "Persisted state uses cookies by default, keyed by store id". A cookie (rather than local
 * storage) lets every page load, and every island on it, start from the same value.
 */

import type { SessionUser } from "../../lib/session-user.ts";

/** The session user summary of SPEC.md section 3, as account/whoami answers it. */
export type UserSummary = SessionUser;

export interface PersistedStore<T> {
  /** The current value; the same object until the value changes (as useSyncExternalStore needs). */
  get(): T;
  set(value: T): void;
  /** Back to the initial value, and the cookie removed. */
  clear(): void;
  /** Calls `listener` after every set or clear; returns the unsubscribe function. */
  subscribe(listener: (value: T) => void): () => void;
}

const ONE_YEAR_S = 365 * 24 * 60 * 60;

function readCookie(name: string): string | undefined {
  const prefix = `${name}=`;
  for (const part of document.cookie.split(/;\s*/)) {
    if (part.startsWith(prefix)) return part.slice(prefix.length);
  }
  return undefined;
}

/** `lifetime` is "Max-Age=…" to keep the cookie, or an Expires date in the past to remove it. */
function writeCookie(name: string, raw: string, lifetime: string): void {
  // Secure only over https, so the store still works on a plain-http development server.
  const secure = globalThis.location?.protocol === "https:" ? "; Secure" : "";
  document.cookie = `${name}=${raw}; Path=/; ${lifetime}; SameSite=Lax${secure}`;
}

/** A value kept as JSON in the cookie named `id`, for a year, on every path of the site. */
export function createPersistedStore<T>(id: string, initial: T): PersistedStore<T> {
  const listeners = new Set<(value: T) => void>();
  // The cookie text last read or written, and its parsed value: get() re-parses only when the
  // cookie changed (another tab, the server), so it returns a stable object in between.
  let raw: string | undefined;
  let value = initial;
  // Without a document (server rendering) the value lives in memory only.
  const hasDocument = () => typeof document !== "undefined";

  const notify = () => {
    for (const listener of listeners) listener(value);
  };

  return {
    get() {
      if (!hasDocument()) return value;
      const now = readCookie(id);
      if (now !== raw) {
        raw = now;
        value = now === undefined ? initial : parse(now, initial);
      }
      return value;
    },
    set(next) {
      value = next;
      if (hasDocument()) {
        raw = encodeURIComponent(JSON.stringify(next));
        writeCookie(id, raw, `Max-Age=${ONE_YEAR_S}`);
      }
      notify();
    },
    clear() {
      value = initial;
      if (hasDocument()) {
        raw = undefined;
        // A past date rather than Max-Age=0, which some cookie jars (happy-dom) keep for a moment.
        writeCookie(id, "", "Expires=Thu, 01 Jan 1970 00:00:00 GMT");
      }
      notify();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

function parse<T>(raw: string, fallback: T): T {
  try {
    return JSON.parse(decodeURIComponent(raw)) as T;
  } catch {
    // A cookie we cannot read (hand-edited, older format) counts as absent.
    return fallback;
  }
}

/** The signed-in user, or null when logged out. Cleared by api.ts on any 401. */
export const userStore: PersistedStore<UserSummary | null> = createPersistedStore<UserSummary | null>(
  "user",
  null,
);
