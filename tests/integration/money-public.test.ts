import Big from "big.js";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { expectStatus, SECOND, TestClient } from "../helpers/client.ts";
import { decimalOf, expectLedgerSound, minorOf, type MoneyApp, moneyApp } from "../helpers/money.ts";

/**
 * What anyone sees without signing in: the currencies, the indicative rates and the calculator's
 * quotes (GET currencies, GET rates, GET quote; docs/API.md "Money", DESIGN.md section 4). The
 * database starts with the embedded indicative rates (base EUR, 2026-11-20) and the default plan
 * (1.5% markup up to 1,000 GBP; regular fees GBP 1.00, JPY 200, KWD 0.400).
 */

vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

let t: MoneyApp;
let visitor: TestClient;
beforeAll(async () => {
  ({ t } = await moneyApp());
  visitor = new TestClient(t);
});

const DIGITS: Record<string, number> = { GBP: 2, EUR: 2, USD: 2, JPY: 0, KWD: 3 };
const QUOTE_FIELDS = [
  "sell_currency",
  "buy_currency",
  "sell_amount",
  "buy_amount",
  "mid_rate",
  "rate",
  "markup",
  "fee",
  "fee_currency",
  "expires_at",
];

async function quote(params: Record<string, string>, client = visitor) {
  return await client.get(`quote?${new URLSearchParams(params)}`);
}

/** Buy minor units for `converted` sell minor units at a printed rate: what the answer must say. */
function bought(convertedMinor: bigint, rate: string, sell: string, buy: string): bigint {
  const value = new Big(String(convertedMinor)).times(rate).times(new Big(10).pow(DIGITS[buy] - DIGITS[sell] + 20));
  return BigInt(value.round(0, Big.roundDown).toFixed(0)) / 10n ** 20n;
}

describe("currencies and rates", () => {
  afterAll(() => expectLedgerSound(t.db));

  test("GET currencies lists each currency with its ISO 4217 minor units", async () => {
    const res = await visitor.get("currencies");
    expectStatus(res, 200);
    const list = res.json.body as { code: string; name: string; minor_units: number }[];
    expect(list).toContainEqual(expect.objectContaining({ code: "GBP", minor_units: 2 }));
    expect(list).toContainEqual(expect.objectContaining({ code: "JPY", minor_units: 0 }));
    expect(list).toContainEqual(expect.objectContaining({ code: "KWD", minor_units: 3 }));
    for (const c of list) expect(c.name.length, c.code).toBeGreaterThan(0);
  });

  test("GET rates?base=GBP: the indicative set, marked as such and dated, as decimal strings against GBP", async () => {
    const res = await visitor.get("rates?base=GBP");
    expectStatus(res, 200);
    const body = res.json.body;
    expect(body).toMatchObject({ base: "GBP", as_of: "2026-11-20", source: "indicative", indicative: true });
    expect(Object.keys(body).sort()).toEqual(["as_of", "base", "indicative", "rates", "source"]);
    for (const [code, rate] of Object.entries(body.rates as Record<string, string>)) {
      expect(typeof rate, code).toBe("string");
      expect(rate, code).toMatch(/^\d+\.\d{6,}$/);
    }
    // 1 EUR = 0.879 GBP, so 1 GBP = 1/0.879 EUR = 1.1376564...
    expect(body.rates.EUR).toBe("1.137656");
    expect(body.rates.GBP).toBe("1.000000");
    expect(body.rates.USD).toBe("1.313993"); // 1.155 / 0.879 = 1.3139931...
    expect(Object.keys(body.rates)).toEqual(expect.arrayContaining(["EUR", "USD", "JPY", "KWD"]));
  });

  test("the base is read in any case; an unknown base is a 422 naming it", async () => {
    const lower = await visitor.get("rates?base=gbp");
    expectStatus(lower, 200);
    expect(lower.json.body.base).toBe("GBP");
    const unknown = await visitor.get("rates?base=XYZ");
    expectStatus(unknown, 422);
    expect(unknown.json.error).toMatch(/XYZ/);
    expect(unknown.json.fields).toHaveProperty("base");
  });
});

