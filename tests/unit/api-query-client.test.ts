import { CancelledError, MutationObserver, type QueryClient, QueryObserver } from "@tanstack/react-query";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { api, ApiCallError, type Call, call, type CallShape } from "../../islands/lib/api.ts";
import { createQueryClient, read, shouldRetry } from "../../islands/lib/query-client.tsx";
import { BATCH_RESET_PAUSE_MS } from "../../lib/constants.ts";
import { failureOf, fakeApi, type FakeCall } from "../helpers/fake-api.ts";

type Loose = CallShape & { query: Record<string, unknown>; body: unknown };
const pending = call<Loose & { method: "GET" }>("GET", "/account/pendingpayments/all");
const update = call<Loose & { method: "PUT" }>("PUT", "/account/pendingpayments/update");
const profile = call<Loose & { method: "POST" }>("POST", "/account/profile");
const remove = call<Loose & { method: "DELETE" }>("DELETE", "/account/pendingpayments/one");

beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const settle = (ms = 0) => vi.advanceTimersByTimeAsync(ms);

/** A read shown on the page: an observed query, as useQuery makes one. */
function shown(client: QueryClient, key: readonly unknown[] = ["pending-payments"]) {
  const observer = new QueryObserver(client, read(key, pending));
  const unsubscribe = observer.subscribe(() => {});
  return { observer, unsubscribe, result: () => observer.getCurrentResult() };
}

/** A write as useMutation sends one, with what it says it changes. */
function write(client: QueryClient, target: Call<Loose> = update, invalidates: readonly (readonly unknown[])[] = []) {
  const observer = new MutationObserver(client, {
    mutationFn: () => api.send(target, { query: { id: 1 } }),
    meta: { method: target.method, invalidates },
  });
  return observer.mutate().catch((error: unknown) => error);
}

const reads = (calls: FakeCall[]) => calls.filter((c) => c.method === "GET");

describe("retries", () => {
  test("a 4xx answer is not retried; a network failure or a 5xx at most twice", () => {
    expect(shouldRetry(0, new ApiCallError(404, "Not found", "Not Found"))).toBe(false);
    const offline = new ApiCallError(0, "An error occurred. Please try again later", "Network error");
    expect([0, 1, 2].map((count) => shouldRetry(count, offline))).toEqual([true, true, false]);
    expect(shouldRetry(0, new ApiCallError(503, "Down", "Service Unavailable"))).toBe(true);
  });

  test("a read answered 404 fails at once, with the server's text", async () => {
    const calls = fakeApi(() => [404, { error: "Payment not found.", message: "Not Found" }]);
    const failure = failureOf(createQueryClient().fetchQuery(read(["pending-payment", 9], pending)));
    await settle();
    const err = await failure;
    expect(err).toBeInstanceOf(ApiCallError);
    expect(err.error).toBe("Payment not found.");
    expect(calls).toHaveLength(1);
  });
});

describe("read", () => {
  test("is keyed by its resource's key and fetches the GET with its query", async () => {
    const calls = fakeApi(() => [200, { body: [{ id: 1 }] }]);
    const options = read(["pending-payments", { page: 1 }], pending, { query: { page: 1 } });
    expect(options.queryKey).toEqual(["pending-payments", { page: 1 }]);
    const data = createQueryClient().fetchQuery(options);
    await settle();
    await expect(data).resolves.toEqual([{ id: 1 }]);
    expect(calls[0].url).toBe("/api/account/pendingpayments/all?page=1");
  });

  test("TanStack's own cancellation aborts the fetch, and it is not tried again", async () => {
    const calls = fakeApi();
    const client = createQueryClient();
    const query = read(["whoami"], pending);
    const data = client.fetchQuery(query).catch((e: unknown) => e);
    await settle();
    await client.cancelQueries({ queryKey: query.queryKey });
    await settle();
    expect(calls[0].aborted).toBe(true);
    expect(calls).toHaveLength(1);
    expect(await data).toBeInstanceOf(CancelledError);
  });
});

