import { describe, expect, test } from "vitest";
import { deserializeProps, serializeProps, UnserializableProp } from "../../lib/serialize.ts";

describe("the island props serializer", () => {
  test("keeps dates, big integers, maps and sets, nested at any depth", () => {
    const value = {
      at: new Date("2026-01-02T03:04:05.678Z"),
      n: 12345678901234567890n,
      byCurrency: new Map<string, unknown>([["GBP", { held: 1n, since: new Date(0) }], ["EUR", null]]),
      tags: new Set(["a", "b"]),
      list: [1, "two", undefined, { three: 3 }],
      text: "plain",
    };
    expect(deserializeProps(serializeProps(value))).toEqual(value);
  });

  test("keeps markup in text out of the page: no '</script>' survives in the output", () => {
    const value = { alt: "</script><script>alert(1)</script>", note: "<!-- -->" };
    const text = serializeProps(value);
    expect(text).not.toContain("<");
    expect(deserializeProps(text)).toEqual(value);
  });

  test("an object whose keys only look like tags stays a plain object", () => {
    const value = { $date: "2026-01-01", v: "x", "\\u0000": "escaped text, not a tag" };
    expect(deserializeProps(serializeProps(value))).toEqual(value);
  });

  // Fresh throws here too: a prop the browser would not get back is a mistake to see at once.
  test.each([
    ["a function", { props: { onSave() {} } }, "props.onSave is a function (onSave)"],
    ["an arrow function in a list", { rows: [{ id: 1 }, { id: 2, format: () => "" }] }, "rows[1].format is a function"],
    ["a symbol", { props: { kind: Symbol("draft") } }, "props.kind is a symbol (Symbol(draft))"],
    ["a class instance", { props: { site: new URL("https://example.com") } }, "props.site is an instance of URL"],
    ["a number JSON cannot write", { props: { rate: Number.NaN } }, "props.rate is NaN"],
    ["a function inside a map", { byCode: new Map([["GBP", { pick() {} }]]) }, "byCode[0][1].pick is a function"],
    ["a function inside a set", { seen: new Set([1, () => 2]) }, "seen[1] is a function"],
    ["a key that is not a name", { props: { "fee-rule": () => 0 } }, 'props["fee-rule"] is a function'],
    ["a function as the whole value", () => 1, "the value is a function"],
  ])("throws on %s, naming where it is", (_what, value, message) => {
    expect(() => serializeProps(value)).toThrow(UnserializableProp);
    expect(() => serializeProps(value)).toThrow(message);
  });
});
