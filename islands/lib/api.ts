/**
 * The one way islands call the server (SPEC.md section 7, DESIGN.md section 6). Every call goes to
 * /api/<path>, sends and accepts JSON, and answers `{"body", "redirect"?}` or, on failure,
 * `{"error", "message", "fields"?, "redirect"?}`. Reads join the request batch (batch.ts); POST
 * and PUT reset it.
 */
import { carryToNextPage } from "./notifications.ts";
import { type ApiFailure, type ApiSuccess, IDEMPOTENCY_HEADER } from "../../lib/api-types.ts";
import { abortError, anySignal, type RequestBatch, requestBatch } from "./batch.ts";
import { type Query, withQuery } from "./query-string.ts";
import { userStore } from "./user-store.ts";

/** Shown when the server gave no text for the user (SPEC.md section 8). */
export const FALLBACK_ERROR = "An error occurred. Please try again later";

export interface RequestOptions {
  /** Sent as the Idempotency-Key header, so a repeated write is answered once. */
  idempotencyKey?: string;
  /** The caller's own cancellation (TanStack Query's, a component's unmount). */
  signal?: AbortSignal;
  /** Query parameters for any method (a PUT or DELETE addressed by `?id=`). */
  query?: Query;
}

/**
 * A failed call. `error` is text for the user; `message` is the status message (the answer's
 * `message` field, else the HTTP status text). Status 0 means the server was not reached.
 */
export class ApiCallError extends Error {
  override name = "ApiCallError";
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
    readonly fields?: Record<string, string>,
    readonly redirect?: string,
  ) {
    super(message);
  }
}

/** What to tell the user about a failed call: the server's text, or the fallback (SPEC.md section 8). */
export const errorText = (err: unknown): string => (err instanceof ApiCallError && err.error) || FALLBACK_ERROR;

/** The problems by field of a failed call (a 422's `fields`), or none. */
export const fieldsOf = (err: unknown): Record<string, string> => (err instanceof ApiCallError && err.fields) || {};

/** Whether `err` is a cancellation (batch abort, caller's signal) rather than a failure. */
export function isAbort(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { name?: unknown }).name === "AbortError";
}

/** A fresh key for one logical write; reuse it when the same write is retried. */
export function newIdempotencyKey(): string {
  return crypto.randomUUID();
}

export interface ApiDeps {
  /** Defaults to the global fetch, looked up at each call (so tests can stub it). */
  fetch?: typeof fetch;
  /** Full page navigation; defaults to location.assign. */
  navigate?: (to: string) => void;
  /** The current path, to avoid reloading '/' on a 401 there. */
  currentPath?: () => string;
  batch?: RequestBatch;
  user?: { clear(): void };
}

export interface Api {
  get<T>(path: string, query?: Query, options?: RequestOptions): Promise<T>;
  post<T>(path: string, body?: unknown, options?: RequestOptions): Promise<T>;
  put<T>(path: string, body?: unknown, options?: RequestOptions): Promise<T>;
  delete<T>(path: string, options?: RequestOptions & { body?: unknown }): Promise<T>;
}

export function createApi(deps: ApiDeps = {}): Api {
  const batch = deps.batch ?? requestBatch;
  const user = deps.user ?? userStore;
  const navigate = deps.navigate ?? ((to: string) => location.assign(to));
  const currentPath = deps.currentPath ?? (() => location.pathname);

  async function call<T>(
    method: string,
    path: string,
    body: unknown,
    options: RequestOptions,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    const url = withQuery(`/api/${path.replace(/^\/+/, "")}`, options.query);
    const headers: Record<string, string> = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (options.idempotencyKey) headers[IDEMPOTENCY_HEADER] = options.idempotencyKey;

    let response: Response;
    let payload: unknown;
    try {
      response = await (deps.fetch ?? globalThis.fetch)(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: "same-origin",
        signal,
      });
      payload = await readJson(response);
    } catch (err) {
      // One error shape for every cancellation, whatever reason the signal carried.
      if (signal?.aborted || isAbort(err)) throw abortError();
      // The server was not reached: still an ApiCallError, so islands show one kind of error.
      throw Object.assign(new ApiCallError(0, FALLBACK_ERROR, "Network error"), { cause: err });
    }

    if (response.ok) {
      const answer = payload as Partial<ApiSuccess<T>> | undefined;
      if (answer?.redirect) navigate(answer.redirect);
      return answer?.body as T;
    }

    const failure = payload as Partial<ApiFailure> | undefined;
    const error = new ApiCallError(
      response.status,
      failure?.error || FALLBACK_ERROR,
      failure?.message || response.statusText,
      failure?.fields,
      failure?.redirect,
    );
    if (response.status === 401) {
      // SPEC.md section 4: a 401 on any call clears the user and sends the visitor to '/'. Already
      // on '/' (a failed login there) a reload would only wipe the message the page is about to show.
      user.clear();
      if (currentPath() !== "/") {
        carryToNextPage({ title: error.error, color: "error" });
        navigate("/");
      }
    } else if (error.redirect) {
      // A guard's refusal (403) names where the visitor should go instead.
      navigate(error.redirect);
    }
    throw error;
  }

  return {
    async get<T>(path: string, query?: Query, options: RequestOptions = {}) {
      // Waits through the pause after a write, then carries the batch's signal and the caller's.
      const batchSignal = await batch.join(options.signal);
      const signal = anySignal([batchSignal, options.signal]);
      return call<T>("GET", path, undefined, { ...options, query: { ...options.query, ...query } }, signal);
    },
    post<T>(path: string, body?: unknown, options: RequestOptions = {}) {
      batch.write();
      // Always a JSON body (empty object when none), so the server can always parse one and the
      // idempotency fingerprint of a retried write is the same.
      return call<T>("POST", path, body ?? {}, options, options.signal);
    },
    put<T>(path: string, body?: unknown, options: RequestOptions = {}) {
      batch.write();
      return call<T>("PUT", path, body ?? {}, options, options.signal);
    },
    delete<T>(path: string, options: RequestOptions & { body?: unknown } = {}) {
      // SPEC.md section 4 names post and put only: a delete leaves the batch alone.
      return call<T>("DELETE", path, options.body, options, options.signal);
    },
  };
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    // Not our JSON (a proxy's error page): the status alone describes the failure.
    return undefined;
  }
}

/** The API every island uses. */
export const api: Api = createApi();
