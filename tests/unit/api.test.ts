// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import {
  ApiCallError,
  call,
  type CallShape,
  codeOf,
  createApi,
  FALLBACK_ERROR,
  isAbort,
  newIdempotencyKey,
} from "../../islands/lib/api.ts";
import { toQueryString } from "../../islands/lib/query-string.ts";
import { userStore, type UserSummary } from "../../islands/lib/user-store.ts";
import { type Answer, failureOf, fakeApi, unreachableServer } from "../helpers/fake-api.ts";

const alice: UserSummary = {
  id: 7,
  username: "alice@example.com",
  name: "Alice Martin",
  level: "User",
  type: "Personal",
  profile: true,
  validated: true,
  secondFactor: true,
  identity: true,
  account: true,
  restricted: false,
  account_ref: "ACC-7",
  override_transfer_fee: false,
  override_priority_transfer_fee: null,
  override_regular_transfer_fee: null,
  affiliate: null,
};

function setup(answer: Answer, path = "/account") {
  const calls = fakeApi(() => answer);
  const navigate = vi.fn();
  const api = createApi({ navigate, currentPath: () => path });
  return { calls, navigate, api };
}

/** A call as an island names it, its shape loose (what is tested here is the transport). */
const get = (path: string) => call<CallShape & { method: "GET"; query: Record<string, unknown> }>("GET", path);
const post = (path: string) => call<CallShape & { method: "POST"; body: unknown }>("POST", path);
const put = (path: string) => call<CallShape & { method: "PUT"; query: Record<string, unknown> }>("PUT", path);
const del = (path: string) => call<CallShape & { method: "DELETE"; query: Record<string, unknown> }>("DELETE", path);

beforeEach(() => userStore.clear());
afterEach(() => vi.unstubAllGlobals());

describe("GET query objects", () => {
  test("primitives go as they are, nested values as JSON, absent values not at all", () => {
    const text = toQueryString({
      page: 2,
      active: true,
      name: "Ann & Bob",
      filter: { currency: ["EUR", "USD"], min: 10 },
      ids: [1, 2],
      skipped: null,
      missing: undefined,
    });
    const params = new URLSearchParams(text);
    expect(params.get("page")).toBe("2");
    expect(params.get("active")).toBe("true");
    expect(params.get("name")).toBe("Ann & Bob");
    expect(JSON.parse(params.get("filter")!)).toEqual({ currency: ["EUR", "USD"], min: 10 });
    expect(JSON.parse(params.get("ids")!)).toEqual([1, 2]);
    expect(params.has("skipped")).toBe(false);
    expect(params.has("missing")).toBe(false);
  });

  test("an empty query adds nothing to the address", async () => {
    const { api, calls } = setup([200, { body: [] }]);
    await api.send(get("/account/pendingpayments/all"), { query: {} });
    expect(calls[0].url).toBe("/api/account/pendingpayments/all");
  });

  test("a GET puts the query on the /api/ address", async () => {
    const { api, calls } = setup([200, { body: [] }]);
    await api.send(get("/account/pendingpayments/paginated"), {
      query: { page: 2, sort: { by: "date", dir: "desc" } },
    });
    const url = new URL(calls[0].url, "http://portal.test");
    expect(url.pathname).toBe("/api/account/pendingpayments/paginated");
    expect(url.searchParams.get("page")).toBe("2");
    expect(JSON.parse(url.searchParams.get("sort")!)).toEqual({ by: "date", dir: "desc" });
    expect(calls[0].method).toBe("GET");
    expect(calls[0].credentials).toBe("same-origin");
  });

  test("a PUT addressed by id carries its query too", async () => {
    const { api, calls } = setup([200, { body: { id: 5 } }]);
    await api.send(put("/account/pendingpayments/update"), { query: { id: 5 } });
    expect(calls[0].url).toBe("/api/account/pendingpayments/update?id=5");
    expect(calls[0].method).toBe("PUT");
    expect(calls[0].body).toEqual({});
  });

  test("a path's :name segments are filled from the params, encoded", async () => {
    const { api, calls } = setup([200, { body: {} }]);
    await api.send(post("/console/receipts/:id/allocate"), { params: { id: "7/8" }, body: { account_ref: "P1" } });
    expect(calls[0].url).toBe("/api/console/receipts/7%2F8/allocate");
  });
});

