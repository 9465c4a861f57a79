import { expect, test } from "vitest";
import { loadConfig } from "../../server/config.ts";

/** Where customers write to us (SUPPORT_EMAIL), named wherever a message says to write to us (issue 15). */

test("SUPPORT_EMAIL wins; without it, support@ the portal's own host, or support@portal.localhost locally", () => {
  const support = (env: Record<string, string>) => loadConfig(env).supportEmail;
  expect(support({ SUPPORT_EMAIL: "help@example.org", PUBLIC_URL: "https://portal.example.com" })).toBe(
    "help@example.org",
  );
  expect(support({ PUBLIC_URL: "https://www.portal.example.com" })).toBe("support@portal.example.com");
  expect(support({ PUBLIC_URL: "https://pay.example.org/" })).toBe("support@pay.example.org");
  expect(support({ PUBLIC_URL: "http://localhost:8000" })).toBe("support@portal.localhost");
  expect(support({})).toBe("support@portal.localhost");
});
