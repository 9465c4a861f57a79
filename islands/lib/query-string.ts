/**
 * GET query objects travel in the query string (SPEC.md section 7): primitives as they are,
 * nested values (objects, arrays) as JSON, so the server can read them back with JSON.parse.
 */
export type Query = Record<string, unknown>;

/** `{ id: 5, filter: { a: 1 }, skip: null }` → `id=5&filter=%7B%22a%22%3A1%7D` (no leading "?"). */
export function toQueryString(query?: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    // Absent values are left out rather than sent as "null" / "undefined", which the server would
    // read as text.
    if (value === null || value === undefined) continue;
    params.append(key, encodeValue(value));
  }
  return params.toString();
}

function encodeValue(value: unknown): string {
  // A date is a single value, not a nested one: JSON would wrap it in quotes.
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** Appends a query to a path that may already carry one. */
export function withQuery(path: string, query?: Query): string {
  const text = toQueryString(query);
  if (!text) return path;
  return path + (path.includes("?") ? "&" : "?") + text;
}