describe("answers", () => {
  test("the caller gets the body, and no navigation happens without a redirect", async () => {
    const { api, navigate } = setup([200, { body: { user: alice } }]);
    await expect(api.send(get("/account/whoami"))).resolves.toEqual({ user: alice });
    expect(navigate).not.toHaveBeenCalled();
  });

  test("a redirect in the answer is followed, and the body still returned", async () => {
    const { api, navigate, calls } = setup([200, { body: alice, redirect: "/auth" }]);
    const body = await api.send(post("/auth/login"), { body: { email: "alice@example.com", password: "s3cret!" } });
    expect(body).toEqual(alice);
    expect(navigate).toHaveBeenCalledWith("/auth");
    expect(calls[0].body).toEqual({ email: "alice@example.com", password: "s3cret!" });
    expect(calls[0].headers.get("Content-Type")).toBe("application/json");
  });

  test("a document (a bank's statement file) goes as it is, with its own media type", async () => {
    const { api, calls } = setup([200, { body: { message_id: "M1" } }]);
    const file = new Blob(["<Document/>"], { type: "application/xml" });
    await api.send(post("/console/receipts/import"), { document: { type: "application/xml", content: file } }, {
      idempotencyKey: "k-1",
    });
    expect(calls[0].headers.get("Content-Type")).toBe("application/xml");
    expect(calls[0].headers.get("Idempotency-Key")).toBe("k-1");
    const sent = vi.mocked(fetch).mock.calls[0][1]?.body;
    expect(sent).toBe(file);
  });

  test("a failure exposes the text for the user, the status message and the failing fields", async () => {
    const { api } = setup([
      422,
      { error: "Please correct the form.", message: "Unprocessable Content", fields: { amount: "Required" } },
    ]);
    const err = await failureOf(api.send(post("/account/profile"), { body: { first: "" } }));
    expect(err).toBeInstanceOf(ApiCallError);
    expect(err.status).toBe(422);
    expect(err.error).toBe("Please correct the form.");
    expect(err.message).toBe("Unprocessable Content");
    expect(err.fields).toEqual({ amount: "Required" });
  });

  test("a refusal's code is kept, for a screen that decides on it rather than on the words", async () => {
    const { api } = setup([
      409,
      { error: "This quote has expired. Get a new quote.", message: "Conflict", code: "quote_expired" },
    ]);
    const err = await failureOf(api.send(post("/account/conversions"), { body: { quote_id: "q" } }));
    expect(codeOf(err)).toBe("quote_expired");
    expect(codeOf(new Error("not a call"))).toBeUndefined();
  });

  test("a failure without text falls back to the generic message and the HTTP status text", async () => {
    const { api } = setup([502, "<html>Bad gateway</html>", "Bad Gateway"]);
    const err = await failureOf(api.send(get("/account/whoami")));
    expect(err.error).toBe(FALLBACK_ERROR);
    expect(err.error).toBe("An error occurred. Please try again later");
    expect(err.message).toBe("Bad Gateway");
  });

  test("a refusal that names a redirect (a guard's 403) sends the visitor there", async () => {
    const { api, navigate } = setup([
      403,
      { error: "You cannot do this yet.", message: "Forbidden", redirect: "/second-factor" },
    ]);
    await expect(api.send(get("/account/pendingpayments/all"))).rejects.toMatchObject({ status: 403 });
    expect(navigate).toHaveBeenCalledWith("/second-factor");
  });

  test("every call names the account the page shows (its header's account_ref); a page with none sends none", async () => {
    const calls = fakeApi(() => [200, { body: {} }]);
    document.body.innerHTML = '<header><span data-current-account="B12345678">Acme</span></header>';
    await createApi({ navigate: vi.fn() }).send(post("/account/conversions/quote"), { body: {} });
    document.body.innerHTML = "";
    await createApi({ navigate: vi.fn() }).send(get("/currencies"));
    expect(calls.map((c) => c.headers.get("X-Account-Ref"))).toEqual(["B12345678", null]);
  });

  test("a call refused because the session now works on another account loads the page again for it, with the reason", async () => {
    const reason = "You switched to Olga Owner (P00000001) in another window, so nothing was done here: " +
      "the page has been loaded again.";
    fakeApi(() => [409, { error: reason, message: "Conflict", code: "account_changed" }]);
    const navigate = vi.fn();
    const api = createApi({ navigate, currentPage: () => "/account/transactions?currency=EUR" });
    const err = await failureOf(api.send(post("/account/conversions")));
    expect(err).toMatchObject({ status: 409, code: "account_changed", error: reason });
    // The same page, its filters kept, for the account the session works on now.
    expect(navigate).toHaveBeenCalledWith("/account/transactions?currency=EUR&reloaded=account_changed");
    expect(sessionStorage.getItem("portal:carried-notification")).toContain("You switched to Olga Owner");
  });

  test("an unreachable server is an ApiCallError with status 0, not an abort", async () => {
    unreachableServer();
    const api = createApi({ navigate: vi.fn() });
    const err = await failureOf(api.send(get("/account/whoami")));
    expect(err).toBeInstanceOf(ApiCallError);
    expect(err.status).toBe(0);
    expect(err.error).toBe(FALLBACK_ERROR);
    expect(isAbort(err)).toBe(false);
  });
});

