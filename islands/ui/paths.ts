/**
 * Form values as one nested object addressed by dotted paths ("address.country", "ubos.1"), the
 * same paths the server's 422 `fields` use, so each message lands under its input.
 */

/** The value at a dotted path. */
export function getIn(values: unknown, path: string): unknown {
  let at: unknown = values;
  for (const key of path.split(".")) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** A copy of `values` with `value` at the dotted path; arrays stay arrays. */
export function setIn<T>(values: T, path: string, value: unknown): T {
  const [key, ...rest] = path.split(".");
  const copy = (Array.isArray(values) ? [...values] : { ...values }) as Record<string, unknown>;
  copy[key] = rest.length ? setIn(copy[key] ?? (/^\d+$/.test(rest[0]) ? [] : {}), rest.join("."), value) : value;
  return copy as T;
}

/**
 * Problems without those about `path` itself and the parents it belongs to ("address" for
 * "address.city"), or with `under`, without any at or under `path` (a list whose rows moved).
 */
export function withoutProblems(
  problems: Record<string, string>,
  path: string,
  under = false,
): Record<string, string> {
  const next: Record<string, string> = {};
  for (const [key, message] of Object.entries(problems)) {
    if (key !== path && !(under ? key.startsWith(`${path}.`) : path.startsWith(`${key}.`))) next[key] = message;
  }
  return next;
}
