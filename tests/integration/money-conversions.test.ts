import { asc } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { ledgerAccounts, ledgerEntries, ledgerTransfers } from "../../db/schema-money.ts";
import { type Admin, expectStatus, SECOND } from "../helpers/client.ts";
import {
  balances,
  decimalOf,
  expectLedgerSound,
  fund,
  fundedCustomer,
  minorOf,
  type MoneyApp,
  moneyApp,
  type OpenCustomer,
} from "../helpers/money.ts";

/**
 * Converting between a customer's own balances (DESIGN.md section 4 "Convert"; docs/API.md
 * account/conversions): a quote held until its expiry, executed once, moving exactly the quoted
 * amounts; refused with a clear reason (used, expired, not enough money, not yours) and then
 * changing nothing. POST account/conversions honours Idempotency-Key.
 */

vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

let t: MoneyApp;
let admin: Admin;
let ada: OpenCustomer;
let bob: OpenCustomer;
beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  ada = await fundedCustomer(t, admin, "GBP", "1000.00");
  bob = await fundedCustomer(t, admin, "GBP", "50.00");
});

const GBP_EUR = { sell_currency: "GBP", buy_currency: "EUR", amount: "100.00", fixed: "sell" };

async function holdQuote(customer: OpenCustomer, body: Record<string, string> = GBP_EUR) {
  const res = await customer.client.post("account/conversions/quote", body);
  expectStatus(res, 200);
  return res.json.body as {
    id: string;
    sell_amount: string;
    buy_amount: string;
    fee: string;
    rate: string;
    expires_at: string;
    sell_currency: string;
    buy_currency: string;
  };
}

/** Every ledger row: a refused conversion must leave all of them as they were. */
async function ledgerSnapshot() {
  return {
    accounts: await t.db.select().from(ledgerAccounts).orderBy(asc(ledgerAccounts.id)),
    transfers: await t.db.select().from(ledgerTransfers).orderBy(asc(ledgerTransfers.id)),
    entries: await t.db.select().from(ledgerEntries).orderBy(asc(ledgerEntries.id)),
  };
}

/** a + b − c of decimal strings with `digits` decimals. */
const add = (a: string, b: string, digits: number) => decimalOf(minorOf(a, digits) + minorOf(b, digits), digits);
const sub = (a: string, b: string, digits: number) => decimalOf(minorOf(a, digits) - minorOf(b, digits), digits);

