import { parse, stringify } from "devalue";

/**
 * The one serializer for island props: dates, maps, sets, big integers and repeated references
 * survive the trip from the server into the page's data block and back.
 */
export function serializeProps(value: unknown): string {
  // `<` only occurs inside strings in the output; escaping it keeps "</script>" out of the page.
  return stringify(value).replaceAll("<", "\\u003c");
}

export function deserializeProps<T = unknown>(text: string): T {
  return parse(text) as T;
}
