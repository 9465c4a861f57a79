/**
 * Schemas that many contracts share, each with the words a customer reads when it fails.
 */
import { z } from "zod";
import { labelled } from "./messages.ts";

/** An amount as the API writes it: a decimal string with the currency's digits ("100.00", "15000"). */
export const amountText = z.string();
/** A rate: a decimal string ("1.171200"). */
export const rateText = z.string();
/** A moment as the API writes it: ISO 8601 UTC. */
export const timestamp = z.string();
/** A currency code as the API writes it ("GBP"). */
export const currencyCode = z.string();

/** A currency the client names; which codes are supported is the server's rule. */
export const currencyInput = (missing: string) =>
  text({ label: "The currency", max: 32, missing, wrong: missing }).toUpperCase();

/** Which side of a price is fixed: what is sold (paid) or what is bought (received). */
export const fixedSide = z.enum(["sell", "buy"], { error: "fixed is sell or buy." });

const ID_PROBLEM = "The id is a whole number from 1, written in digits only.";

/**
 * A record's id in a path, a query or a body: a canonical positive integer ("5", never "05", "5.0",
 * " 5", "+5" or "0x5"), at most Number.MAX_SAFE_INTEGER, so that it is exactly the number read.
 */
export const idText = z.string({ error: ID_PROBLEM })
  .regex(/^[1-9][0-9]{0,15}$/, { error: ID_PROBLEM, abort: true })
  .refine((digits) => Number.isSafeInteger(Number(digits)), { error: ID_PROBLEM })
  .transform(Number);

/**
 * A record's id in a JSON body: a whole JSON number from 1, or the same written as `idText`. JSON
 * has one number 5 however it is written (5, 5.0, 5e0 all parse to it), so a number is taken by
 * its value; a string must be canonical, as in a path.
 */
export function idValue(problem: string) {
  return z.union([z.int().positive().max(Number.MAX_SAFE_INTEGER), idText], { error: problem });
}

/** Page numbers of a paginated list: 1 unless given. */
export const pageQuery = {
  page: z.string().regex(/^[1-9][0-9]{0,6}$/, { error: "page is a whole number from 1." }).transform(Number)
    .optional().default(1),
  per_page: z.string().regex(/^[1-9][0-9]{0,2}$/, { error: "per_page is a whole number from 1 to 100." })
    .transform(Number).pipe(z.number().max(100, { error: "per_page is a whole number from 1 to 100." }))
    .optional().default(20),
};

/**
 * The account the page that links to a download shows (`account_ref`, lib/api-types.ts
 * ACCOUNT_PARAM): a link cannot send X-Account-Ref, so it names the account in its address, and the
 * call answers 409 account_changed when the session works on another one (decision 075).
 */
export const shownAccountQuery = {
  account_ref: text({
    label: "The account",
    max: 20,
    missing: "account_ref is the account_ref of the account the page shows.",
    wrong: "account_ref is the account_ref of the account the page shows.",
    tooLong: "account_ref is the account_ref of the account the page shows.",
  }).optional(),
};

/** A page of a list. */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), page: z.number(), per_page: z.number(), total: z.number() });

// ---------------------------------------------------------------------------------------------
// Text

/**
 * Characters refused in a text field, and why. Control characters (NUL, escape, line breaks in a
 * one-line field) are never text a person typed; bidirectional overrides, embeddings, isolates and
 * marks reorder what a reader sees (a name shown as "Ada" that is stored as something else, a
 * reference that reads backwards); U+2028 and U+2029 break lines where no line break is allowed.
 */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const CONTROLS_ONE_LINE = /[\p{Cc}\u2028\u2029]/u;
/** A multi-line text keeps its line breaks and tabs; nothing else of the kind. */
const CONTROLS_MULTI_LINE = /[[\p{Cc}\u2028\u2029]--[\n\r\t]]/v;

/** What is wrong with the characters of `value`, to follow a field's label; undefined if nothing. */
export function characterProblem(value: string, multiline = false): string | undefined {
  // A lone surrogate is half of a character: it cannot be stored, compared or shown faithfully.
  if (!value.isWellFormed()) return "contains a broken character (invalid Unicode).";
  if ((multiline ? CONTROLS_MULTI_LINE : CONTROLS_ONE_LINE).test(value)) {
    return multiline
      ? "contains a control character, which is not allowed."
      : "contains a line break or a control character, which is not allowed.";
  }
  if (BIDI_CONTROLS.test(value)) {
    return "contains a character that changes the direction of text, which is not allowed.";
  }
  return undefined;
}

export interface TextOptions {
  /** The field as a sentence starts with it: "First name", "The payer's name", "Your email address". */
  label: string;
  /** The most characters (code points) it may have once trimmed. */
  max: number;
  /** The fewest characters once trimmed: 1 (required) unless 0 (may be empty). */
  min?: number;
  /** Line breaks and tabs are allowed (and CRLF is kept as LF). */
  multiline?: boolean;
  /** Kept exactly as sent, neither trimmed nor normalised: a password is compared byte for byte. */
  secret?: boolean;
  /** The words when it is missing or empty; "<label> is required." unless given. */
  missing?: string;
  /** The words when it is not text; "<label> must be text." unless given. */
  wrong?: string;
  /** The words when it is longer than `max`; "<label> must have at most <max> characters." unless given. */
  tooLong?: string;
}

/**
 * The one schema of a text field (decision 024): text only, refused with the field's label when it
 * holds a control character (but line breaks where `multiline`), a bidirectional control or
 * invalid Unicode; then NFC-normalised and trimmed (unless `secret`), and held to its length.
 * A ZodString, so a field can add its own rules (`.toUpperCase()`, `.regex()`, `.pipe(z.email())`).
 */
export function text(options: TextOptions) {
  const { label, max, min = 1, multiline = false, secret = false } = options;
  const missing = options.missing ?? `${label} is required.`;
  const wrong = options.wrong ?? `${label} must be text.`;
  let schema = z.string({ error: (iss) => (iss.input === undefined || iss.input === null ? missing : wrong) })
    .refine((value) => characterProblem(value, multiline) === undefined, {
      error: (iss) => `${label} ${characterProblem(String(iss.input), multiline)}`,
      abort: true,
    });
  if (!secret) {
    schema = schema.overwrite((value) => {
      const normal = value.normalize("NFC").trim();
      return multiline ? normal.replace(/\r\n?/g, "\n") : normal;
    });
  }
  if (min > 0) {
    schema = schema.min(min, { error: min === 1 ? missing : `${label} must have at least ${min} characters.` });
  }
  const tooLong = options.tooLong ?? `${label} must have at most ${max} characters.`;
  const field = labelled(schema.max(max, { error: tooLong }), label);
  if (multiline) MULTILINE_TEXTS.add(field);
  return field;
}

/**
 * A calendar day written YYYY-MM-DD (a filter's first or last day, UTC), told once when it is not
 * one: the format check aborts, so a text that is no date is not refused again by the calendar
 * check, which catches a day that does not exist (2026-02-30).
 */
export function calendarDay(field: string, label = `The date ${field}`) {
  const problem = `${field} is a date written YYYY-MM-DD.`;
  return text({ label, max: 10, wrong: problem, missing: problem })
    .regex(/^\d{4}-\d{2}-\d{2}$/, { error: problem, abort: true })
    .refine(
      (d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
      { error: problem },
    );
}

/** The text fields that take line breaks: the contract walkers hold every other one to a single line. */
export const MULTILINE_TEXTS = new WeakSet<z.ZodType>();
