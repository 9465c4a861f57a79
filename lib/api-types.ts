/**
 * The shape of every answer under /api/ (DESIGN.md section 6), shared by the server and the
 * islands' API layer.
 */

/** A success: the payload in `body`; `redirect`, when present, is where the client goes next. */
export interface ApiSuccess<T> {
  body: T;
  redirect?: string;
}

/** A failure: `error` is text for the user, `message` the HTTP status text. */
export interface ApiFailure {
  error: string;
  message: string;
  /** Validation failures (422) name each failing field with its problem. */
  fields?: Record<string, string>;
  redirect?: string;
  /**
   * The request's id (also its X-Request-Id header): what a customer quotes so that the request
   * can be found in the server's log (decision 041).
   */
  request_id?: string;
}

export const IDEMPOTENCY_HEADER = "Idempotency-Key";
