import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { createApi, isAbort } from "../../islands/lib/api.ts";
import { anySignal, RequestBatch, resetBatchOnNavigation } from "../../islands/lib/batch.ts";
import { BATCH_RESET_PAUSE_MS } from "../../lib/constants.ts";
import { fakeFetch, track } from "./api-fake-fetch.ts";

/** A fresh batch and API per test, on the fake clock. */
function setup() {
  const server = fakeFetch();
  const batch = new RequestBatch();
  const api = createApi({ batch, navigate: vi.fn(), user: { clear: vi.fn() } });
  return { ...server, batch, api };
}

/** Lets pending promise callbacks run without moving the clock. */
const settle = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("a POST or PUT resets the request batch", () => {
  test("the pause is the one SPEC.md names", () => {
    expect(BATCH_RESET_PAUSE_MS).toBe(100);
    expect(new RequestBatch().pauseMs).toBe(100);
  });

  test("a save aborts the reads in flight at once; the save itself goes through", async () => {
    const { api, calls } = setup();
    const list = track(api.get("account/pendingpayments/all"));
    const one = track(api.get("account/pendingpayments/one", { id: 1 }));
    await settle();
    expect(calls).toHaveLength(2);

    const save = track(api.post("account/profile", { first: "Ann" }));
    await Promise.resolve(); // no timer moves: the abort is not delayed by the pause
    await Promise.resolve();
    expect(calls[0].aborted).toBe(true);
    expect(calls[1].aborted).toBe(true);
    await settle();
    expect(list.status).toBe("rejected");
    expect(isAbort(list.error)).toBe(true);
    expect((list.error as DOMException).name).toBe("AbortError");
    expect(isAbort(one.error)).toBe(true);

    calls[2].respond(200, { body: { saved: true } });
    await settle();
    expect(calls[2].aborted).toBe(false);
    expect(save.value).toEqual({ saved: true });
  });

  test("a read asked for 50 ms after a save is not aborted and starts when the new batch opens at 100 ms", async () => {
    const { api, calls } = setup();
    const start = Date.now();
    void api.put("account/pendingpayments/update", undefined, { query: { id: 4 } });
    await vi.advanceTimersByTimeAsync(50);

    const read = track(api.get("account/pendingpayments/one", { id: 4 }));
    await vi.advanceTimersByTimeAsync(49);
    expect(calls).toHaveLength(1); // only the PUT: the read waits for the new batch
    expect(read.status).toBe("pending");

    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(2);
    expect(calls[1].startedAt - start).toBe(100);
    expect(calls[1].init.signal?.aborted).toBe(false);

    calls[1].respond(200, { body: { id: 4, status: "updated" } });
    await settle();
    expect(read.status).toBe("resolved");
    expect(read.value).toEqual({ id: 4, status: "updated" });
  });

  test("the read that started in the new batch is aborted by the next save, as any read in flight", async () => {
    const { api, calls } = setup();
    void api.post("auth/logout");
    const read = track(api.get("account/whoami"));
    await vi.advanceTimersByTimeAsync(100);
    expect(calls).toHaveLength(2);

    void api.post("validation/resend");
    await settle();
    expect(isAbort(read.error)).toBe(true);
  });

  test("a second save during the pause restarts it, without aborting the reads that wait", async () => {
    const { api, calls } = setup();
    const start = Date.now();
    void api.post("account/onbehalf", { on_behalf_of: 3 });
    await vi.advanceTimersByTimeAsync(30);
    const read = track(api.get("account/onbehalf"));
    await vi.advanceTimersByTimeAsync(30);
    void api.post("account/profile", { first: "Ann" });

    await vi.advanceTimersByTimeAsync(99);
    expect(calls.map((c) => c.init.method)).toEqual(["POST", "POST"]);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(3);
    expect(calls[2].startedAt - start).toBe(160);
    expect(read.status).toBe("pending");
  });

  test("a DELETE leaves the batch alone (SPEC names post and put)", async () => {
    const { api, calls } = setup();
    const read = track(api.get("account/pendingpayments/all"));
    await settle();
    void api.delete("account/pendingpayments/one", { query: { id: 2 } });
    await settle();
    expect(calls[0].aborted).toBe(false);
    expect(read.status).toBe("pending");
  });

  test("a read waiting for the new batch can still be cancelled by its caller", async () => {
    const { api, calls } = setup();
    void api.post("auth/logout");
    const caller = new AbortController();
    const read = track(api.get("account/whoami", undefined, { signal: caller.signal }));
    await vi.advanceTimersByTimeAsync(10);
    caller.abort();
    await settle();
    expect(isAbort(read.error)).toBe(true);
    await vi.advanceTimersByTimeAsync(100);
    expect(calls).toHaveLength(1); // it never reached the server
  });

  test("the caller's signal aborts a read in flight as well as the batch's", async () => {
    const { api, calls } = setup();
    const caller = new AbortController();
    const read = track(api.get("account/whoami", undefined, { signal: caller.signal }));
    await settle();
    caller.abort();
    await settle();
    expect(calls[0].aborted).toBe(true);
    expect(isAbort(read.error)).toBe(true);
  });
});

describe("resetting the batch on navigation", () => {
  test("reset() aborts the reads in flight and the next read starts at once", async () => {
    const { api, calls, batch } = setup();
    const read = track(api.get("account/pendingpayments/all"));
    await settle();
    batch.reset();
    await settle();
    expect(isAbort(read.error)).toBe(true);

    void api.get("account/whoami");
    await settle();
    expect(calls).toHaveLength(2);
    expect(calls[1].aborted).toBe(false);
  });

  test("reset() during a pause drops the reads that wait and opens a fresh batch now", async () => {
    const { api, calls, batch } = setup();
    void api.post("auth/logout");
    const waiting = track(api.get("account/whoami"));
    await settle();
    batch.reset();
    await settle();
    expect(isAbort(waiting.error)).toBe(true);
    expect(batch.pausing).toBe(false);

    void api.get("account/pendingpayments/all");
    await settle();
    expect(calls.map((c) => c.url)).toEqual(["/api/auth/logout", "/api/account/pendingpayments/all"]);
  });

  test("pagehide resets the batch, wired once however many islands ask", async () => {
    const { api, calls, batch } = setup();
    const page = new EventTarget();
    const reset = vi.spyOn(batch, "reset");
    resetBatchOnNavigation(page, batch);
    resetBatchOnNavigation(page, batch);
    const read = track(api.get("account/pendingpayments/all"));
    await settle();

    page.dispatchEvent(new Event("pagehide"));
    await settle();
    expect(reset).toHaveBeenCalledTimes(1);
    expect(calls[0].aborted).toBe(true);
    expect(isAbort(read.error)).toBe(true);
  });
});

describe("anySignal", () => {
  test("aborts when either signal does, with AbortSignal.any and without it (older browsers)", () => {
    const native = AbortSignal.any;
    for (const any of [native, undefined]) {
      (AbortSignal as { any?: unknown }).any = any;
      try {
        const a = new AbortController();
        const b = new AbortController();
        const both = anySignal([a.signal, b.signal]);
        expect(both.aborted).toBe(false);
        b.abort();
        expect(both.aborted).toBe(true);
        expect(anySignal([a.signal, undefined])).toBe(a.signal);
      } finally {
        AbortSignal.any = native;
      }
    }
  });
});
