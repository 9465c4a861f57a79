/**
 * A page rendered for a visitor (nobody signed in: `<html data-visitor>`) that this browser shows
 * again once someone has signed in in it is out of date: Back from the account to the home page
 * brings the kept anonymous page (decision 058) out of the back/forward cache or the HTTP cache,
 * which neither asks the server, and it would offer the Sign in form to someone signed in. The
 * client's copy of the user (its `user` cookie, user-store.ts) says someone is, so the page is
 * loaded again, and the server renders it for them (decision 069).
 *
 * A page that comes back still a visitor's from that reload (the server was asked: the session
 * is gone, its cookie expired) makes the client forget its copy of the user, as a 401 does, so
 * it is reloaded once only.
 */
import { userStore } from "./user-store.ts";

const renderedForAVisitor = () => "visitor" in document.documentElement.dataset;

function reloadIfSignedInSince(restored: boolean): void {
  if (!renderedForAVisitor() || !userStore.get()) return;
  const navigation = performance.getEntriesByType?.("navigation")[0] as PerformanceNavigationTiming | undefined;
  if (!restored && navigation?.type === "reload") {
    userStore.clear();
    return;
  }
  location.reload();
}

/**
 * Checks the page as loaded now, and again each time the back/forward cache restores it; answers
 * the function that stops listening.
 */
export function reloadWhenSignedInSince(): () => void {
  reloadIfSignedInSince(false);
  const restored = (event: PageTransitionEvent) => {
    if (event.persisted) reloadIfSignedInSince(true);
  };
  addEventListener("pageshow", restored);
  return () => removeEventListener("pageshow", restored);
}
