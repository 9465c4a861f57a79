import type { RefusalCode } from "../lib/api-types.ts";

/**
 * Refusals from the business rules, in words for the customer or the administrator. Services throw
 * them with plain values and know nothing of HTTP; the app's error handler turns each kind into its
 * status once (server/http/errors.tsx): invalid → 422 (naming the fields when there are some),
 * unauthenticated → 401, not_found → 404, conflict → 409, refused → 403, limited → 429,
 * unavailable → 503 (we cannot serve yet), upstream → 502 (a provider we rely on failed).
 */
export type RefusalKind =
  | "invalid"
  | "unauthenticated"
  | "not_found"
  | "conflict"
  | "refused"
  | "limited"
  | "unavailable"
  | "upstream";

export interface RefusalDetails {
  /** Every failing input by path, when a form has several problems at once. */
  fields?: Record<string, string>;
  /** The screen the person goes to next, when the refusal says where ("/auth"). */
  next?: string;
  /** Which refusal this is, for a screen that must tell it from others of its status (`code`). */
  code?: RefusalCode;
}

export class DomainError extends Error {
  override name = "DomainError";
  constructor(
    readonly kind: RefusalKind,
    message: string,
    /** The input it is about ("amount", "rates.USD", "details.iban"), when there is one. */
    readonly field?: string,
    readonly details: RefusalDetails = {},
  ) {
    super(message);
  }

  /** The failing inputs with their problems, for the answer's `fields`. */
  get fields(): Record<string, string> | undefined {
    return this.details.fields ?? (this.field ? { [this.field]: this.message } : undefined);
  }

  get next(): string | undefined {
    return this.details.next;
  }

  get code(): RefusalCode | undefined {
    return this.details.code;
  }
}

/** The input breaks a rule: 422. */
export class InvalidInput extends DomainError {
  override name = "InvalidInput";
  constructor(message: string, field?: string) {
    super("invalid", message, field);
  }
}

/** A form breaks several rules at once (a profile): 422 naming each field. */
export class InvalidFields extends DomainError {
  override name = "InvalidFields";
  constructor(message: string, fields: Record<string, string>) {
    super("invalid", message, undefined, { fields });
  }
}

/** The password, code or token is wrong, or nobody is signed in: 401. */
export class Unauthenticated extends DomainError {
  override name = "Unauthenticated";
  constructor(message: string) {
    super("unauthenticated", message);
  }
}

/** There is no such thing for this customer: 404. */
export class NotFound extends DomainError {
  override name = "NotFound";
  constructor(message: string, field?: string) {
    super("not_found", message, field);
  }
}

/** The thing is not in a state that allows this (used, expired, already done): 409. */
export class Conflict extends DomainError {
  override name = "Conflict";
  constructor(message: string, details: RefusalDetails = {}) {
    super("conflict", message, undefined, details);
  }
}

/** This person may not do this: 403. */
export class Refused extends DomainError {
  override name = "Refused";
  constructor(message: string) {
    super("refused", message);
  }
}

/** Too many attempts: 429. */
export class TooMany extends DomainError {
  override name = "TooMany";
  constructor(message: string) {
    super("limited", message);
  }
}

/** We cannot serve this yet (the database is not migrated): 503. */
export class Unavailable extends DomainError {
  override name = "Unavailable";
  constructor(message: string) {
    super("unavailable", message);
  }
}

/** A provider we rely on failed (the identity provider): 502. */
export class ProviderFailed extends DomainError {
  override name = "ProviderFailed";
  constructor(message: string) {
    super("upstream", message);
  }
}
