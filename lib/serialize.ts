/**
 * The one serializer for island props: dates, maps, sets and big integers survive the trip from
 * the server into the page's data block and back. It is JSON with a tag for each of those types,
 * so the browser reads it with JSON.parse and a ten-line reviver: devalue, which did this before,
 * cost every page 1.7 KB of gzip JavaScript against a budget of 80 KB of which React takes 68.
 * Props are data: functions, class instances and cycles are not supported (JSON.stringify throws
 * on a cycle, as it should).
 */

/** The tag key: a NUL character, which no real prop name contains. */
const TAG = "\u0000";

type Tagged =
  | { [TAG]: "date"; v: string }
  | { [TAG]: "bigint"; v: string }
  | { [TAG]: "map"; v: [unknown, unknown][] }
  | { [TAG]: "set"; v: unknown[] }
  | { [TAG]: "undefined" };

export function serializeProps(value: unknown): string {
  const text = JSON.stringify(value, function (this: Record<string, unknown>, key, replaced) {
    // `replaced` has been through toJSON (a Date is already a string); the original is this[key].
    const original = this[key];
    if (original instanceof Date) return { [TAG]: "date", v: original.toISOString() } satisfies Tagged;
    if (typeof original === "bigint") return { [TAG]: "bigint", v: original.toString() } satisfies Tagged;
    if (original instanceof Map) return { [TAG]: "map", v: [...original] } satisfies Tagged;
    if (original instanceof Set) return { [TAG]: "set", v: [...original] } satisfies Tagged;
    if (original === undefined && Array.isArray(this)) return { [TAG]: "undefined" } satisfies Tagged;
    return replaced;
  });
  // `<` only occurs inside strings in JSON; escaping it keeps "</script>" out of the page.
  return text.replaceAll("<", "\\u003c");
}

export function deserializeProps<T = unknown>(text: string): T {
  return JSON.parse(text, (_key, value) => {
    if (value === null || typeof value !== "object" || !(TAG in value)) return value;
    const tagged = value as Tagged;
    switch (tagged[TAG]) {
      case "date":
        return new Date(tagged.v);
      case "bigint":
        return BigInt(tagged.v);
      case "map":
        return new Map(tagged.v);
      case "set":
        return new Set(tagged.v);
      case "undefined":
        return undefined;
    }
  }) as T;
}
