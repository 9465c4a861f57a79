import { CancelledError } from "@tanstack/react-query";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { api, ApiCallError } from "../../islands/lib/api.ts";
import { resetBatch } from "../../islands/lib/batch.ts";
import { apiQuery, createQueryClient, shouldRetry } from "../../islands/lib/query-client.ts";
import { failureOf, fakeFetch } from "./api-fake-fetch.ts";

// These tests go through the page's shared batch and API, as islands do.
beforeEach(() => {
  resetBatch();
  vi.useFakeTimers();
});
afterEach(() => {
  resetBatch();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const settle = () => vi.advanceTimersByTimeAsync(0);

describe("retries", () => {
  test("a 4xx answer is not retried; a network failure at most twice; a batch abort is", () => {
    const notFound = new ApiCallError(404, "Not found", "Not Found");
    expect(shouldRetry(0, notFound)).toBe(false);
    const offline = new ApiCallError(0, "An error occurred. Please try again later", "Network error");
    expect([0, 1, 2].map((count) => shouldRetry(count, offline))).toEqual([true, true, false]);
    expect(shouldRetry(0, new ApiCallError(503, "Down", "Service Unavailable"))).toBe(true);
    expect(shouldRetry(0, new DOMException("aborted", "AbortError"))).toBe(true);
  });

  test("a query answered 404 fails at once, with the server's text", async () => {
    const { calls } = fakeFetch(() => [404, { error: "Payment not found.", message: "Not Found" }]);
    const client = createQueryClient();
    const failure = failureOf(client.fetchQuery(apiQuery("account/pendingpayments/one", { id: 9 })));
    await settle();
    const err = await failure;
    expect(err).toBeInstanceOf(ApiCallError);
    expect(err.error).toBe("Payment not found.");
    expect(calls).toHaveLength(1);
  });
});

describe("apiQuery", () => {
  test("is keyed by path and query, and fetches the GET", async () => {
    const { calls } = fakeFetch(() => [200, { body: [{ id: 1 }] }]);
    const options = apiQuery<{ id: number }[]>("account/pendingpayments/paginated", { page: 1 });
    expect(options.queryKey).toEqual(["account/pendingpayments/paginated", { page: 1 }]);
    const data = createQueryClient().fetchQuery(options);
    await settle();
    await expect(data).resolves.toEqual([{ id: 1 }]);
    expect(calls[0].url).toBe("/api/account/pendingpayments/paginated?page=1");
  });

  test("a list cut short by a save is fetched again after the pause, and shows the fresh answer", async () => {
    const { calls } = fakeFetch();
    const client = createQueryClient();
    const query = apiQuery<string[]>("account/pendingpayments/all");
    const data = client.fetchQuery(query);
    await settle();
    expect(calls).toHaveLength(1);

    const start = Date.now();
    void api.put("account/pendingpayments/update", undefined, { query: { id: 1 } });
    await settle();
    expect(calls[0].aborted).toBe(true);
    expect(client.getQueryState(query.queryKey)?.status).toBe("pending"); // no error shown

    await vi.advanceTimersByTimeAsync(100);
    const again = calls.find((c, i) => i > 0 && c.init.method === "GET")!;
    expect(again.startedAt - start).toBe(100);
    again.respond(200, { body: ["payment 1 (updated)"] });
    await settle();
    await expect(data).resolves.toEqual(["payment 1 (updated)"]);
  });

  test("TanStack's own cancellation aborts the fetch", async () => {
    const { calls } = fakeFetch();
    const client = createQueryClient();
    const query = apiQuery("account/whoami");
    const data = client.fetchQuery(query).catch((e: unknown) => e);
    await settle();
    await client.cancelQueries({ queryKey: query.queryKey });
    await settle();
    expect(calls[0].aborted).toBe(true);
    expect(calls).toHaveLength(1); // not retried
    expect(await data).toBeInstanceOf(CancelledError);
  });
});
