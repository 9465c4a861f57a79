import { vi } from "vitest";

/**
 * A fake server for the API layer's tests: every fetch is recorded and stays open until the test
 * answers it, and it rejects with an AbortError when its signal aborts, as a browser's fetch does.
 */
export interface FakeCall {
  url: string;
  init: RequestInit;
  /** Date.now() when the fetch started (fake timers make this the test's clock). */
  startedAt: number;
  aborted: boolean;
  respond(status: number, json?: unknown, statusText?: string): void;
  result: Promise<unknown>;
}

export function fakeFetch(autoAnswer?: (call: FakeCall) => [number, unknown?, string?] | undefined) {
  const calls: FakeCall[] = [];
  const fetch = vi.fn((url: string, init: RequestInit = {}) => {
    let call!: FakeCall;
    const promise = new Promise<Response>((resolve, reject) => {
      call = {
        url,
        init,
        startedAt: Date.now(),
        aborted: false,
        respond(status, json, statusText = "") {
          const text = json === undefined ? "" : typeof json === "string" ? json : JSON.stringify(json);
          resolve(new Response(text, { status, statusText, headers: { "Content-Type": "application/json" } }));
        },
        result: undefined as unknown as Promise<unknown>,
      };
      const signal = init.signal;
      const abort = () => {
        call.aborted = true;
        reject(new DOMException("The operation was aborted.", "AbortError"));
      };
      if (signal?.aborted) abort();
      signal?.addEventListener("abort", abort, { once: true });
    });
    call.result = promise.catch(() => {});
    calls.push(call);
    const auto = autoAnswer?.(call);
    if (auto) call.respond(...auto);
    return promise;
  });
  vi.stubGlobal("fetch", fetch);
  return { calls, fetch };
}

/** The settled state of a promise, checked without waiting for it. */
export function track<T>(promise: Promise<T>) {
  const state: { status: "pending" | "resolved" | "rejected"; value?: T; error?: unknown } = { status: "pending" };
  promise.then(
    (value) => Object.assign(state, { status: "resolved", value }),
    (error) => Object.assign(state, { status: "rejected", error }),
  );
  return state;
}

/** The error a call rejects with, typed as the API layer's failure (the test asserts the class). */
export function failureOf(promise: Promise<unknown>): Promise<import("../../islands/lib/api.ts").ApiCallError> {
  return promise.then(
    () => {
      throw new Error("the call was expected to fail");
    },
    (error) => error,
  );
}
