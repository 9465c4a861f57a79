import transliterate from "@sindresorhus/transliterate";

/**
 * The characters a SEPA file may carry. The EPC rulebooks oblige every SEPA bank to accept only the
 * basic Latin set: a-z A-Z 0-9 / - ? : ( ) . , ' + and space. Some communities accept more (German
 * umlauts, Greek), but a file written in the basic set is accepted by every SEPA bank, so we write
 * nothing else (decision 020).
 */
const SEPA_CHARACTERS = /^[A-Za-z0-9/\-?:().,'+ ]*$/;
const NOT_SEPA_CHARACTER = /[^A-Za-z0-9/\-?:().,'+ ]/gu;

/**
 * Punctuation outside the set that has a near equivalent inside it; anything else outside the set
 * (after transliteration) becomes a space. "&" as "+" keeps "Smith & Sons" readable.
 */
const NEAREST: Readonly<Record<string, string>> = {
  "&": "+",
  '"': "'",
  "`": "'",
  "_": "-",
  "[": "(",
  "]": ")",
  "{": "(",
  "}": ")",
  "<": "(",
  ">": ")",
  ";": ",",
  "!": ".",
};

export interface SepaText {
  /** What goes into the file: basic Latin only, white space collapsed, at most the field's length. */
  readonly text: string;
  /** True when the text differs from what was given (beyond trimming and collapsed white space). */
  readonly changed: boolean;
  /** True when the text was cut to the field's length. */
  readonly truncated: boolean;
}

/**
 * A free-text field (a name, remittance information) in the SEPA character set: letters with
 * accents and other scripts are transliterated (Müller → Mueller, Łukasz → Lukasz, Δημήτρης →
 * Dimitris), punctuation outside the set becomes its nearest equivalent or a space, and the text is
 * cut to `maxLength`. The result may be empty (a name in a script with no Latin transliteration,
 * such as Chinese); the caller refuses that.
 */
export function toSepaText(given: string, maxLength: number): SepaText {
  const tidy = collapse(given.normalize("NFC"));
  const latin = transliterate(tidy).replace(NOT_SEPA_CHARACTER, (c) => NEAREST[c] ?? " ");
  const whole = collapse(latin);
  const text = whole.length > maxLength ? whole.slice(0, maxLength).trimEnd() : whole;
  return { text, changed: text !== tidy, truncated: text.length < whole.length };
}

/** True when every character of `text` is in the SEPA basic Latin set. */
export function isSepaText(text: string): boolean {
  return SEPA_CHARACTERS.test(text);
}

/**
 * An identifier we write (message id, end-to-end id) must come back unchanged in the bank's reports,
 * so it is never transliterated: it is refused unless it is 1 to 35 characters of the SEPA set
 * without spaces, neither starts nor ends with "/" and has no "//" (the EPC's rule for references).
 */
export function sepaIdentifierProblem(id: string): string | null {
  if (id.length === 0) return "is empty";
  if (id.length > 35) return `is ${id.length} characters long; at most 35 are allowed`;
  if (!isSepaText(id) || id.includes(" ")) {
    return "may hold only the letters A-Z and a-z, digits and / - ? : ( ) . , ' + (no spaces)";
  }
  if (id.startsWith("/") || id.endsWith("/") || id.includes("//")) {
    return 'may not start or end with "/" nor contain "//"';
  }
  return null;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
