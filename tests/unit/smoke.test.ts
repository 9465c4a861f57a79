import { expect, test } from "vitest";
import { serializeProps, deserializeProps } from "../../lib/serialize.ts";
test("island props keep dates and big integers through the serializer", () => {
  const value = { at: new Date("2026-01-02T03:04:05Z"), n: 10n, s: "</script>" };
  const text = serializeProps(value);
  expect(text).not.toContain("</script>");
  expect(deserializeProps(text)).toEqual(value);
  expect(typeof Deno).toBe("object");
});
