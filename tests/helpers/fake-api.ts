/**
 * The one fake server of the island tests: it stands in for fetch, records every call, and answers
 * from a route table or a function, at once, after a delay, or when the test says so. It honours
 * the request's AbortSignal as a browser's fetch does. (MSW's setupServer does not intercept fetch
 * under Deno here: decision 016.)
 *
 *   const calls = fakeApi({ "POST auth/login": [200, { body: alice, redirect: "/auth" }] });
 *   const calls = fakeApi((call) => call.path === "quote" ? [200, { body: quote }] : undefined); // open
 */
import { vi } from "vitest";
import { leavePage } from "../../islands/lib/query-client.tsx";

/** An answer: status, JSON (a string is sent as it is), status text. */
export type Answer = [status: number, json?: unknown, statusText?: string];

/** One call as the fake server saw it. */
export interface FakeCall {
  method: string;
  /** As fetched: "/api/quote?sell=GBP". */
  url: string;
  /** Under /api/, without the query: "quote". */
  path: string;
  query: Record<string, string>;
  body: unknown;
  headers: Headers;
  credentials: RequestCredentials | undefined;
  /** Date.now() when the fetch started (with fake timers, the test's clock). */
  startedAt: number;
  aborted: boolean;
  /** Answers a call left open. */
  respond(...answer: Answer): void;
}

/** A function of the call (undefined leaves it open for the test to answer), or "METHOD path" → answer. */
export type Routes = ((call: FakeCall) => Answer | undefined) | Record<string, Answer | ((call: FakeCall) => Answer)>;

function toResponse([status, json, statusText = ""]: Answer): Response {
  const text = json === undefined ? "" : typeof json === "string" ? json : JSON.stringify(json);
  return new Response(status === 204 ? null : text, {
    status,
    statusText,
    headers: { "Content-Type": "application/json" },
  });
}

function answerOf(routes: Routes, call: FakeCall): Answer | undefined {
  if (typeof routes === "function") return routes(call);
  const route = routes[`${call.method} ${call.path}`];
  if (route === undefined) return [404, { error: "Not found", message: "Not Found" }];
  return typeof route === "function" ? route(call) : route;
}

/**
 * Stubs fetch with the fake server; answers after `delayMs` (0: at once) unless a route leaves the
 * call open. Returns the calls, in order.
 */
export function fakeApi(routes: Routes = () => undefined, { delayMs = 0 }: { delayMs?: number } = {}): FakeCall[] {
  const calls: FakeCall[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn((url: string, init: RequestInit = {}) => {
      const parsed = new URL(url, "http://portal.test");
      return new Promise<Response>((resolve, reject) => {
        let settled = false;
        const signal = init.signal;
        const call: FakeCall = {
          method: init.method ?? "GET",
          url,
          path: parsed.pathname.replace(/^\/api\//, ""),
          query: Object.fromEntries(parsed.searchParams),
          body: typeof init.body === "string" ? JSON.parse(init.body) : undefined,
          headers: new Headers(init.headers),
          credentials: init.credentials,
          startedAt: Date.now(),
          aborted: false,
          respond(...answer) {
            if (settled) return;
            settled = true;
            signal?.removeEventListener("abort", abort);
            resolve(toResponse(answer));
          },
        };
        function abort() {
          if (settled) return;
          settled = true;
          call.aborted = true;
          reject(new DOMException("The operation was aborted.", "AbortError"));
        }
        calls.push(call);
        if (signal?.aborted) return abort();
        signal?.addEventListener("abort", abort, { once: true });
        const answer = answerOf(routes, call);
        if (!answer) return;
        if (delayMs > 0) setTimeout(() => call.respond(...answer), delayMs);
        else call.respond(...answer);
      });
    }),
  );
  return calls;
}

/** fetch that cannot reach the server at all (offline, DNS, a refused connection). */
export function unreachableServer(): void {
  vi.stubGlobal("fetch", vi.fn(() => Promise.reject(new TypeError("Failed to fetch"))));
}

/** A failure as the server answers it. */
export const failure = (status: number, error: string, extra: Record<string, unknown> = {}): Answer => [
  status,
  { error, message: "", ...extra },
];

/** Stops happy-dom from navigating: the API layer calls location.assign for redirects and 401s. */
export function stubNavigation() {
  return vi.spyOn(globalThis.location, "assign").mockImplementation(() => {});
}

/** Between tests: the page left (its queries, mutations and batch forgotten), fetch given back. */
export function resetIslands(): void {
  leavePage();
  vi.unstubAllGlobals();
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

/** A signed-in user's summary as the server answers it (SPEC.md section 3). */
export const alice = {
  id: 7,
  username: "alice@example.com",
  name: "",
  level: "User" as const,
  type: "Personal" as const,
  profile: false,
  validated: false,
  secondFactor: false,
  identity: false,
  account: false,
  restricted: false,
  account_ref: null,
  override_transfer_fee: false,
  override_priority_transfer_fee: null,
  override_regular_transfer_fee: null,
  affiliate: null,
};
