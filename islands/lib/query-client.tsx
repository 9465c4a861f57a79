/**
 * TanStack Query for the islands (docs/decisions/016-island-kit-and-query-layer.md): one client for
 * the whole page, which every island root shares, so a write in one island refreshes what another
 * shows; reads are queries seeded from the server-rendered props, writes are mutations.
 *
 * SPEC.md section 4, "every post or put aborts and resets the current batch after a 100 ms pause",
 * lives here and only here, in the client's mutation cache:
 * - when a POST or PUT starts, every read in flight is cancelled (`cancelQueries`: the fetch is
 *   aborted and the query goes back to what it showed, with no error);
 * - BATCH_RESET_PAUSE_MS after the last such write settled, the reads that were cut and whatever
 *   the writes said they change (`meta.invalidates`) are invalidated, so the ones on screen are
 *   fetched again, after the write has landed.
 */
import {
  MutationCache,
  type Query,
  QueryClient,
  QueryClientProvider,
  type QueryKey,
  queryOptions,
} from "@tanstack/react-query";
import { type ComponentType, createElement, type FunctionComponent, useState } from "react";
import type { Method } from "../../lib/contracts/define.ts";
import { BATCH_RESET_PAUSE_MS } from "../../lib/constants.ts";
import { api, ApiCallError, type Call, type CallInput, type CallShape } from "./api.ts";

declare module "@tanstack/react-query" {
  interface Register {
    mutationMeta: {
      /** The call's method: a POST or PUT resets the batch (SPEC.md names those two). */
      method: Method;
      /** The queries this write changes, refreshed once the batch resets (prefixes of keys). */
      invalidates?: readonly QueryKey[];
    };
  }
}

/** Retries after a network failure or a server error (5xx); a 4xx answer will be the same. */
const MAX_FAILURE_RETRIES = 2;

export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiCallError && error.status >= 400 && error.status < 500) return false;
  return failureCount < MAX_FAILURE_RETRIES;
}

const resetsTheBatch = (method: Method | undefined) => method === "POST" || method === "PUT";

export function createQueryClient(): QueryClient {
  /** Writes (POST, PUT) not settled yet; the batch resets only once none is left. */
  let writing = 0;
  let pause: ReturnType<typeof setTimeout> | undefined;
  /** What to refresh when the batch resets: exact keys of the reads cut, prefixes of what changed. */
  const stale: { queryKey: QueryKey; exact: boolean }[] = [];

  const reset = () => {
    pause = undefined;
    for (const filter of stale.splice(0)) void client.invalidateQueries(filter);
  };

  const mutationCache = new MutationCache({
    onMutate(_variables, mutation) {
      if (!resetsTheBatch(mutation.meta?.method)) return;
      writing++;
      globalThis.clearTimeout(pause);
      pause = undefined;
      const cut = client.getQueryCache().findAll({ fetchStatus: "fetching" });
      for (const query of cut) stale.push({ queryKey: query.queryKey, exact: true });
      void client.cancelQueries({ predicate: (query: Query) => cut.includes(query) });
    },
    onSuccess(_data, _variables, _result, mutation) {
      for (const queryKey of mutation.meta?.invalidates ?? []) stale.push({ queryKey, exact: false });
    },
    // A write refused for what is on the server (409, or a 422 such as "Not enough USD: your balance
    // is ...") is often refused because this screen is behind it (another tab spent the money): what
    // the write would have changed is read again, so the screen shows what the refusal says.
    onError(error, _variables, _result, mutation) {
      if (!(error instanceof ApiCallError) || (error.status !== 409 && error.status !== 422)) return;
      for (const queryKey of mutation.meta?.invalidates ?? []) stale.push({ queryKey, exact: false });
    },
    onSettled(_data, _error, _variables, _result, mutation) {
      if (resetsTheBatch(mutation.meta?.method)) writing--;
      // A DELETE refreshes what it changed at once, unless a write's pause is running.
      if (writing === 0 && pause === undefined) {
        if (resetsTheBatch(mutation.meta?.method)) pause = globalThis.setTimeout(reset, BATCH_RESET_PAUSE_MS);
        else reset();
      }
    },
  });

  const client: QueryClient = new QueryClient({
    mutationCache,
    defaultOptions: {
      queries: { staleTime: 30_000, retry: shouldRetry },
      // A write is never repeated behind the user's back.
      mutations: { retry: false },
    },
  });
  return client;
}

/**
 * A read as query options: `useQuery(read(keys.balances(ref), listBalances))`. The fetch carries
 * TanStack's signal, so a cancelled or abandoned query aborts its request.
 */
export function read<C extends CallShape, K extends QueryKey>(queryKey: K, call: Call<C>, input?: CallInput<C>) {
  return queryOptions({ queryKey, queryFn: ({ signal }) => api.send(call, input, { signal }) });
}

let page: QueryClient | undefined;

/** The page's client in the browser: every island root on the page shares it. */
export function pageQueryClient(): QueryClient {
  if (page) return page;
  const client = page = createQueryClient();
  // Pages on the user layout drop the reads of the page being left (SPEC.md section 2).
  if (document.querySelector("[data-layout=user]")) addEventListener("pagehide", () => void client.cancelQueries());
  return client;
}

/** Forgets the page's client: the next island starts a new one (each test is a page of its own). */
export function leavePage(): void {
  page?.clear();
  page = undefined;
}

/**
 * Gives an island the page's query client. In the browser every island shares the page's one; a
 * server render gets a client of its own, since the server renders many visitors' pages and their
 * data must never meet (nothing is fetched there: queries start from the props).
 */
export function withQueries<P extends object>(Island: ComponentType<P>): FunctionComponent<P> {
  function Queries(props: P) {
    const [client] = useState(() => typeof document === "undefined" ? createQueryClient() : pageQueryClient());
    return createElement(QueryClientProvider, { client }, createElement(Island, props));
  }
  Queries.displayName = `Queries(${Island.displayName ?? Island.name})`;
  return Queries;
}
