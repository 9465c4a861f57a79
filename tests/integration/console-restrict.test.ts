import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import type { CallContract } from "../../lib/contracts/define.ts";
import { ACCOUNT_RESTRICTED_MESSAGE, RESTRICTED_MESSAGE } from "../../lib/restriction.ts";
import { REGISTERED_CALLS } from "../../server/http/route.ts";
import { type Admin, type Customer, expectStatus, registerCustomer } from "../helpers/client.ts";
import {
  balances,
  customerWithoutAccount,
  expectLedgerSound,
  fundedCustomer,
  type MoneyApp,
  moneyApp,
  type OpenCustomer,
  openCustomer,
} from "../helpers/money.ts";
import { addMember, paymentAccount } from "../helpers/payments.ts";

/**
 * Restricting a customer (issue 11 item 1, decision 048): the administrator restricts with a
 * reason and lifts it, both audited; a restricted customer still signs in and sees everything, but
 * every call that moves money answers 403 with the reason why, and nothing else is refused; lifting
 * restores them. The list of customers filters by type, step, restriction, balance and sign-up days.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;
let ada: OpenCustomer;
let other: OpenCustomer;
let waiting: Customer;
let fresh: Customer;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  ada = await fundedCustomer(t, admin, "GBP", "1000.00");
  other = await openCustomer(t);
  waiting = await customerWithoutAccount(t);
  fresh = await registerCustomer(t, { type: "Personal" });
});
afterAll(() => expectLedgerSound(t.db));

const GBP_EUR = { sell_currency: "GBP", buy_currency: "EUR", amount: "100.00", fixed: "sell" };

const restrict = (id: number, reason = "Source of funds under review") =>
  admin.client.post(`console/users/${id}/restrict`, { reason });
const lift = (id: number, reason = "Source of funds documented") =>
  admin.client.delete(`console/users/${id}/restrict`, { reason });

/** Every call on a customer's account that changes something: each must say whether it moves money. */
const customerWrites = () =>
  [...REGISTERED_CALLS].filter((call: CallContract) =>
    call.method !== "GET" && (call.guards as readonly string[]).includes("has-account")
  );

const refusedForRestriction = (res: { status: number; json: { error?: unknown } | null }) =>
  res.status === 403 && JSON.stringify(res.json).includes(RESTRICTED_MESSAGE);

/** The call with an empty body at a path whose ids could exist: what it answers the customer. */
async function tryCall(customer: Customer, call: CallContract) {
  const path = call.path.slice(1).replace(/:\w+/g, "1");
  return await customer.client.request(call.method, path, call.method === "GET" ? undefined : {});
}

