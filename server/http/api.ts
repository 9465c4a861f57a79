import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiFailure, ApiSuccess, RefusalCode } from "../../lib/api-types.ts";
import type { AppEnv } from "../env.ts";
import { statusText } from "./status.ts";

/**
 * Answers a call with `{"body": ...}` and, optionally, where the client should go next. Typed as a
 * plain Response: Hono's inferred type (the body's JSON shape, for its RPC client, which we do not
 * use) is generic over T and deep enough that Deno's incremental type check, computing this
 * module's signature, gave up with TS2589 (decision 010).
 */
export function ok<T>(
  c: Context,
  body: T,
  options: { redirect?: string; status?: ContentfulStatusCode } = {},
): Response {
  return c.json(success(body, options.redirect), options.status ?? 200);
}

/** The envelope of a success: `{"body"}`, and `redirect` when the client should go on there. */
export function success<T>(body: T, redirect?: string): ApiSuccess<T> {
  return redirect ? { body, redirect } : { body };
}

/**
 * A failure with text meant for the user. Thrown from handlers and guards; the app's error
 * handler turns it into `{"error","message"}` for a call, or the error page for a page.
 */
export class ApiError extends HTTPException {
  constructor(
    status: ContentfulStatusCode,
    readonly userMessage: string,
    readonly extra: { fields?: Record<string, string>; redirect?: string; code?: RefusalCode } = {},
  ) {
    super(status, { message: userMessage });
  }
}

export function failureBody(status: number, error: string, extra: ApiError["extra"] = {}): ApiFailure {
  const failure: ApiFailure = { error, message: statusText(status) };
  if (extra.fields) failure.fields = extra.fields;
  if (extra.redirect) failure.redirect = extra.redirect;
  if (extra.code) failure.code = extra.code;
  return failure;
}

/** Whether a request is a call under /api/ (answered in JSON) rather than a page. */
export function isApi(c: Context): boolean {
  return c.req.path.startsWith("/api/");
}

/**
 * The answer to a call that does not exist. The console's guards answer a non-administrator with
 * exactly this too (decision 004, issue 14), so that nobody can tell a console call from an
 * unknown one.
 */
export const noSuchCall = (c: Context<AppEnv>) => `There is no call ${c.req.method} ${c.req.path}.`;
