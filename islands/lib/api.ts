/**
 * The one way islands call the server (SPEC.md section 7, DESIGN.md section 6). Every call goes to
 * /api/<path>, sends and accepts JSON, and answers `{"body", "redirect"?}` or, on failure,
 * `{"error", "message", "fields"?, "redirect"?, "code"?}`. A call is named by its contract's type
 * (lib/contracts, with `import type`), so its payload and answer are the server's own.
 * Reads and writes reach it through TanStack Query (query-client.tsx), which owns cancellation.
 */
import type { z } from "zod";
import type { Method } from "../../lib/contracts/define.ts";
import {
  ACCOUNT_HEADER,
  type ApiFailure,
  type ApiSuccess,
  IDEMPOTENCY_HEADER,
  type RefusalCode,
  RELOADED_PARAM,
} from "../../lib/api-types.ts";
import { carryToNextPage } from "./carried-notification.ts";
import { type Query, withQuery } from "./query-string.ts";
import { userStore } from "./user-store.ts";

/** Shown when the server gave no text for the user (SPEC.md section 8). */
export const FALLBACK_ERROR = "An error occurred. Please try again later";

/**
 * What a call is: a contract's type (`typeof money.getQuote`), or, for a call whose contract is not
 * written yet, the same shape with plain types instead of schemas.
 */
export interface CallShape {
  method: Method;
  path: string;
  answer: unknown;
  body?: unknown;
  query?: unknown;
}

type Plain<T> = T extends z.ZodType ? z.output<T> : T;
type Sent<T> = T extends z.ZodType ? z.input<T> : T;
/** What a success of the call answers in `body`. */
export type AnswerOf<C extends CallShape> = Plain<C["answer"]>;
/** The JSON body the call takes (none: undefined). */
export type BodyOf<C extends CallShape> = C extends { body: infer B } ? Sent<B> : undefined;
/** The query object the call takes. */
export type QueryOf<C extends CallShape> = C extends { query: infer Q } ? Sent<Q> : undefined;

/** A call as islands hold it: its method and path, typed by its shape. */
export interface Call<C extends CallShape> {
  readonly method: C["method"];
  readonly path: C["path"];
  /** Never set: carries the shape's type. */
  readonly shape?: C;
}

/**
 * Names a call: `call<typeof money.executeConversion>("POST", "/account/conversions")`. The method
 * and path are checked against the contract's, so a renamed call fails the type check here.
 */
export function call<C extends CallShape>(method: C["method"], path: C["path"]): Call<C> {
  return { method, path };
}

export interface CallInput<C extends CallShape> {
  /** Values for the path's `:name` segments. */
  params?: Record<string, string | number>;
  query?: QueryOf<C>;
  body?: BodyOf<C>;
  /** A document sent as the body instead of JSON (a bank's statement file), with its media type. */
  document?: { type: string; content: Blob | string };
}

export interface RequestOptions {
  /** Sent as the Idempotency-Key header, so a repeated write is answered once. */
  idempotencyKey?: string;
  /** Cancellation: TanStack Query's signal. */
  signal?: AbortSignal;
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
    /** Which refusal it is, when the server names one: what a screen decides on, never `error`'s words. */
    readonly code?: RefusalCode,
  ) {
    super(message);
  }
}

/** What to tell the user about a failed call: the server's text, or the fallback (SPEC.md section 8). */
export const errorText = (err: unknown): string => (err instanceof ApiCallError && err.error) || FALLBACK_ERROR;

/** The problems by field of a failed call (a 422's `fields`), or none. */
export const fieldsOf = (err: unknown): Record<string, string> => (err instanceof ApiCallError && err.fields) || {};

/** Which refusal a failed call was (the answer's `code`, e.g. "quote_expired"), or none. */
export const codeOf = (err: unknown): RefusalCode | undefined => (err instanceof ApiCallError ? err.code : undefined);

/** The HTTP status of a failed call; 0 when the server was not reached or it was no ApiCallError. */
export const statusOf = (err: unknown): number => (err instanceof ApiCallError ? err.status : 0);

/** Whether `err` is a cancellation rather than a failure. */
export function isAbort(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { name?: unknown }).name === "AbortError";
}

/** A fresh key for one logical write; reuse it when the same write is retried. */
export function newIdempotencyKey(): string {
  return crypto.randomUUID();
}

/** `/account/users/:id` with `{id: 5}` → `/api/account/users/5`. */
export function urlOf(path: string, params: Record<string, string | number> = {}, query?: Query): string {
  const filled = path.replace(/^\/+/, "").replace(/:(\w+)/g, (_, name: string) => {
    if (!(name in params)) throw new Error(`The call ${path} needs its ${name}`);
    return encodeURIComponent(String(params[name]));
  });
  return withQuery(`/api/${filled}`, query as Query | undefined);
}

