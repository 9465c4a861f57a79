import { expect, test } from "vitest";
import { expectStatus, registerCustomer, signinApp } from "../helpers/client.ts";

test("the layouts' Sign out form ends the session on the server and goes home", async () => {
  const t = await signinApp();
  const customer = await registerCustomer(t);
  expectStatus(await customer.client.get("account/whoami"), 200);
  const copy = customer.client.clone(); // the same cookie, as a stolen copy would hold it

  const res = await customer.client.post("/logout");
  expect(res.status).toBe(303);
  expect(res.headers.get("location")).toBe("/");
  expectStatus(await customer.client.get("account/whoami"), 401);
  expectStatus(await copy.get("account/whoami"), 401);
});

test("Sign out from another site is refused and the session lives on", async () => {
  const t = await signinApp();
  const customer = await registerCustomer(t);
  const res = await customer.client.post("/logout", undefined, { origin: "https://evil.example" });
  expect(res.status).toBe(403);
  expectStatus(await customer.client.get("account/whoami"), 200);
});