describe("a held quote executed once", () => {
  let first: Awaited<ReturnType<typeof holdQuote>>;
  afterAll(() => expectLedgerSound(t.db));

  test("POST account/conversions/quote holds a quote with an id for 30 seconds", async () => {
    first = await holdQuote(ada);
    expect(first.id).toEqual(expect.any(String));
    expect(first).toMatchObject({
      sell_currency: "GBP",
      buy_currency: "EUR",
      sell_amount: "100.00",
      fee: "1.00",
      fee_currency: "GBP",
    });
    expect(first.expires_at).toBe(new Date(t.clock.now() + 30 * SECOND).toISOString());
    // The held quote is the price GET quote shows the same customer.
    const shown = await ada.client.get(`quote?sell=GBP&buy=EUR&amount=100.00&fixed=sell`);
    expect(shown.json.body).toMatchObject({ rate: first.rate, buy_amount: first.buy_amount, fee: first.fee });
    // Holding a quote moves no money.
    expect(await balances(ada.client)).toEqual({ GBP: "1000.00" });
  });

  test("POST account/conversions executes it: 201 with the conversion, balances move by exactly the quoted amounts", async () => {
    const res = await ada.client.post("account/conversions", { quote_id: first.id });
    expectStatus(res, 201);
    const c = res.json.body;
    expect(Object.keys(c).sort()).toEqual(
      [
        "buy_amount",
        "buy_currency",
        "created_at",
        "fee",
        "fee_currency",
        "id",
        "quote_id",
        "rate",
        "sell_amount",
        "sell_currency",
        "transfer_id",
      ].sort(),
    );
    expect(c).toMatchObject({
      quote_id: first.id,
      sell_currency: "GBP",
      sell_amount: "100.00",
      buy_currency: "EUR",
      buy_amount: first.buy_amount,
      rate: first.rate,
      fee: "1.00",
      transfer_id: expect.any(Number),
      created_at: new Date(t.clock.now()).toISOString(),
    });
    expect(await balances(ada.client)).toEqual({ GBP: "900.00", EUR: first.buy_amount });
  });

  test("GET account/movements lists the conversion's two legs above the receipt, newest first", async () => {
    const res = await ada.client.get("account/movements");
    expectStatus(res, 200);
    const moves = res.json.body as {
      id: number;
      kind: string;
      currency: string;
      amount: string;
      description: string;
    }[];
    expect(moves.map((m) => [m.kind, m.currency, m.amount])).toEqual([
      ["conversion", "EUR", first.buy_amount],
      ["conversion", "GBP", "-100.00"],
      ["receipt", "GBP", "1000.00"],
    ]);
    expect(moves[2].description).toContain(ada.accountRef);
    const ids = moves.map((m) => m.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const limited = await ada.client.get("account/movements?limit=1");
    expect(limited.json.body).toEqual([moves[0]]);
  });

  test("the same quote again is a 409 'already used', with or without another Idempotency-Key, and nothing moves", async () => {
    const before = await ledgerSnapshot();
    const again = await ada.client.post("account/conversions", { quote_id: first.id });
    expectStatus(again, 409);
    expect(again.json.error).toMatch(/already used/);
    expect(again.json.code).toBe("quote_used");
    const keyed = await ada.client.post("account/conversions", { quote_id: first.id }, {
      "Idempotency-Key": "another-key-1",
    });
    expectStatus(keyed, 409);
    expect(keyed.json.error).toMatch(/already used/);
    expect(keyed.json.code).toBe("quote_used");
    expect(await ledgerSnapshot()).toEqual(before);
    expect(await balances(ada.client)).toEqual({ GBP: "900.00", EUR: first.buy_amount });
  });

  test("a fixed=buy quote delivers exactly the amount asked for", async () => {
    const before = await balances(ada.client);
    const q = await holdQuote(ada, { sell_currency: "GBP", buy_currency: "EUR", amount: "50.00", fixed: "buy" });
    expect(q.buy_amount).toBe("50.00");
    const res = await ada.client.post("account/conversions", { quote_id: q.id });
    expectStatus(res, 201);
    expect(res.json.body).toMatchObject({ buy_amount: "50.00", sell_amount: q.sell_amount });
    expect(await balances(ada.client)).toEqual({
      GBP: sub(before.GBP, q.sell_amount, 2),
      EUR: add(before.EUR, "50.00", 2),
    });
  });

  test("a conversion into yen lands with no decimals", async () => {
    const before = await balances(ada.client);
    const q = await holdQuote(ada, { sell_currency: "GBP", buy_currency: "JPY", amount: "20.00", fixed: "sell" });
    expect(q.buy_amount).toMatch(/^\d+$/);
    expectStatus(await ada.client.post("account/conversions", { quote_id: q.id }), 201);
    const after = await balances(ada.client);
    expect(after.JPY).toBe(q.buy_amount);
    expect(after.GBP).toBe(sub(before.GBP, "20.00", 2));
  });
});

describe("refused conversions change nothing", () => {
  afterAll(() => expectLedgerSound(t.db));

  test("after the clock passes expires_at the quote is a 409 'expired'", async () => {
    const q = await holdQuote(ada);
    const before = await ledgerSnapshot();
    t.clock.advance(31 * SECOND);
    const res = await ada.client.post("account/conversions", { quote_id: q.id });
    expectStatus(res, 409);
    expect(res.json.error).toMatch(/expired/);
    expect(res.json.code).toBe("quote_expired");
    expect(await ledgerSnapshot()).toEqual(before);
  });

  test("a quote is still good one second before it expires", async () => {
    const before = await balances(ada.client);
    const q = await holdQuote(ada);
    t.clock.advance(29 * SECOND);
    expectStatus(await ada.client.post("account/conversions", { quote_id: q.id }), 201);
    expect((await balances(ada.client)).GBP).toBe(sub(before.GBP, "100.00", 2));
  });

  test("a quote larger than the balance is a 422 'Not enough GBP'; once funded, the same quote goes through", async () => {
    const before = await balances(bob.client);
    expect(before).toEqual({ GBP: "50.00" });
    const q = await holdQuote(bob, { ...GBP_EUR, amount: "80.00" });
    const snapshot = await ledgerSnapshot();
    const res = await bob.client.post("account/conversions", { quote_id: q.id });
    expectStatus(res, 422);
    expect(res.json.error).toBe(
      "Not enough GBP: your available balance is 50.00 GBP and this conversion needs 80.00 GBP.",
    );
    // It names the amount, as a payment refused for short funds does.
    expect(res.json.fields).toEqual({ amount: res.json.error });
    expect(await ledgerSnapshot()).toEqual(snapshot);
    expect(await balances(bob.client)).toEqual(before);

    await fund(t, admin, bob, "GBP", "30.00");
    const retried = await bob.client.post("account/conversions", { quote_id: q.id });
    expectStatus(retried, 201);
    expect(await balances(bob.client)).toEqual({ GBP: "0.00", EUR: q.buy_amount });
  });

  test("selling a currency the customer has never held is a 422 'Not enough'", async () => {
    const q = await holdQuote(ada, { sell_currency: "USD", buy_currency: "EUR", amount: "10.00", fixed: "sell" });
    const snapshot = await ledgerSnapshot();
    const res = await ada.client.post("account/conversions", { quote_id: q.id });
    expectStatus(res, 422);
    expect(res.json.error).toMatch(/^Not enough USD/);
    expect(await ledgerSnapshot()).toEqual(snapshot);
  });

  test("another customer's quote id is a 404 and stays usable by its owner", async () => {
    const q = await holdQuote(ada);
    const before = await ledgerSnapshot();
    const res = await bob.client.post("account/conversions", { quote_id: q.id });
    expectStatus(res, 404);
    expect(await ledgerSnapshot()).toEqual(before);
    expectStatus(await ada.client.post("account/conversions", { quote_id: q.id }), 201);
  });

  test("a quote id that does not exist is a 404; a missing one is a 422 on quote_id", async () => {
    expectStatus(await ada.client.post("account/conversions", { quote_id: crypto.randomUUID() }), 404);
    const missing = await ada.client.post("account/conversions", {});
    expectStatus(missing, 422);
    expect(missing.json.fields).toHaveProperty("quote_id");
  });

  test.each([
    ["the same currency twice", { ...GBP_EUR, buy_currency: "GBP" }, /different currencies/],
    ["an unknown currency", { ...GBP_EUR, sell_currency: "XYZ" }, /XYZ/],
    ["three decimals in pounds", { ...GBP_EUR, amount: "12.345" }, /at most 2 decimal places/],
    ["an amount not above the fee", { ...GBP_EUR, amount: "1.00" }, /more than the fee of 1\.00 GBP/],
    ["fixed=other", { ...GBP_EUR, fixed: "other" }, /sell or buy/],
  ])("a quote request with %s is a 422 and holds nothing", async (_name, body, message) => {
    const res = await ada.client.post("account/conversions/quote", body);
    expectStatus(res, 422);
    expect(res.json.error).toMatch(message);
    expect(Object.keys(res.json.fields ?? {}).length).toBeGreaterThan(0);
  });
});

describe("Idempotency-Key on POST account/conversions", () => {
  afterAll(() => expectLedgerSound(t.db));

  test("the same key and body replays the first answer byte for byte; the money moved once", async () => {
    const before = await balances(ada.client);
    const q = await holdQuote(ada);
    const key = `convert-${crypto.randomUUID()}`;
    const first = await ada.client.post("account/conversions", { quote_id: q.id }, { "Idempotency-Key": key });
    expectStatus(first, 201);
    t.clock.advance(60 * SECOND); // even after the quote has expired, the retry gets the first answer
    const second = await ada.client.post("account/conversions", { quote_id: q.id }, { "Idempotency-Key": key });
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    const after = await balances(ada.client);
    expect(after.GBP).toBe(sub(before.GBP, "100.00", 2));
    expect(after.EUR).toBe(add(before.EUR, q.buy_amount, 2));
    const list = await ada.client.get("account/conversions?per_page=100");
    expect(list.json.body.items.filter((c: { quote_id: string }) => c.quote_id === q.id)).toHaveLength(1);
  });

  test("the same key with another body is a 422, and the other quote is not executed", async () => {
    const q1 = await holdQuote(ada);
    const q2 = await holdQuote(ada);
    const key = `convert-${crypto.randomUUID()}`;
    expectStatus(await ada.client.post("account/conversions", { quote_id: q1.id }, { "Idempotency-Key": key }), 201);
    const before = await ledgerSnapshot();
    const res = await ada.client.post("account/conversions", { quote_id: q2.id }, { "Idempotency-Key": key });
    expectStatus(res, 422);
    expect(res.json.error).toMatch(/Idempotency-Key/);
    expect(await ledgerSnapshot()).toEqual(before);
    expectStatus(await ada.client.post("account/conversions", { quote_id: q2.id }), 201);
  });
});

describe("GET account/conversions", () => {
  afterAll(() => expectLedgerSound(t.db));

  test("pages through the account's conversions, newest first, with the total", async () => {
    const all = await ada.client.get("account/conversions?per_page=100");
    expectStatus(all, 200);
    const total = all.json.body.total as number;
    expect(total).toBeGreaterThanOrEqual(7);
    expect(all.json.body.items).toHaveLength(total);
    const ids = all.json.body.items.map((c: { id: number }) => c.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => b - a));

    const page1 = await ada.client.get("account/conversions?page=1&per_page=3");
    expect(page1.json.body).toMatchObject({ page: 1, per_page: 3, total });
    expect(page1.json.body.items.map((c: { id: number }) => c.id)).toEqual(ids.slice(0, 3));
    const page2 = await ada.client.get("account/conversions?page=2&per_page=3");
    expect(page2.json.body).toMatchObject({ page: 2, per_page: 3, total });
    expect(page2.json.body.items.map((c: { id: number }) => c.id)).toEqual(ids.slice(3, 6));
    const beyond = await ada.client.get(`account/conversions?page=${total + 1}&per_page=3`);
    expect(beyond.json.body).toMatchObject({ items: [], total });

    const defaults = await ada.client.get("account/conversions");
    expect(defaults.json.body).toMatchObject({ page: 1, per_page: 20, total });
  });

  test("a customer sees only their own conversions", async () => {
    const mine = await bob.client.get("account/conversions");
    expectStatus(mine, 200);
    expect(mine.json.body.total).toBe(1);
    const adas = await ada.client.get("account/conversions?per_page=100");
    const adaIds = new Set(adas.json.body.items.map((c: { id: number }) => c.id));
    expect(adaIds.has(mine.json.body.items[0].id)).toBe(false);
  });
});
