import { vi } from "vitest";

/** One call as the fake server saw it. */
export interface SeenCall {
  method: string;
  url: string;
  body: unknown;
  headers: Headers;
}

type Answer = [status: number, json?: unknown];
export type Routes = Record<string, Answer | ((call: SeenCall) => Answer)>;

/**
 * A fake server for the forms: `routes` maps "POST /api/auth/login" to [status, json] (or a
 * function of the call). Every fetch is recorded; an unknown route answers 404.
 */
export function fakeServer(routes: Routes) {
  const calls: SeenCall[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn((url: string, init: RequestInit = {}) => {
      const call: SeenCall = {
        method: init.method ?? "GET",
        url,
        body: typeof init.body === "string" ? JSON.parse(init.body) : undefined,
        headers: new Headers(init.headers),
      };
      calls.push(call);
      const route = routes[`${call.method} ${url}`];
      const [status, json] = typeof route === "function" ? route(call) : route ?? [404, { error: "Not found" }];
      const text = json === undefined ? "" : JSON.stringify(json);
      return Promise.resolve(new Response(text, { status, headers: { "Content-Type": "application/json" } }));
    }),
  );
  return calls;
}

/** Stops happy-dom from navigating: the API layer calls location.assign for redirects and 401s. */
export function stubNavigation() {
  return vi.spyOn(globalThis.location, "assign").mockImplementation(() => {});
}

/** A failure as the server answers it. */
export const failure = (status: number, error: string, extra: Record<string, unknown> = {}): Answer => [
  status,
  { error, message: "", ...extra },
];

export const alice = {
  id: 7,
  username: "alice@example.com",
  name: "",
  level: "User",
  type: "Personal",
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
