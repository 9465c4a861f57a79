import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { conversions, ledgerTransfers } from "../../db/schema-money.ts";
import { type Admin, type Customer, expectStatus, registerCustomer, TestClient } from "../helpers/client.ts";
import {
  balances,
  customerWithoutAccount,
  expectLedgerSound,
  fundedCustomer,
  type MoneyApp,
  moneyApp,
  type OpenCustomer,
} from "../helpers/money.ts";

/**
 * Who may call the money API (DESIGN.md sections 3 and 6): prices are public; a customer's money
 * calls need a signed-in customer with an open account (401 for a visitor, 403 with the redirect
 * of the first unmet step otherwise); the console's money calls are for administrators only and
 * do not reveal themselves to anyone else (404). An administrator acting on behalf of a customer
 * works on that customer's account, and every change is in the audit log.
 */

vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

let t: MoneyApp;
let admin: Admin;
let visitor: TestClient;
let funded: OpenCustomer;
let waiting: Customer;
let unverified: Customer;
beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  visitor = new TestClient(t);
  funded = await fundedCustomer(t, admin, "GBP", "300.00");
  waiting = await customerWithoutAccount(t);
  unverified = await registerCustomer(t, { validate: false });
});

const QUOTE = { sell_currency: "GBP", buy_currency: "EUR", amount: "100.00", fixed: "sell" };

/** Every customer money call, with a payload that would be valid for a funded customer. */
const CUSTOMER_CALLS: [method: "GET" | "POST", path: string, body?: unknown][] = [
  ["POST", "account/conversions/quote", QUOTE],
  ["POST", "account/conversions", { quote_id: "00000000-0000-4000-8000-000000000000" }],
  ["GET", "account/conversions"],
  ["GET", "account/balances"],
  ["GET", "account/funding"],
  ["GET", "account/movements"],
];

/** Every console money call. */
const CONSOLE_CALLS: [method: "GET" | "POST" | "PUT", path: string, body?: unknown][] = [
  ["PUT", "console/rates", { base: "EUR", as_of: "2026-03-01", rates: { USD: "9.9999" } }],
  ["GET", "console/pricingplans"],
  ["POST", "console/pricingplans", {
    id: "x",
    name: "Free",
    tier_currency: "GBP",
    tiers: [{ up_to: null, bps: 0 }],
    fees: {},
  }],
  ["PUT", "console/pricingplans/1", { assign_account_ref: "P00000000" }],
  ["PUT", "console/users/2/fees", { override_transfer_fee: true, fees: { GBP: { regular: "0.00" } } }],
  ["GET", "console/receipts"],
  ["POST", "console/receipts", {
    amount: "1000000.00",
    currency: "GBP",
    payer_name: "Me",
    reference: "",
    received_at: "2026-03-01",
  }],
  ["POST", "console/receipts/1/allocate", { account_ref: "P00000000" }],
];

function call(client: TestClient, [method, path, body]: [string, string, unknown?]) {
  return client.request(method, path, method === "GET" ? undefined : body ?? {});
}

describe("prices are public", () => {
  afterAll(() => expectLedgerSound(t.db));

  test.each(["currencies", "rates?base=GBP", "quote?sell=GBP&buy=EUR&amount=100.00&fixed=sell"])(
    "GET %s answers a visitor, a waiting customer and an administrator",
    async (path) => {
      for (const client of [visitor, waiting.client, unverified.client, admin.client, funded.client]) {
        expectStatus(await client.get(path), 200);
      }
    },
  );
});

describe("a customer's money calls", () => {
  afterAll(() => expectLedgerSound(t.db));

  test.each(CUSTOMER_CALLS)("%s %s is a 401 for a visitor", async (...c) => {
    const res = await call(visitor, c);
    expectStatus(res, 401);
    expect(res.json.redirect).toBe("/");
  });

  test.each(CUSTOMER_CALLS)("%s %s is a 403 sending a customer without an account to /processing", async (...c) => {
    const res = await call(waiting.client, c);
    expectStatus(res, 403);
    expect(res.json.redirect).toBe("/processing");
  });

  test.each(CUSTOMER_CALLS)("%s %s is a 403 sending an unverified customer to /verify", async (...c) => {
    const res = await call(unverified.client, c);
    expectStatus(res, 403);
    expect(res.json.redirect).toBe("/verify");
  });

  test.each(CUSTOMER_CALLS)("%s %s is a 403 for an administrator who acts for nobody", async (...c) => {
    const res = await call(admin.client, c);
    expectStatus(res, 403);
    expect(res.json.redirect).toBe("/console/users");
  });

  test("GET account/funding tells the customer how to fund: their account_ref and the bank details", async () => {
    const res = await funded.client.get("account/funding");
    expectStatus(res, 200);
    expect(res.json.body.account_ref).toBe(funded.accountRef);
    expect(Object.keys(res.json.body.bank).sort()).toEqual([
      "account_name",
      "account_number",
      "bic",
      "iban",
      "name",
      "sort_code",
      "test",
    ]);
    // No COMPANY_BANK_* is set here: the card must say these are test details.
    expect(res.json.body.bank.test).toBe(true);
  });
});

