import { beforeAll, describe, expect, test } from "vitest";
import { authGoesTo, businessOwner, invitationToken, invite } from "../helpers/account-users.ts";
import { type Admin, expectStatus, signIn, TestClient } from "../helpers/client.ts";
import { balances, fund, type MoneyApp, moneyApp, type OpenCustomer, openCustomer } from "../helpers/money.ts";

let t: MoneyApp;
let admin: Admin;
let business: OpenCustomer;
/** A Personal customer with GBP 100.00 on their own account, who is also a payer of `business`. */
let person: OpenCustomer;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  business = await businessOwner(t, admin);
  await fund(t, admin, business, "EUR", "5000.00");
  person = await openCustomer(t);
  await fund(t, admin, person, "GBP", "100.00");
  expectStatus(await invite(business.client, person.email, "payer"), 201);
  expectStatus(
    await person.client.post("account/users/accept", { token: await invitationToken(t, person.email) }),
    200,
  );
});

/** A new browser where the person signs in: a session that has chosen no account yet. */
async function freshSession(): Promise<TestClient> {
  const client = new TestClient(t);
  await signIn(client, person.email, person.password);
  return client;
}

describe("a login with two accounts", () => {
  test("/auth sends it to /account-select while the session has chosen none", async () => {
    const client = await freshSession();
    expect(await authGoesTo(client)).toBe("/account-select");
    const page = await client.get("/account/balances");
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toBe("/account-select");
    const call = await client.get("account/balances");
    expectStatus(call, 403);
    expect(call.json.redirect).toBe("/account-select");
    expectStatus(await client.get("/account-select"), 200);
  });

  test("lists both accounts with the role on each and none current", async () => {
    const client = await freshSession();
    const res = await client.get("account/linked");
    expectStatus(res, 200);
    // In the order the accounts opened: the business account first.
    expect(res.json.body).toEqual([
      { account_ref: business.accountRef, name: "Acme Trading Ltd", type: "Business", role: "payer", current: false },
      { account_ref: person.accountRef, name: "Ada Lovelace", type: "Personal", role: "owner", current: false },
    ]);
  });

  test("after choosing, every page and call acts on the chosen account", async () => {
    const client = await freshSession();
    const chosen = await client.post("account/select", { account_ref: business.accountRef });
    expectStatus(chosen, 200);
    expect(chosen.json).toMatchObject({
      body: { account_ref: business.accountRef, current: true },
      redirect: "/account",
    });
    expect(await authGoesTo(client)).toBe("/account");
    expect(await balances(client)).toEqual({ EUR: "5000.00" });
    expect((await client.get("account/funding")).json.body.account_ref).toBe(business.accountRef);
    const users = await client.get("account/users");
    expect(users.json.body.map((u: { email: string }) => u.email)).toContain(business.email);
    const dashboard = await client.get("/account");
    expect(dashboard.status).toBe(200);
    expect(dashboard.text).toContain(`data-current-account="${business.accountRef}"`);
    expect(dashboard.text).toContain("Switch account");

    expectStatus(await client.post("account/select", { account_ref: person.accountRef }), 200);
    expect(await balances(client)).toEqual({ GBP: "100.00" });
    expect((await client.get("account/linked")).json.body.filter((a: { current: boolean }) => a.current)).toEqual([
      expect.objectContaining({ account_ref: person.accountRef }),
    ]);
  });

  test("an Idempotency-Key is the account's it was sent on: the same key and body on the other account is done there, not replayed", async () => {
    const client = await freshSession();
    const recipient = {
      name: "Jean Dupont",
      type: "person",
      currency: "EUR",
      country: "FR",
      details: { iban: "FR1420041010050500013M02606", bic: "PSSTFRPPPAR" },
    };
    const key = { "Idempotency-Key": `linked-${crypto.randomUUID()}` };
    expectStatus(await client.post("account/select", { account_ref: business.accountRef }), 200);
    const onBusiness = await client.post("account/recipients", recipient, key);
    expectStatus(onBusiness, 201);
    expectStatus(await client.post("account/select", { account_ref: person.accountRef }), 200);
    const onPersonal = await client.post("account/recipients", recipient, key);
    expectStatus(onPersonal, 201);
    expect(onPersonal.headers.get("idempotent-replayed")).toBeNull();
    expect(onPersonal.json.body.id).not.toBe(onBusiness.json.body.id);
    const listed = (await client.get("account/recipients")).json.body.items as { id: number }[];
    expect(listed.map((r) => r.id)).toContain(onPersonal.json.body.id);
    // Back on the first account, the key still answers its own first answer.
    expectStatus(await client.post("account/select", { account_ref: business.accountRef }), 200);
    const again = await client.post("account/recipients", recipient, key);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.json.body.id).toBe(onBusiness.json.body.id);
  });

  test("the header says which account the page is on: 'Personal account' for the person's own, the business's name for the business", async () => {
    const client = await freshSession();
    const named = async () => {
      const page = await client.get("/account/balances");
      expectStatus(page, 200);
      return /data-account-name[^>]*>([^<]*)</.exec(page.text)?.[1];
    };
    expectStatus(await client.post("account/select", { account_ref: person.accountRef }), 200);
    expect(await named()).toBe("Personal account");
    expectStatus(await client.post("account/select", { account_ref: business.accountRef }), 200);
    const businessName = (await client.get("account/linked")).json.body
      .find((a: { account_ref: string }) => a.account_ref === business.accountRef).name;
    expect(await named()).toBe(businessName);
  });

  test("the choice belongs to the session: another browser chooses for itself", async () => {
    const one = await freshSession();
    const two = await freshSession();
    expectStatus(await one.post("account/select", { account_ref: business.accountRef }), 200);
    expect(await authGoesTo(two)).toBe("/account-select");
  });

  test("an account the login does not belong to cannot be chosen: 404, the same as one that does not exist", async () => {
    const stranger = await businessOwner(t, admin);
    const client = await freshSession();
    const res = await client.post("account/select", { account_ref: stranger.accountRef });
    expectStatus(res, 404);
    expectStatus(await client.post("account/select", { account_ref: "B00000000" }), 404);
    expect(await authGoesTo(client)).toBe("/account-select");
  });

  test("a removed membership falls back to the account left", async () => {
    const other = await openCustomer(t);
    const team = await businessOwner(t, admin);
    expectStatus(await invite(team.client, other.email, "viewer"), 201);
    expectStatus(
      await other.client.post("account/users/accept", { token: await invitationToken(t, other.email) }),
      200,
    );
    expect((await other.client.get("account/funding")).json.body.account_ref).toBe(team.accountRef);
    const users = await team.client.get("account/users");
    const member = users.json.body.find((u: { email: string }) => u.email === other.email);
    expectStatus(await team.client.delete(`account/users/${member.id}`), 200);
    expect((await other.client.get("account/funding")).json.body.account_ref).toBe(other.accountRef);
    expect(await authGoesTo(other.client)).toBe("/account");
  });
});

