/**
 * The one serializer for island props: dates, maps, sets and big integers survive the trip from
 * the server into the page's data block and back. It is JSON with a tag for each of those types,
 * so the browser reads it with JSON.parse and a ten-line reviver: devalue, which did this before,
 * cost every page 1.7 KB of gzip JavaScript against a budget of 80 KB of which React takes 68.
 * Props are data: a function, a symbol, a number JSON cannot write (NaN, Infinity) or an instance
 * of a class other than Date, Map and Set throws, naming where it is in the props, as Fresh does,
 * so that the mistake shows at the first render instead of as a prop missing in the browser. A
 * cycle throws too (JSON.stringify's own error).
 */

/** The tag key: a NUL character, which no real prop name contains. */
const TAG = "\u0000";

type Tagged =
  | { [TAG]: "date"; v: string }
  | { [TAG]: "bigint"; v: string }
  | { [TAG]: "map"; v: [unknown, unknown][] }
  | { [TAG]: "set"; v: unknown[] }
  | { [TAG]: "undefined" };

/** A prop the browser could not get back as it was on the server; `path` says where it is. */
export class UnserializableProp extends TypeError {
  override name = "UnserializableProp";
  constructor(readonly path: string, readonly what: string, island?: string) {
    super(
      `${island ? `Island ${island}: ` : ""}${path || "the value"} is ${what}, which cannot reach the browser ` +
        "(island props are data).",
    );
  }
}

type Parents = WeakMap<object, [holder: object, key: string]>;

/** Where `holder[key]` is in the value: props.rows[2].amount ("" for the value itself). */
function pathOf(parents: Parents, holder: object, key: string): string {
  let path = "";
  for (let [h, k] = [holder, key];;) {
    const up = parents.get(h);
    // Only JSON's wrapper of the whole value ({"": value}) has no parent.
    if (!up) break;
    // A tag's own keys are not the value's: a Map's entries read as m[0][1], not m.v[0][1].
    if (!(TAG in h)) {
      path = (Array.isArray(h) ? `[${k}]` : /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`) + path;
    }
    [h, k] = up;
  }
  return path.replace(/^\./, "");
}

/** What a value is, when it is not data. */
function notData(value: unknown): string | null {
  switch (typeof value) {
    case "function":
      return `a function (${value.name || "anonymous"})`;
    case "symbol":
      return `a symbol (${value.toString()})`;
    case "number":
      return Number.isFinite(value) ? null : `${value}`;
    case "object": {
      if (value === null || Array.isArray(value)) return null;
      const proto = Object.getPrototypeOf(value);
      if (proto === Object.prototype || proto === null) return null;
      return `an instance of ${proto?.constructor?.name ?? "a class"}`;
    }
    default:
      return null;
  }
}

export function serializeProps(value: unknown): string {
  // Each object and array met, with where it was: only an error reads them, to say where it is.
  const parents: Parents = new WeakMap();
  const text = JSON.stringify(value, function (this: Record<string, unknown>, key, replaced) {
    // `replaced` has been through toJSON (a Date is already a string); the original is this[key].
    const original = this[key];
    let out: unknown;
    if (original instanceof Date) out = { [TAG]: "date", v: original.toISOString() } satisfies Tagged;
    else if (typeof original === "bigint") out = { [TAG]: "bigint", v: original.toString() } satisfies Tagged;
    else if (original instanceof Map) out = { [TAG]: "map", v: [...original] } satisfies Tagged;
    else if (original instanceof Set) out = { [TAG]: "set", v: [...original] } satisfies Tagged;
    else if (original === undefined && Array.isArray(this)) out = { [TAG]: "undefined" } satisfies Tagged;
    else {
      const what = notData(original);
      if (what) throw new UnserializableProp(pathOf(parents, this, key), what);
      out = replaced;
    }
    if (out !== null && typeof out === "object") parents.set(out, [this, key]);
    return out;
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
