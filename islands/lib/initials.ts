/**
 * The initials an avatar shows when its image fails (SPEC.md section 4): the first letters of the
 * first two words of its alt text, upper-cased. "Ada Lovelace" → "AL", "ada" → "A", "  " → "".
 *
 * Unicode-aware: a "letter" is a whole user-perceived character, so a decomposed "É" (E plus a
 * combining accent) or an astral character stays whole. Words are runs separated by white space;
 * leading punctuation in a word is skipped ("“Ada” Lovelace" → "AL"), and a word with no letter or
 * digit at all ("&", "—") does not count as a word.
 */

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

const segmenter = typeof Intl !== "undefined" && "Segmenter" in Intl
  ? new Intl.Segmenter(undefined, { granularity: "grapheme" })
  : null;

function graphemes(word: string): string[] {
  if (segmenter) return Array.from(segmenter.segment(word), (s) => s.segment);
  // Fallback: a code point with the combining marks that follow it.
  return word.match(/\P{M}\p{M}*/gu) ?? [];
}

/** The first letter (or digit) of a word as a whole grapheme, or "" when it has none. */
function firstLetter(word: string): string {
  return graphemes(word).find((g) => LETTER_OR_DIGIT.test(g)) ?? "";
}

/** Every signed-in page shows the person's avatar: the same few names, segmented once each. */
const known = new Map<string, string>();

export function initials(alt: string): string {
  let found = known.get(alt);
  if (found === undefined) {
    found = initialsOf(alt);
    if (known.size >= 1000) known.clear();
    known.set(alt, found);
  }
  return found;
}

function initialsOf(alt: string): string {
  const letters: string[] = [];
  for (const word of alt.split(/\s+/u)) {
    if (letters.length === 2) break;
    const letter = firstLetter(word);
    if (letter) letters.push(letter);
  }
  return letters.join("").toUpperCase();
}