describe("restricting and lifting", () => {
  test("restrict takes a reason, is shown to the console and in the customer's session summary", async () => {
    const res = await restrict(other.id);
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({
      restricted: true,
      reason: "Source of funds under review",
      by: admin.email,
    });
    expect((await other.client.get("account/whoami")).json.body.restricted).toBe(true);
    const shown = await admin.client.get(`console/users/${other.id}/restrict`);
    expect(shown.json.body).toMatchObject({ restricted: true, reason: "Source of funds under review" });
    expectStatus(await restrict(other.id), 409);
    const lifted = await lift(other.id);
    expectStatus(lifted, 200);
    expect(lifted.json.body).toMatchObject({ restricted: false, reason: null, by: admin.email });
    expect((await other.client.get("account/whoami")).json.body.restricted).toBe(false);
    expectStatus(await lift(other.id), 409);
  });

  test("a restriction sent twice with the same Idempotency-Key restricts once and answers the same", async () => {
    const key = crypto.randomUUID();
    const send = () =>
      admin.client.request("POST", `console/users/${other.id}/restrict`, { reason: "Retried" }, {
        "Idempotency-Key": key,
      });
    const first = await send();
    const again = await send();
    expectStatus(first, 200);
    expectStatus(again, 200);
    expect(again.json).toEqual(first.json);
    const trail = await admin.client.get(`console/audit?customer=${other.id}`);
    const restricts = (trail.json.body as { action: string; after: { reason?: string } }[])
      .filter((e) => e.action === "customer.restrict" && e.after?.reason === "Retried");
    expect(restricts).toHaveLength(1);
    const liftKey = crypto.randomUUID();
    const lifts = [0, 1].map(() =>
      admin.client.request("DELETE", `console/users/${other.id}/restrict`, { reason: "Retried lift" }, {
        "Idempotency-Key": liftKey,
      })
    );
    for (const res of await Promise.all(lifts)) expect([200, 409]).toContain(res.status);
    expect((await other.client.get("account/whoami")).json.body.restricted).toBe(false);
  });

  test("a restriction without a reason is refused naming the field, and nothing changes", async () => {
    const res = await admin.client.post(`console/users/${other.id}/restrict`, { reason: "  " });
    expectStatus(res, 422);
    expect(res.json.fields).toHaveProperty("reason");
    expect((await other.client.get("account/whoami")).json.body.restricted).toBe(false);
  });

  test("lifting without a reason is refused naming the field, and the customer stays restricted", async () => {
    expectStatus(await restrict(other.id, "Checking a payment"), 200);
    for (const body of [undefined, {}, { reason: "  " }, { reason: "x".repeat(501) }]) {
      const res = await admin.client.delete(`console/users/${other.id}/restrict`, body);
      expectStatus(res, 422);
      expect(res.json.fields).toHaveProperty("reason");
    }
    expect((await other.client.get("account/whoami")).json.body.restricted).toBe(true);
    expectStatus(await lift(other.id, "Payment checked: nothing found"), 200);
    const trail = await admin.client.get(`console/audit?customer=${other.id}`);
    expect(trail.json.body[0]).toMatchObject({
      action: "customer.lift",
      before: { restricted: true },
      after: { restricted: false, reason: "Payment checked: nothing found" },
    });
  });

  test("an administrator cannot be restricted, nor an unknown id", async () => {
    expectStatus(await restrict(admin.id), 404);
    expectStatus(await restrict(999_999), 404);
  });

  test("both are in the customer's audit trail, with the reason", async () => {
    const trail = await admin.client.get(`console/audit?customer=${other.id}`);
    const actions = (trail.json.body as { action: string; after: unknown }[]).map((e) => e.action);
    expect(actions.slice(0, 2)).toEqual(["customer.lift", "customer.restrict"]);
    const reasons = (trail.json.body as { action: string; after: unknown }[])
      .filter((e) => e.action === "customer.restrict").map((e) => e.after);
    expect(reasons).toContainEqual({ restricted: true, reason: "Source of funds under review" });
  });

  test("the restriction calls are the console's: 404 to a customer", async () => {
    expectStatus(await ada.client.post(`console/users/${other.id}/restrict`, { reason: "x" }), 404);
    expectStatus(await ada.client.delete(`console/users/${other.id}/restrict`, { reason: "x" }), 404);
    expectStatus(await ada.client.get(`console/users/${other.id}/restrict`), 404);
  });
});

