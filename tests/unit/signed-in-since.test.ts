// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { reloadWhenSignedInSince } from "../../islands/lib/signed-in-since.ts";
import { userStore } from "../../islands/lib/user-store.ts";
import { alice } from "../helpers/fake-api.ts";

/**
 * A visitor's page shown again after this browser signed in (decision 069): the entry loads it
 * anew, once, so that the server renders it for the person signed in.
 */

let reload: ReturnType<typeof vi.fn<() => void>>;
let stop = () => {};
/** How the browser says this document was loaded (performance's navigation entry). */
const loadedBy = (type: NavigationTimingType) =>
  vi.spyOn(performance, "getEntriesByType").mockReturnValue([{ type } as unknown as PerformanceEntry]);

/** The back/forward cache shows the page again (happy-dom's PageTransitionEvent is a plain Event). */
function restoredFromTheCache() {
  const event = new Event("pageshow");
  Object.defineProperty(event, "persisted", { value: true });
  dispatchEvent(event);
}

beforeEach(() => {
  reload = vi.fn<() => void>();
  vi.spyOn(location, "reload").mockImplementation(reload);
  userStore.clear();
});
afterEach(() => {
  stop();
  vi.restoreAllMocks();
  delete document.documentElement.dataset.visitor;
  userStore.clear();
});

describe("a page rendered for a visitor", () => {
  beforeEach(() => {
    document.documentElement.dataset.visitor = "";
  });

  test("shown by Back (from the HTTP cache) after signing in is loaded anew", () => {
    loadedBy("back_forward");
    userStore.set(alice);
    stop = reloadWhenSignedInSince();
    expect(reload).toHaveBeenCalledOnce();
    expect(userStore.get()).toEqual(alice);
  });

  test("restored by the back/forward cache after signing in is loaded anew", () => {
    loadedBy("navigate");
    stop = reloadWhenSignedInSince();
    expect(reload).not.toHaveBeenCalled();
    // Signed in on the next page; Back restores this one as it was.
    userStore.set(alice);
    restoredFromTheCache();
    expect(reload).toHaveBeenCalledOnce();
  });

  test("for a visitor who is not signed in stays as it is", () => {
    loadedBy("back_forward");
    stop = reloadWhenSignedInSince();
    restoredFromTheCache();
    expect(reload).not.toHaveBeenCalled();
  });

  test("still a visitor's once loaded anew (the session is gone): the client forgets its user, and it stays", () => {
    loadedBy("reload");
    userStore.set(alice);
    stop = reloadWhenSignedInSince();
    expect(reload).not.toHaveBeenCalled();
    expect(userStore.get()).toBeNull();
  });
});

test("a page rendered for the person signed in is never loaded again for it", () => {
  loadedBy("back_forward");
  userStore.set(alice);
  stop = reloadWhenSignedInSince();
  restoredFromTheCache();
  expect(reload).not.toHaveBeenCalled();
});
