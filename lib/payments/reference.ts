/**
 * What is wrong with a payment's reference under a rail's rules (lib/payments/rail-rules.ts), in
 * the customer's words. A module of its own: the payment screen gets the rules of its recipients'
 * rails from the server and checks with this, without loading every rail's table.
 */

export interface ReferenceRules {
  /** The rail in the customer's words. */
  name: string;
  /** The longest reference the rail carries. */
  max: number;
  /** The characters the rail carries, as the source of one character class. */
  characters: string;
  /** Those characters in words. */
  charactersText: string;
}

/**
 * A reference is required: the recipient and their bank match the payment by it. Judged as sent:
 * without the spaces around it, which the server trims (so the screen never refuses a reference at
 * the limit with a space typed after it, which the server would take).
 */
export function referenceProblemUnder(rules: ReferenceRules, typed: string): string | null {
  const reference = typed.trim();
  if (reference === "") return "Enter a reference for the recipient.";
  const length = [...reference].length;
  if (length > rules.max) {
    return `A ${rules.name} carries a reference of at most ${rules.max} characters; this one has ${length}.`;
  }
  const allowed = new RegExp(rules.characters);
  const others = [...new Set([...reference].filter((c) => !allowed.test(c)))];
  if (others.length) {
    return `A ${rules.name} carries only ${rules.charactersText} in the reference, not ${
      others.map((c) => `“${c}”`).join(" ")
    }.`;
  }
  return null;
}