describe("what a restricted customer can do", () => {
  test("every customer call that changes something declares whether it moves money", () => {
    const undeclared = customerWrites().filter((call) => typeof call.movesMoney !== "boolean")
      .map((call) => `${call.method} ${call.path}`);
    expect(undeclared, "Say movesMoney: true or false in each contract").toEqual([]);
    const moving = customerWrites().filter((call) => call.movesMoney).map((call) => `${call.method} ${call.path}`);
    expect(moving.sort()).toEqual([
      "POST /account/conversions",
      "POST /account/conversions/quote",
      "POST /account/payments",
      "POST /account/payments/quote",
      "PUT /account/pendingpayments/update",
    ]);
  });

  test("restrict refuses every money-moving call and nothing else; lifting restores them", async () => {
    expectStatus(await restrict(ada.id), 200);
    const problems: string[] = [];
    const customerCalls = [...REGISTERED_CALLS].filter((call) =>
      (call.guards as readonly string[]).includes("has-account")
    );
    for (const call of customerCalls) {
      const res = await tryCall(ada, call);
      const refused = refusedForRestriction(res);
      if (call.movesMoney && !refused) {
        problems.push(`${call.method} ${call.path}: answered ${res.status}, not refused`);
      }
      if (!call.movesMoney && refused) problems.push(`${call.method} ${call.path}: refused though it moves no money`);
    }
    expect(problems, problems.join("\n")).toEqual([]);

    expectStatus(await lift(ada.id), 200);
    for (const call of customerCalls.filter((c) => c.movesMoney)) {
      const res = await tryCall(ada, call);
      if (refusedForRestriction(res)) problems.push(`${call.method} ${call.path}: still refused after the lift`);
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });

  test("a restricted customer signs in and sees their balances, but cannot convert; lifted, they can", async () => {
    expectStatus(await restrict(ada.id), 200);
    const seen = await ada.client.get("account/balances");
    expectStatus(seen, 200);
    const before = await balances(ada.client);
    const quote = await ada.client.post("account/conversions/quote", GBP_EUR);
    expectStatus(quote, 403);
    expect(quote.json.error).toBe(RESTRICTED_MESSAGE);
    expect(await balances(ada.client)).toEqual(before);

    expectStatus(await lift(ada.id), 200);
    const held = await ada.client.post("account/conversions/quote", GBP_EUR);
    expectStatus(held, 200);
    expectStatus(await ada.client.post("account/conversions", { quote_id: held.json.body.id }), 201);
    expect(await balances(ada.client)).not.toEqual(before);
  });

  test("an administrator acting on behalf of a restricted customer cannot move their money either", async () => {
    expectStatus(await restrict(other.id), 200);
    expectStatus(await admin.client.post("account/onbehalf", { on_behalf_of: other.id }), 200);
    try {
      const res = await admin.client.post("account/conversions/quote", GBP_EUR);
      expect(refusedForRestriction(res)).toBe(true);
    } finally {
      await admin.client.delete("account/onbehalf");
      expectStatus(await lift(other.id), 200);
    }
  });
});

describe("the screens", () => {
  const main = (html: string) => html.slice(html.indexOf("<main"), html.indexOf("</main>"));

  test("the customer's console page shows the restriction, account, balances, plan and payments", async () => {
    expectStatus(await restrict(other.id, "Sanctions screening hit"), 200);
    const page = await admin.client.get(`/console/users/${other.id}`);
    expectStatus(page, 200);
    const shown = main(page.text);
    expect(shown).toContain('data-restriction="on"');
    expect(shown).toContain("Sanctions screening hit");
    expect(shown).toContain(other.accountRef);
    expect(shown).toMatch(/Identity<\/dt><dd>Approved \(sandbox/);
    for (const heading of ["Restriction", "Balances", "Pricing plan", "Payments", "Audit trail"]) {
      expect(shown).toContain(`>${heading}</h2>`);
    }
    expect(shown).toContain("Restricted the customer: no money can move");
    const funded = main((await admin.client.get(`/console/users/${ada.id}`)).text);
    expect(funded).toMatch(/GBP<\/dt><dd>[\d,.]+ available/);
  });

  test("the list links each customer's name to their page, which offers acting on their behalf", async () => {
    const list = main((await admin.client.get("/console/users")).text);
    expect(list).toContain(`href="/console/users/${other.id}"`);
    const page = main((await admin.client.get(`/console/users/${other.id}`)).text);
    expect(page).toMatch(/<button[^>]*aria-label="Act on behalf of [^"]+"[^>]*>Act on behalf<\/button>/);
  });

  test("a restricted customer's pages carry the banner, and the convert and payment forms say so", async () => {
    for (const path of ["/account", "/account/balances"]) {
      const html = (await other.client.get(path)).text;
      expect(html, path).toContain('data-restricted="banner"');
    }
    for (const path of ["/account/convert", "/account/payment"]) {
      const html = (await other.client.get(path)).text;
      expect(html, path).toContain('data-restricted="form"');
    }
    expectStatus(await lift(other.id), 200);
    for (const path of ["/account", "/account/convert"]) {
      expect((await other.client.get(path)).text, path).not.toContain("data-restricted");
    }
  });
});

describe("filtering the customers list", () => {
  async function ids(query: string) {
    const res = await admin.client.get(`console/users?${query}`);
    expectStatus(res, 200);
    return (res.json.body.items as { id: number }[]).map((c) => c.id);
  }

  test("by type, onboarding step, restriction and balance", async () => {
    expect(await ids("type=Business")).toContain(waiting.id);
    expect(await ids("type=Business")).not.toContain(ada.id);
    expect(await ids("step=review")).toEqual([waiting.id]);
    expect(await ids("step=open")).toEqual(expect.arrayContaining([ada.id, other.id]));
    expect(await ids("step=open")).not.toContain(waiting.id);
    expect(await ids("step=profile")).toContain(fresh.id);
    expectStatus(await restrict(other.id), 200);
    expect(await ids("restricted=true")).toEqual([other.id]);
    expect(await ids("restricted=false")).not.toContain(other.id);
    expectStatus(await lift(other.id), 200);
    expect(await ids("has_balance=true")).toEqual([ada.id]);
    expect(await ids("has_balance=false")).not.toContain(ada.id);
  });

  test("by the days they signed up, and filters combine with the search and the pages", async () => {
    const today = t.clock.today();
    expect(await ids(`from=${today}&to=${today}`)).toEqual(expect.arrayContaining([ada.id, waiting.id]));
    expect(await ids(`to=2000-01-01`)).toEqual([]);
    const page = await admin.client.get(`console/users?step=open&per_page=1&page=2`);
    expect(page.json.body).toMatchObject({ page: 2, per_page: 1, total: 2 });
    expect(page.json.body.items).toHaveLength(1);
  });

  test("a wrong filter is a 422 naming it", async () => {
    for (
      const [query, field] of [["type=Nobody", "type"], ["step=done", "step"], ["restricted=maybe", "restricted"], [
        "from=2024-13-01",
        "from",
      ], ["has_balance=1", "has_balance"]]
    ) {
      const res = await admin.client.get(`console/users?${query}`);
      expectStatus(res, 422);
      expect(res.json.fields, query).toHaveProperty(field);
    }
  });
});

// Last: its customers would change the filtered lists above.
describe("an account whose owner is restricted", () => {
  test("nobody else on it moves its money, and their pages say why; lifted, they can", async () => {
    const account = await paymentAccount(t, admin, { GBP: "500.00" });
    const payer = await addMember(t, account, "payer");
    expectStatus(await restrict(account.owner.id, "Sanctions screening hit"), 200);
    const before = await balances(payer.client);
    const quote = await payer.client.post("account/conversions/quote", GBP_EUR);
    expectStatus(quote, 403);
    expect(quote.json.error).toBe(ACCOUNT_RESTRICTED_MESSAGE);
    expect(await balances(payer.client)).toEqual(before);
    const page = (await payer.client.get("/account")).text;
    expect(page).toContain('data-restricted="account"');

    expectStatus(await lift(account.owner.id), 200);
    const held = await payer.client.post("account/conversions/quote", GBP_EUR);
    expectStatus(held, 200);
    expectStatus(await payer.client.post("account/conversions", { quote_id: held.json.body.id }), 201);
    expect((await payer.client.get("/account")).text).not.toContain("data-restricted");
  });
});
