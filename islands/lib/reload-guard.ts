import { RELOAD_GUARD_MS } from "../../lib/constants.ts";

const KEY = "island-reload-at";

/**
 * After a failed chunk load (usually a deploy replaced the files this page refers to) a reload
 * fetches the new page. It happens at most once per RELOAD_GUARD_MS, so a chunk that is really
 * broken cannot loop the page. Returns whether it reloaded.
 */
export function reloadAfterChunkFailure(
  storage: Pick<Storage, "getItem" | "setItem"> = sessionStorage,
  reload: () => void = () => location.reload(),
  now = Date.now(),
  windowMs = RELOAD_GUARD_MS,
): boolean {
  const last = Number(storage.getItem(KEY) ?? 0);
  if (now - last < windowMs) return false;
  storage.setItem(KEY, String(now));
  reload();
  return true;
}