export interface ApiDeps {
  /** Defaults to the global fetch, looked up at each call (so tests can stub it). */
  fetch?: typeof fetch;
  /** Full page navigation; defaults to location.assign. */
  navigate?: (to: string) => void;
  /** The current path, to avoid reloading '/' on a 401 there. */
  currentPath?: () => string;
  user?: { clear(): void };
  /** The page as addressed, path and query, to load it again; defaults to location's. */
  currentPage?: () => string;
  /** The account_ref of the account the page shows (its header's), if any. */
  shownAccount?: () => string | null;
}

/** The account the page was rendered for: the header's badge (routes/layouts/User.tsx). */
const accountOfThePage = () =>
  typeof document === "undefined"
    ? null
    : document.querySelector("[data-current-account]")?.getAttribute("data-current-account") ?? null;

export interface Api {
  send<C extends CallShape>(call: Call<C>, input?: CallInput<C>, options?: RequestOptions): Promise<AnswerOf<C>>;
}

export function createApi(deps: ApiDeps = {}): Api {
  const user = deps.user ?? userStore;
  const navigate = deps.navigate ?? ((to: string) => location.assign(to));
  const currentPath = deps.currentPath ?? (() => location.pathname);
  const shownAccount = deps.shownAccount ?? accountOfThePage;
  const currentPage = deps.currentPage ?? (() => location.pathname + location.search);

  async function send<C extends CallShape>(
    { method, path }: Call<C>,
    input: CallInput<C> = {},
    options: RequestOptions = {},
  ): Promise<AnswerOf<C>> {
    const url = urlOf(path, input.params, input.query as Query | undefined);
    // A write always sends a JSON body (an empty object when none), so the server can always parse
    // one and a retried write has the same idempotency fingerprint.
    const body = method === "POST" || method === "PUT" ? input.body ?? {} : input.body;
    const headers: Record<string, string> = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = input.document?.type ?? "application/json";
    if (options.idempotencyKey) headers[IDEMPOTENCY_HEADER] = options.idempotencyKey;
    const shown = shownAccount();
    if (shown) headers[ACCOUNT_HEADER] = shown;

    let response: Response;
    let payload: unknown;
    try {
      response = await (deps.fetch ?? globalThis.fetch)(url, {
        method,
        headers,
        body: input.document ? input.document.content : body === undefined ? undefined : JSON.stringify(body),
        credentials: "same-origin",
        signal: options.signal,
      });
      payload = await readJson(response);
    } catch (err) {
      // One error shape for every cancellation, whatever reason the signal carried.
      if (options.signal?.aborted || isAbort(err)) throw new DOMException("The request was aborted.", "AbortError");
      // The server was not reached: still an ApiCallError, so islands show one kind of error.
      throw Object.assign(new ApiCallError(0, FALLBACK_ERROR, "Network error"), { cause: err });
    }

    if (response.ok) {
      const answer = payload as Partial<ApiSuccess<AnswerOf<C>>> | undefined;
      if (answer?.redirect) navigate(answer.redirect);
      return answer?.body as AnswerOf<C>;
    }

    const failure = payload as Partial<ApiFailure> | undefined;
    const error = new ApiCallError(
      response.status,
      failure?.error || FALLBACK_ERROR,
      failure?.message || response.statusText,
      failure?.fields,
      failure?.redirect,
      failure?.code,
    );
    if (response.status === 401) {
      // SPEC.md section 4: a 401 on any call clears the user and sends the visitor to '/'. Already
      // on '/' (a failed login there) a reload would only wipe the message the page is about to show.
      user.clear();
      if (currentPath() !== "/") {
        carryToNextPage({ title: error.error, color: "error" });
        navigate("/");
      }
    } else if (error.code === "account_changed") {
      // The session works on another account since this page was rendered: the page is loaded
      // again for it, with the reason, rather than left showing an account it no longer acts on.
      carryToNextPage({ title: error.error, color: "warning" });
      navigate(reloaded(currentPage()));
    } else if (error.redirect) {
      // A guard's refusal (403) names where the visitor should go instead.
      navigate(error.redirect);
    }
    throw error;
  }

  return { send };
}

/**
 * The page's address marked as loaded again after a switch in another window (RELOADED_PARAM): a
 * record's page then stays on the account the person chose there instead of switching back to the
 * record's account as a followed link does (decision 060).
 */
function reloaded(page: string): string {
  const url = new URL(page, "http://page.invalid");
  url.searchParams.set(RELOADED_PARAM, "account_changed");
  return url.pathname + url.search;
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