describe("the console's money calls", () => {
  afterAll(() => expectLedgerSound(t.db));

  test.each(CONSOLE_CALLS)("%s %s is a 404 for a visitor, a customer with an account and one without", async (...c) => {
    for (const client of [visitor, funded.client, waiting.client]) {
      const res = await call(client, c);
      expectStatus(res, 404);
      expect(res.json.redirect).toBeUndefined();
    }
  });

  test("nothing the refused callers sent took effect", async () => {
    expect(await balances(funded.client)).toEqual({ GBP: "300.00" });
    const rates = await visitor.get("rates?base=EUR");
    expect(rates.json.body.source).toBe("indicative");
    const receipts = await admin.client.get("console/receipts");
    expect(receipts.json.body).toHaveLength(1);
    const plans = await admin.client.get("console/pricingplans");
    expect(plans.json.body).toHaveLength(1);
    const me = await funded.client.get("account/whoami");
    expect(me.json.body.override_transfer_fee).toBe(false);
  });
});

describe("an administrator acting on behalf of a customer", () => {
  afterAll(async () => {
    await admin.client.delete("account/onbehalf");
    await expectLedgerSound(t.db);
  });

  test("sees the customer's balances, converts for them, and the conversion is in the audit log with both identities", async () => {
    const start = await admin.client.post("account/onbehalf", { on_behalf_of: funded.id });
    expectStatus(start, 200);
    expect(await balances(admin.client)).toEqual({ GBP: "300.00" });

    const q = await admin.client.post("account/conversions/quote", QUOTE);
    expectStatus(q, 200);
    const done = await admin.client.post("account/conversions", { quote_id: q.json.body.id });
    expectStatus(done, 201);
    expect(await balances(funded.client)).toEqual({ GBP: "200.00", EUR: q.json.body.buy_amount });

    const log = await admin.client.get(`console/audit?customer=${funded.id}`);
    expectStatus(log, 200);
    expect(log.json.body).toContainEqual(
      expect.objectContaining({
        actor: { id: admin.id, email: admin.email },
        subject_id: funded.id,
        action: "on-behalf.call",
        after: { method: "POST", path: "/api/account/conversions", status: 201 },
      }),
    );
  });

  test("a conversion made on the customer's behalf is the customer's, and records the administrator beside them", async () => {
    const convert = async (client: TestClient) => {
      const q = await client.post("account/conversions/quote", { ...QUOTE, amount: "10.00" });
      expectStatus(q, 200);
      const done = await client.post("account/conversions", { quote_id: q.json.body.id });
      expectStatus(done, 201);
      return done.json.body as { id: number; transfer_id: number };
    };
    expectStatus(await admin.client.post("account/onbehalf", { on_behalf_of: funded.id }), 200);
    let ours;
    try {
      ours = await convert(admin.client);
    } finally {
      expectStatus(await admin.client.delete("account/onbehalf"), 200);
    }
    const own = await convert(funded.client);
    const recorded = async ({ id, transfer_id }: { id: number; transfer_id: number }) => ({
      conversion: (await t.db.select().from(conversions).where(eq(conversions.id, id)))[0],
      transfer: (await t.db.select().from(ledgerTransfers).where(eq(ledgerTransfers.id, transfer_id)))[0],
    });
    expect(await recorded(ours)).toMatchObject({
      conversion: { createdBy: funded.id, onBehalfAdminId: admin.id },
      transfer: { createdBy: funded.id },
    });
    expect(await recorded(own)).toMatchObject({
      conversion: { createdBy: funded.id, onBehalfAdminId: null },
      transfer: { createdBy: funded.id },
    });
  });
});
