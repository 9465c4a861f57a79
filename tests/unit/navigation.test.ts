import { describe, expect, test } from "vitest";
import { MAX_CONCURRENT_PRELOADS, RELOAD_GUARD_MS } from "../../lib/constants.ts";
import { PreloadQueue } from "../../islands/lib/preload.ts";
import { reloadAfterChunkFailure } from "../../islands/lib/reload-guard.ts";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("route preloads", () => {
  test("at most four run at once; the rest wait in order", async () => {
    const started: string[] = [];
    const pending = new Map<string, ReturnType<typeof deferred>>();
    const queue = new PreloadQueue((href) => {
      started.push(href);
      const d = deferred();
      pending.set(href, d);
      return d.promise;
    });
    for (let i = 1; i <= 6; i++) queue.add(`/page/${i}`);
    expect(MAX_CONCURRENT_PRELOADS).toBe(4);
    expect(started).toEqual(["/page/1", "/page/2", "/page/3", "/page/4"]);

    pending.get("/page/2")!.resolve();
    await new Promise((r) => setTimeout(r, 0));
    expect(started).toEqual(["/page/1", "/page/2", "/page/3", "/page/4", "/page/5"]);
    expect(queue.running).toBe(4);
  });

  test("a failed preload frees its place, and an address is preloaded once", async () => {
    const started: string[] = [];
    const queue = new PreloadQueue((href) => {
      started.push(href);
      return Promise.reject(new Error("offline"));
    }, 1);
    queue.add("/a");
    queue.add("/a");
    queue.add("/b");
    await new Promise((r) => setTimeout(r, 0));
    expect(started).toEqual(["/a", "/b"]);
  });
});

describe("after a failed island chunk load", () => {
  test("the page reloads, but at most once in ten seconds", () => {
    const store = new Map<string, string>();
    const storage = {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v),
    };
    let reloads = 0;
    const reload = () => void reloads++;
    const t0 = 1_000_000;
    expect(RELOAD_GUARD_MS).toBe(10_000);
    expect(reloadAfterChunkFailure(storage, reload, t0)).toBe(true);
    expect(reloadAfterChunkFailure(storage, reload, t0 + 9_999)).toBe(false);
    expect(reloads).toBe(1);
    expect(reloadAfterChunkFailure(storage, reload, t0 + 10_000)).toBe(true);
    expect(reloads).toBe(2);
  });
});