describe("every post or put aborts and resets the current batch after a 100 ms pause (SPEC.md section 4)", () => {
  test("the pause is the one SPEC.md names", () => {
    expect(BATCH_RESET_PAUSE_MS).toBe(100);
  });

  test("a save cuts the list on its way at once, without an error; the list is read again 100 ms after the save, fresh", async () => {
    const calls = fakeApi(); // every call stays open until the test answers it
    const client = createQueryClient();
    const list = shown(client);
    await settle();
    expect(reads(calls)).toHaveLength(1);

    void write(client);
    await settle();
    expect(calls[0].aborted).toBe(true); // at once, not after the pause
    expect(list.result().status).toBe("pending"); // no error shown
    expect(list.result().isError).toBe(false);

    const answered = Date.now();
    calls[1].respond(200, { body: { id: 1, status: "approved" } });
    await settle(BATCH_RESET_PAUSE_MS - 1);
    expect(reads(calls)).toHaveLength(1); // the pause runs
    await settle(1);
    const again = reads(calls)[1];
    expect(again.startedAt - answered).toBe(BATCH_RESET_PAUSE_MS);
    again.respond(200, { body: ["payment 1 (approved)"] });
    await settle();
    expect(list.result().data).toEqual(["payment 1 (approved)"]);
    list.unsubscribe();
  });

  test("a second save before the first is answered: the reads come back 100 ms after the last one", async () => {
    const calls = fakeApi((c) => (c.method === "GET" ? [200, { body: ["a list"] }] : undefined));
    const client = createQueryClient();
    const list = shown(client);
    await settle();
    void write(client);
    void write(client, profile);
    await settle();
    const [first, second] = calls.filter((c) => c.method !== "GET");
    first.respond(200, { body: {} });
    await settle(BATCH_RESET_PAUSE_MS * 3);
    expect(reads(calls)).toHaveLength(1); // the second save is still on its way
    second.respond(422, { error: "Check the form.", message: "" });
    await settle(BATCH_RESET_PAUSE_MS);
    expect(reads(calls)).toHaveLength(1); // nothing was cut: nothing to read again
    list.unsubscribe();
  });

  test("what a save says it changes is read again after the pause, once; so it is after a refusal for what is on the server", async () => {
    const calls = fakeApi((c) => (c.method === "GET" ? [200, { body: ["a list"] }] : [200, { body: {} }]));
    const client = createQueryClient();
    const list = shown(client, ["pending-payments", "P1"]);
    const other = shown(client, ["balances", "P1"]);
    await settle();
    expect(reads(calls)).toHaveLength(2);

    void write(client, update, [["pending-payments"]]);
    await settle(BATCH_RESET_PAUSE_MS - 1);
    expect(reads(calls)).toHaveLength(2);
    await settle(1);
    expect(reads(calls).map((c) => c.path)).toEqual([
      "account/pendingpayments/all",
      "account/pendingpayments/all",
      "account/pendingpayments/all",
    ]);
    expect(client.getQueryState(["balances", "P1"])?.dataUpdateCount).toBe(1); // not read again
    await settle(BATCH_RESET_PAUSE_MS * 5);
    expect(reads(calls)).toHaveLength(3); // once

    // Refused for what is on the server (done meanwhile, in another tab): the screen is behind it.
    const refused = fakeApi((c) => (c.method === "GET" ? [200, { body: [] }] : [409, { error: "Done.", message: "" }]));
    expect(await write(client, update, [["pending-payments"]])).toBeInstanceOf(ApiCallError);
    await settle(BATCH_RESET_PAUSE_MS * 5);
    expect(reads(refused).map((c) => c.path)).toEqual(["account/pendingpayments/all"]);
    // Refused for who is asking: nothing shown is behind, nothing is read again.
    const forbidden = fakeApi((c) => (c.method === "GET" ? [200, { body: [] }] : [403, { error: "No.", message: "" }]));
    expect(await write(client, update, [["pending-payments"]])).toBeInstanceOf(ApiCallError);
    await settle(BATCH_RESET_PAUSE_MS * 5);
    expect(reads(forbidden)).toEqual([]);
    list.unsubscribe();
    other.unsubscribe();
  });

  test("a DELETE leaves the reads on their way alone (SPEC.md names post and put)", async () => {
    const calls = fakeApi((c) => (c.method === "DELETE" ? [200, { body: {} }] : undefined));
    const client = createQueryClient();
    const list = shown(client);
    await settle();
    void write(client, remove);
    await settle(BATCH_RESET_PAUSE_MS);
    expect(calls[0].aborted).toBe(false);
    list.unsubscribe();
  });
});
