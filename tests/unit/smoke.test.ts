import { describe, expect, test } from "vitest";
import { deserializeProps, serializeProps } from "../../lib/serialize.ts";

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
});
