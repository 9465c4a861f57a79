/**
 * TanStack Query on top of api.ts: one client per island root, and `apiQuery` to describe a GET.
 */
import { QueryClient, queryOptions } from "@tanstack/react-query";
import { api, ApiCallError, isAbort } from "./api.ts";
import type { Query } from "./query-string.ts";

/** Retries of a read cut by a write's batch abort; each one waits for the new batch. */
const MAX_ABORT_RETRIES = 3;
/** Retries after a network failure or a server error (5xx). */
const MAX_FAILURE_RETRIES = 2;

/**
 * Whether a failed read is tried again. TanStack Query treats an AbortError thrown by the query
 * function as a plain error (only its own cancel() counts as a cancellation), so a read aborted by
 * the batch is retried here, at once: the retry joins the batch that opens after the write, and
 * the screen never shows the abort. Its own cancel() stops retries by itself.
 */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (isAbort(error)) return failureCount < MAX_ABORT_RETRIES;
  // A 4xx answer will be the same next time.
  if (error instanceof ApiCallError && error.status >= 400 && error.status < 500) return false;
  return failureCount < MAX_FAILURE_RETRIES;
}

/** No wait before retrying an aborted read (the batch already makes it wait); backoff otherwise. */
export function retryDelay(failureCount: number, error: unknown): number {
  if (isAbort(error)) return 0;
  return Math.min(1000 * 2 ** failureCount, 30_000);
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 30_000, retry: shouldRetry, retryDelay },
      // A write is never repeated behind the user's back.
      mutations: { retry: false },
    },
  });
}

/**
 * A GET as query options: `useQuery(apiQuery<Payment[]>("account/pendingpayments/all"))`. The key
 * is `[path, query]`, so `invalidateQueries({ queryKey: [path] })` refreshes every query of a path.
 * The fetch carries both TanStack's signal and the batch's (api.get combines them).
 */
export function apiQuery<T>(path: string, query?: Query) {
  return queryOptions({
    queryKey: [path, query] as const,
    queryFn: ({ signal }) => api.get<T>(path, query, { signal }),
  });
}