describe("a login with one account", () => {
  test("goes straight to /account and the header offers no switch", async () => {
    const single = await openCustomer(t);
    expect(await authGoesTo(single.client)).toBe("/account");
    const page = await single.client.get("/account");
    expect(page.text).toContain(`data-current-account="${single.accountRef}"`);
    expect(page.text).not.toContain("Switch account");
  });
});

describe("an administrator acting on behalf of a customer with two accounts", () => {
  test("chooses among the customer's accounts for their own session, and acts on that one", async () => {
    expectStatus(await admin.client.post("account/onbehalf", { on_behalf_of: person.id }), 200);
    try {
      const before = await admin.client.get("account/balances");
      expectStatus(before, 403);
      expect(before.json.redirect).toBe("/account-select");
      const linked = await admin.client.get("account/linked");
      expect(linked.json.body.map((a: { account_ref: string }) => a.account_ref)).toEqual([
        business.accountRef,
        person.accountRef,
      ]);
      expectStatus(await admin.client.post("account/select", { account_ref: business.accountRef }), 200);
      expect(await balances(admin.client)).toEqual({ EUR: "5000.00" });
      // The customer's own sessions are not moved by it.
      const own = await freshSession();
      expect(await authGoesTo(own)).toBe("/account-select");
    } finally {
      expectStatus(await admin.client.delete("account/onbehalf"), 200);
    }
    // Acting for the customer again starts without a choice.
    expectStatus(await admin.client.post("account/onbehalf", { on_behalf_of: person.id }), 200);
    try {
      expect((await admin.client.get("account/balances")).json.redirect).toBe("/account-select");
    } finally {
      expectStatus(await admin.client.delete("account/onbehalf"), 200);
    }
  });
});
