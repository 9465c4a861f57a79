import { expect, test } from "vitest";
import { constantTimeEqual } from "../../server/auth/tokens.ts";

test("constantTimeEqual tells equal strings from different ones, whatever their lengths", () => {
  expect(constantTimeEqual("123456", "123456")).toBe(true);
  expect(constantTimeEqual("123456", "123457")).toBe(false);
  expect(constantTimeEqual("123456", "1234567")).toBe(false);
  expect(constantTimeEqual("", "")).toBe(true);
  expect(constantTimeEqual("", "0")).toBe(false);
  expect(constantTimeEqual("é", "e\u0301")).toBe(false);
});
