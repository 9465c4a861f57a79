import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ReactNode } from "react";
import type { AppEnv } from "../env.ts";
import { DomainError, type RefusalKind } from "../errors.ts";
import { BalanceOutOfRange } from "../ledger/ledger.ts";
import { amountTooLarge } from "../money/errors.ts";
import { renderDocument } from "../render/document.tsx";
import { ApiError, failureBody, isApi, noSuchCall } from "./api.ts";
import { isBot } from "./bots.ts";
import { log } from "../log.ts";
import { requestIdOf } from "./request-log.ts";
import { statusText } from "./status.ts";

export const PAGE_NOT_FOUND = "Page not found";
export const UNEXPECTED_ERROR = "Unexpected error occurred";

/** The full path the visitor asked for, with its query. */
function fullPath(c: Context) {
  const url = new URL(c.req.url);
  return url.pathname + url.search;
}

/** What the error page shows (SPEC.md section 2): the status, its message, the path when not found. */
export interface ErrorPageProps {
  status: number;
  message?: string;
  path?: string;
  /** The request's id, shown as "Reference: …" so that a customer's report can be found in the log. */
  reference?: string;
}

/** The page itself is the routes' (routes/pages/ErrorPage.tsx); the composition root hands it in. */
export type ErrorPage = (props: ErrorPageProps) => ReactNode;

/**
 * Answers an error: JSON `{"error","message"}` for a call, the error page for a page, and a plain
 * status line for a search-engine or preview bot (only logged, as SPEC.md section 4 asks).
 */
function errorAnswer(
  Page: ErrorPage,
  c: Context<AppEnv>,
  status: ContentfulStatusCode,
  userMessage: string | undefined,
  extra: ApiError["extra"] = {},
): Response {
  const reference = requestIdOf(c);
  if (isApi(c)) {
    return c.json({ ...failureBody(status, userMessage ?? UNEXPECTED_ERROR, extra), request_id: reference }, status);
  }
  if (isBot(c.req.header("user-agent"))) {
    log.warn("error answered to a bot", { status, path: fullPath(c), user_agent: c.req.header("user-agent") });
    return c.text(`${status} ${statusText(status)}`, status);
  }
  const path = status === 404 ? fullPath(c) : undefined;
  return renderDocument(c, {
    title: userMessage ?? UNEXPECTED_ERROR,
    status,
    render: () => <Page status={status} message={userMessage} path={path} reference={reference} />,
  });
}

/** The one place a business rule's refusal becomes an HTTP status (server/errors.ts). */
const REFUSAL_STATUS: Record<RefusalKind, ContentfulStatusCode> = {
  invalid: 422,
  unauthenticated: 401,
  not_found: 404,
  conflict: 409,
  refused: 403,
  limited: 429,
  unavailable: 503,
  upstream: 502,
};

/**
 * The app's onError and notFound, answering pages with the given error page. Every error reaches
 * onError: a refusal of ours (ApiError, DomainError), Hono's HTTPException, or a fault.
 */
export function errorHandlers(Page: ErrorPage): { onError: ErrorHandler<AppEnv>; notFound: NotFoundHandler<AppEnv> } {
  const answer = (c: Context<AppEnv>, status: ContentfulStatusCode, message?: string, extra?: ApiError["extra"]) =>
    errorAnswer(Page, c, status, message, extra);
  return {
    onError(thrown, c) {
      // A movement no service translated is still an amount too large, never a fault (decision 024).
      const err = thrown instanceof BalanceOutOfRange ? amountTooLarge(thrown) : thrown;
      if (err instanceof ApiError) return answer(c, err.status as ContentfulStatusCode, err.userMessage, err.extra);
      if (err instanceof DomainError) {
        const { fields, next, code } = err;
        return answer(c, REFUSAL_STATUS[err.kind], err.message, {
          ...(fields ? { fields } : {}),
          ...(next ? { redirect: next } : {}),
          ...(code ? { code } : {}),
        });
      }
      if (err instanceof HTTPException) {
        const status = err.status as ContentfulStatusCode;
        // A status below 500 says what the visitor did wrong; its text is safe to show.
        const message = status === 404 ? PAGE_NOT_FOUND : status < 500 ? err.message || statusText(status) : undefined;
        if (status >= 500) log.error("request failed", { method: c.req.method, path: fullPath(c), status, error: err });
        return answer(c, status, message);
      }
      // Anything else is a fault of ours: logged in full, shown only as 'Unexpected error occurred'.
      log.error("request failed", { method: c.req.method, path: fullPath(c), status: 500, error: err });
      return answer(c, 500, undefined);
    },
    notFound: (c) => answer(c, 404, isApi(c) ? noSuchCall(c) : PAGE_NOT_FOUND),
  };
}
