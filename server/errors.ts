/**
 * Refusals from the business rules, in words for the customer or the administrator. Services throw
 * them with plain values and know nothing of HTTP; the app's error handler turns each kind into its
 * status once (server/http/errors.tsx): invalid → 422 (naming the field when there is one),
 * not_found → 404, conflict → 409, refused → 403, limited → 429.
 */
export type RefusalKind = "invalid" | "not_found" | "conflict" | "refused" | "limited";

export class DomainError extends Error {
  override name = "DomainError";
  constructor(
    readonly kind: RefusalKind,
    message: string,
    /** The input it is about ("amount", "rates.USD", "details.iban"), when there is one. */
    readonly field?: string,
  ) {
    super(message);
  }
}

/** The input breaks a rule: 422. */
export class InvalidInput extends DomainError {
  override name = "InvalidInput";
  constructor(message: string, field?: string) {
    super("invalid", message, field);
  }
}

/** There is no such thing for this customer: 404. */
export class NotFound extends DomainError {
  override name = "NotFound";
  constructor(message: string) {
    super("not_found", message);
  }
}

/** The thing is not in a state that allows this (used, expired, already done): 409. */
export class Conflict extends DomainError {
  override name = "Conflict";
  constructor(message: string) {
    super("conflict", message);
  }
}

/** This person may not do this: 403. */
export class Refused extends DomainError {
  override name = "Refused";
  constructor(message: string) {
    super("refused", message);
  }
}
