/**
 * The shape of every answer under /api/ (DESIGN.md section 6), shared by the server and the
 * islands' API layer.
 */

/** A success: the payload in `body`; `redirect`, when present, is where the client goes next. */
export interface ApiSuccess<T> {
  body: T;
  redirect?: string;
}

/**
 * What a screen must tell apart among refusals of one status, named for programs: the words in
 * `error` are for people and may be reworded at any time, these never are (docs/API.md).
 * quote_expired and quote_used: a conversion's or payment's quote that ran out or was spent;
 * recipient_deleted and details_changed: a payment's recipient gone, or their currency, rail or
 * bank details changed since its cost was shown (or, approving it, since it was prepared);
 * rate_expired: a payment converted on the way waited for approval longer than its rate is held.
 */
export const REFUSAL_CODES = [
  "quote_expired",
  "quote_used",
  "recipient_deleted",
  "details_changed",
  "rate_expired",
  "account_changed",
] as const;
export type RefusalCode = typeof REFUSAL_CODES[number];

/** A failure: `error` is text for the user, `message` the HTTP status text. */
export interface ApiFailure {
  error: string;
  message: string;
  /** Which refusal this is, for a screen that acts on it (RefusalCode); only where one is named. */
  code?: RefusalCode;
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

/**
 * The account a page was rendered for (its header's account_ref), sent with every call an island
 * makes: a call about an account is refused (409, code account_changed) when the session has since
 * been switched to another one in another window, instead of acting on an account the page does not
 * show (server/accounts/current.ts).
 */
export const ACCOUNT_HEADER = "X-Account-Ref";

/**
 * The same account, named in the address of a download link (a link cannot send a header): the
 * download calls take it as a query parameter and check it exactly as the header (decision 075).
 */
export const ACCOUNT_PARAM = "account_ref";

/**
 * The mark of a page an island loaded again after a refusal account_changed (`?reloaded=account_changed`):
 * the person switched in another window, and this navigation is nobody following a link, so a page
 * about a record of another of their accounts does not switch back to it (decision 060). Any other
 * page ignores it.
 */
export const RELOADED_PARAM = "reloaded";
