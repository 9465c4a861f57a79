import { expect } from "vitest";
import { expectStatus } from "../helpers/client.ts";
import { test } from "../helpers/fixtures.ts";

test("the layouts' Sign out form ends the session on the server and goes home", async ({ customer }) => {
  expectStatus(await customer.client.get("account/whoami"), 200);
  const copy = customer.client.clone(); // the same cookie, as a stolen copy would hold it

  const res = await customer.client.post("/logout");
  expect(res.status).toBe(303);
  expect(res.headers.get("location")).toBe("/");
  expectStatus(await customer.client.get("account/whoami"), 401);
  expectStatus(await copy.get("account/whoami"), 401);
});

test("Sign out from another site is refused and the session lives on", async ({ customer }) => {
  const res = await customer.client.post("/logout", undefined, { origin: "https://evil.example" });
  expect(res.status).toBe(403);
  expectStatus(await customer.client.get("account/whoami"), 200);
});