describe("a 401 on any call", () => {
  test("clears the stored user and sends the visitor to '/'", async () => {
    userStore.set(alice);
    expect(document.cookie).toContain("user=");
    const { api, navigate } = setup([401, { error: "Please sign in.", message: "Unauthorized", redirect: "/x" }]);
    const err = await failureOf(api.send(get("/account/pendingpayments/all")));
    expect(err.status).toBe(401);
    expect(userStore.get()).toBeNull();
    expect(document.cookie).not.toContain("user=");
    expect(navigate).toHaveBeenCalledTimes(1);
    expect(navigate).toHaveBeenCalledWith("/");
  });

  test("on '/' itself (a failed login) clears the user without reloading the page", async () => {
    userStore.set(alice);
    const { api, navigate } = setup([401, { error: "Bad credentials", message: "Unauthorized" }], "/");
    await expect(api.send(post("/auth/login"), { body: { email: "a", password: "b" } })).rejects.toMatchObject({
      error: "Bad credentials",
    });
    expect(userStore.get()).toBeNull();
    expect(navigate).not.toHaveBeenCalled();
  });
});

describe("idempotency", () => {
  test("the Idempotency-Key header is sent when given, and only then", async () => {
    const { api, calls } = setup([200, { body: {} }]);
    const key = newIdempotencyKey();
    await api.send(post("/account/onbehalf"), { body: { on_behalf_of: 7 } }, { idempotencyKey: key });
    await api.send(post("/account/onbehalf"), { body: { on_behalf_of: 7 } });
    await api.send(del("/account/pendingpayments/one"), { query: { id: 3 } }, { idempotencyKey: key });
    expect(calls[0].headers.get("Idempotency-Key")).toBe(key);
    expect(calls[1].headers.has("Idempotency-Key")).toBe(false);
    expect(calls[2].headers.get("Idempotency-Key")).toBe(key);
    expect(calls[2].method).toBe("DELETE");
    expect(calls[2].url).toBe("/api/account/pendingpayments/one?id=3");
  });

  test("each new key is different", () => {
    expect(newIdempotencyKey()).not.toBe(newIdempotencyKey());
    expect(newIdempotencyKey()).toMatch(/^[0-9a-f-]{36}$/);
  });
});