describe("GET quote for a visitor (the default plan)", () => {
  afterAll(() => expectLedgerSound(t.db));

  test("fixed=sell: the fee comes out of the sell amount, the buy amount is what the printed rate buys, rounded down", async () => {
    const res = await quote({ sell: "GBP", buy: "EUR", amount: "100.00", fixed: "sell" });
    expectStatus(res, 200);
    const q = res.json.body;
    expect(Object.keys(q).sort()).toEqual([...QUOTE_FIELDS].sort());
    expect(q).toMatchObject({
      sell_currency: "GBP",
      buy_currency: "EUR",
      sell_amount: "100.00",
      fee: "1.00",
      fee_currency: "GBP",
    });
    expect(q.mid_rate).toBe("1.137656");
    // 99.00 GBP converted is in the first tier: 150 bps below mid, rounded down to 6 places.
    const exact = new Big("1").div("0.879").times("0.985");
    expect(q.rate).toBe(exact.round(6, Big.roundDown).toFixed(6));
    expect(q.buy_amount).toMatch(/^\d+\.\d{2}$/);
    expect(minorOf(q.buy_amount, 2)).toBe(bought(9_900n, q.rate, "GBP", "EUR"));
    // The markup in money: what is converted less what buys the same euros at the mid rate.
    const atMid = new Big(q.buy_amount).div(q.mid_rate).round(2, Big.roundHalfUp);
    expect(q.markup).toBe(new Big("99.00").minus(atMid).toFixed(2));
    expect(Number(q.markup)).toBeGreaterThan(0);
  });

  test("fixed=buy: the least sell amount whose conversion reaches the buy amount, plus the fee", async () => {
    const res = await quote({ sell: "GBP", buy: "EUR", amount: "250.00", fixed: "buy" });
    expectStatus(res, 200);
    const q = res.json.body;
    expect(Object.keys(q).sort()).toEqual([...QUOTE_FIELDS].sort());
    expect(q).toMatchObject({
      sell_currency: "GBP",
      buy_currency: "EUR",
      buy_amount: "250.00",
      fee: "1.00",
      fee_currency: "GBP",
    });
    const converted = minorOf(q.sell_amount, 2) - 100n;
    expect(bought(converted, q.rate, "GBP", "EUR")).toBeGreaterThanOrEqual(25_000n);
    expect(bought(converted - 1n, q.rate, "GBP", "EUR")).toBeLessThan(25_000n);
  });

  test("amounts have their currency's digits: yen have none, dinars three", async () => {
    const yen = await quote({ sell: "GBP", buy: "JPY", amount: "15000", fixed: "buy" });
    expectStatus(yen, 200);
    expect(yen.json.body.buy_amount).toBe("15000");
    expect(yen.json.body.sell_amount).toMatch(/^\d+\.\d{2}$/);

    const fromYen = await quote({ sell: "JPY", buy: "GBP", amount: "15000", fixed: "sell" });
    expectStatus(fromYen, 200);
    expect(fromYen.json.body).toMatchObject({ sell_amount: "15000", fee: "200", fee_currency: "JPY" });
    expect(minorOf(fromYen.json.body.buy_amount, 2)).toBe(bought(14_800n, fromYen.json.body.rate, "JPY", "GBP"));

    const dinars = await quote({ sell: "GBP", buy: "KWD", amount: "1.250", fixed: "buy" });
    expectStatus(dinars, 200);
    expect(dinars.json.body.buy_amount).toBe("1.250");

    const fromDinars = await quote({ sell: "KWD", buy: "EUR", amount: "100.000", fixed: "sell" });
    expectStatus(fromDinars, 200);
    expect(fromDinars.json.body).toMatchObject({ sell_amount: "100.000", fee: "0.400", fee_currency: "KWD" });
    expect(fromDinars.json.body.buy_amount).toMatch(/^\d+\.\d{2}$/);
    expect(minorOf(fromDinars.json.body.buy_amount, 2)).toBe(bought(99_600n, fromDinars.json.body.rate, "KWD", "EUR"));
  });

  test("a quote holds for 30 seconds from now, by the server's clock", async () => {
    const res = await quote({ sell: "GBP", buy: "EUR", amount: "100.00", fixed: "sell" });
    expectStatus(res, 200);
    expect(res.json.body.expires_at).toBe(new Date(t.clock.now() + 30 * SECOND).toISOString());
    t.clock.advance(5 * SECOND);
    const later = await quote({ sell: "GBP", buy: "EUR", amount: "100.00", fixed: "sell" });
    expect(later.json.body.expires_at).toBe(new Date(t.clock.now() + 30 * SECOND).toISOString());
  });

  test("currency codes are read in any case and answered upper case", async () => {
    const res = await quote({ sell: "gbp", buy: "eur", amount: "100.00", fixed: "sell" });
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({ sell_currency: "GBP", buy_currency: "EUR" });
  });

  test.each([
    [
      "the same currency twice",
      { sell: "GBP", buy: "GBP", amount: "100.00", fixed: "sell" },
      "buy",
      /different currencies/,
    ],
    [
      "an unknown currency",
      { sell: "XYZ", buy: "EUR", amount: "100.00", fixed: "sell" },
      "sell",
      /XYZ.*not a currency we support/,
    ],
    [
      "an unknown currency to buy",
      { sell: "GBP", buy: "ABC", amount: "100.00", fixed: "sell" },
      "buy",
      /ABC.*not a currency we support/,
    ],
    [
      "three decimals in pounds",
      { sell: "GBP", buy: "EUR", amount: "12.345", fixed: "sell" },
      "amount",
      /GBP amounts have at most 2 decimal places/,
    ],
    [
      "decimals in yen",
      { sell: "GBP", buy: "JPY", amount: "100.5", fixed: "buy" },
      "amount",
      /JPY amounts have no decimal places/,
    ],
    [
      "an amount that only pays the fee",
      { sell: "GBP", buy: "EUR", amount: "1.00", fixed: "sell" },
      "amount",
      /more than the fee of 1\.00 GBP/,
    ],
    [
      "an amount below the fee",
      { sell: "GBP", buy: "EUR", amount: "0.50", fixed: "sell" },
      "amount",
      /more than the fee of 1\.00 GBP/,
    ],
    ["a zero amount", { sell: "GBP", buy: "EUR", amount: "0", fixed: "buy" }, "amount", /more than zero/],
    ["a negative amount", { sell: "GBP", buy: "EUR", amount: "-5.00", fixed: "sell" }, "amount", /negative/],
    ["fixed=other", { sell: "GBP", buy: "EUR", amount: "100.00", fixed: "other" }, "fixed", /sell or buy/],
  ])("%s is a 422 naming the problem", async (_name, params, field, message) => {
    const res = await quote(params);
    expectStatus(res, 422);
    expect(res.json.error).toMatch(message);
    expect(res.json.fields?.[field], JSON.stringify(res.json)).toMatch(message);
  });

  test("a missing amount is a 422 on amount", async () => {
    const res = await quote({ sell: "GBP", buy: "EUR", fixed: "sell" });
    expectStatus(res, 422);
    expect(res.json.fields).toHaveProperty("amount");
  });

  test("the test's own arithmetic agrees with hand-worked values (so the checks above cannot pass by accident)", () => {
    expect(decimalOf(minorOf("100.50", 2), 2)).toBe("100.50");
    expect(decimalOf(minorOf("1.250", 3), 3)).toBe("1.250");
    expect(decimalOf(15_000n, 0)).toBe("15000");
    expect(bought(9_900n, "1.120591", "GBP", "EUR")).toBe(11_093n); // 9900 × 1.120591 = 11093.85
  });
});
