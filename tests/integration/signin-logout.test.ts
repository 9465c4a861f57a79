import { expect } from "vitest";
import { expectStatus, signIn, TestClient } from "../helpers/client.ts";
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

/** The security page's "Sign out everywhere" form, as the browser posts it. */
const signOutEverywhere = (client: TestClient) =>
  client.post("/logout", "everywhere=1", { "content-type": "application/x-www-form-urlencoded" });

test("Sign out everywhere ends every session of the login, on every device, this one too", async ({ app, customer }) => {
  // Left signed in on a shared computer.
  const elsewhere = new TestClient(app);
  expectStatus(await signIn(elsewhere, customer.email, customer.password), 200);
  const page = await customer.client.get("/account/security");
  expect(page.text).toContain('name="everywhere"');

  const res = await signOutEverywhere(customer.client);
  expect(res.status).toBe(303);
  expect(res.headers.get("location")).toBe("/");
  expectStatus(await elsewhere.get("account/whoami"), 401);
  expectStatus(await customer.client.get("account/whoami"), 401);
});

test("a session that has only passed the password cannot sign the owner out everywhere: only itself", async ({ app, customer }) => {
  const halfway = new TestClient(app);
  expectStatus(await halfway.post("auth/login", { email: customer.email, password: customer.password }), 200);

  expect((await signOutEverywhere(halfway)).status).toBe(303);
  expectStatus(await halfway.get("account/whoami"), 401);
  expectStatus(await customer.client.get("account/whoami"), 200);
});
