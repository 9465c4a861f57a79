import Big from "big.js";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { formatAmount, MoneyError, parseAmount } from "../../server/money/amounts.ts";
import { CURRENCY_CODES, minorUnits } from "../../server/money/currencies.ts";
import { bpsFor, DEFAULT_PLAN, feeFor, type FeeOverrides, type PricingPlan } from "../../server/money/pricing.ts";
import { planBody } from "../../lib/contracts/console-money.ts";
import { type Quote, quote, quoteAnswer, type QuoteInput } from "../../server/money/quote.ts";
import { crossRate, INDICATIVE_RATES, type RateTable } from "../../server/money/rates.ts";

function moneyError(fn: () => unknown): MoneyError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(MoneyError);
    return e as MoneyError;
  }
  throw new Error("expected a MoneyError, nothing was thrown");
}

const NOW = new Date("2026-11-22T12:00:00.000Z");

/** Round numbers: GBP→EUR mid 1.25, EUR→JPY 160, GBP→KWD 0.4125. */
const TABLE: RateTable = {
  base: "EUR",
  as_of: "2026-11-20",
  source: "admin",
  rates: { EUR: "1", GBP: "0.8", USD: "1.25", JPY: "160", KWD: "0.33" },
};

const OFF: FeeOverrides = {
  override_transfer_fee: false,
  override_regular_transfer_fee: { GBP: "2.50", EUR: "2.00", KWD: "0.250" },
  override_priority_transfer_fee: { GBP: "9.00", JPY: "9" },
};
const ON: FeeOverrides = { ...OFF, override_transfer_fee: true };

function q(sell: string, buy: string, amount: string, fixed: "sell" | "buy", extra: Partial<QuoteInput> = {}): Quote {
  return quote({ sell, buy, amount, fixed, table: TABLE, plan: DEFAULT_PLAN, now: NOW, ...extra });
}

describe("quotes on either side", () => {
  test("GBP→EUR, fixed sell: the fee comes off first, the buy amount is floored", () => {
    // 99.00 GBP converted at 1.25 × (1 − 0.015) = 1.23125: 121.89375 EUR → 121.89.
    expect(q("GBP", "EUR", "100.00", "sell")).toEqual({
      sell_currency: "GBP",
      buy_currency: "EUR",
      sell_amount: "100.00",
      buy_amount: "121.89",
      sell_minor: 10000,
      buy_minor: 12189,
      fee_minor: 100,
      mid_rate: "1.250000",
      rate: "1.231250",
      fee: "1.00",
      fee_currency: "GBP",
      bps: 150,
      // 121.89 EUR at the mid rate would have cost 97.51 GBP: the markup cost 99.00 − 97.51.
      markup_minor: 149,
      expires_at: "2026-11-22T12:00:30.000Z",
    });
  });

  test("GBP→EUR, fixed buy: the sell amount is ceiled, then the fee is added", () => {
    // 100.00 / 1.23125 = 81.218... → 81.22 GBP, + 1.00 fee.
    const r = q("GBP", "EUR", "100", "buy");
    expect([r.sell_amount, r.buy_amount, r.fee, r.rate, r.bps]).toEqual(["82.22", "100.00", "1.00", "1.231250", 150]);
    expect([r.sell_minor, r.buy_minor, r.fee_minor]).toEqual([8222, 10000, 100]);
  });

  test("EUR→JPY, both sides (a zero-decimal buy currency)", () => {
    // 999.00 EUR × 157.6 = 157442.4 → 157442 JPY.
    const s = q("EUR", "JPY", "1000.00", "sell");
    expect([s.sell_amount, s.buy_amount, s.mid_rate, s.rate, s.fee, s.fee_currency]).toEqual([
      "1000.00",
      "157442",
      "160.000000",
      "157.600000",
      "1.00",
      "EUR",
    ]);
    // 15000 / 157.6 = 95.177... → 95.18 EUR, + 1.00.
    const b = q("EUR", "JPY", "15000", "buy");
    expect([b.sell_amount, b.buy_amount, b.sell_minor, b.buy_minor]).toEqual(["96.18", "15000", 9618, 15000]);
  });

  test("JPY→EUR (a zero-decimal sell currency)", () => {
    // 9800 JPY at 1/160 × 0.985 = 0.00615625: 60.33125 → 60.33 EUR.
    const s = q("JPY", "EUR", "10000", "sell");
    expect([s.sell_amount, s.buy_amount, s.fee, s.mid_rate, s.rate]).toEqual([
      "10000",
      "60.33",
      "200",
      "0.00625000",
      "0.00615625",
    ]);
    // 60.33 / 0.00615625 = 9799.79... → 9800 JPY, + 200.
    expect(q("JPY", "EUR", "60.33", "buy").sell_amount).toBe("10000");
  });

  test("GBP→KWD, both sides (a three-decimal buy currency); the customer rate is rounded down", () => {
    // 4999.00 GBP is in the second tier (100 bps): 0.4125 × 0.99 = 0.408375; 4999 × 0.408375 = 2041.466625.
    const s = q("GBP", "KWD", "5000.00", "sell");
    expect([s.buy_amount, s.buy_minor, s.rate, s.bps]).toEqual(["2041.466", 2041466, "0.408375", 100]);
    // 1.250 KWD is tiny: 150 bps, 0.4125 × 0.985 = 0.4063125, printed and used as 0.406312.
    const b = q("GBP", "KWD", "1.25", "buy");
    expect([b.rate, b.mid_rate, b.bps]).toEqual(["0.406312", "0.412500", 150]);
    // 1.250 / 0.406312 = 3.0764... → 3.08 GBP, + 1.00.
    expect([b.sell_amount, b.buy_amount]).toEqual(["4.08", "1.250"]);
  });

  test("KWD→GBP: a three-decimal sell currency and its fee", () => {
    const s = q("KWD", "GBP", "10.000", "sell");
    expect(s.fee).toBe("0.400");
    expect(s.fee_minor).toBe(400);
    // 9.600 KWD × 2.424242... × 0.985 = 2.38787878... → 2.387878; 9.6 × 2.387878 = 22.9236288 → 22.92.
    expect([s.mid_rate, s.rate, s.buy_amount]).toEqual(["2.424242", "2.387878", "22.92"]);
  });

  test("nothing is rounded before the one rounding: exact results stay exact", () => {
    // SEK→EUR: mid 1 / 0.9 = 1.1111…, and with 100 bps exactly 1.1. A cross rate rounded at any
    // number of places before the markup would print 1.099999 and buy 1099.99.
    const table: RateTable = {
      base: "EUR",
      as_of: "2026-11-20",
      source: "admin",
      rates: { EUR: "1", SEK: "0.9", GBP: "0.9" },
    };
    const plan: PricingPlan = { ...DEFAULT_PLAN, tiers: [{ up_to: null, bps: 100 }] };
    const r = quote({ sell: "SEK", buy: "EUR", amount: "1015.00", fixed: "sell", table, plan, now: NOW });
    expect([r.mid_rate, r.rate, r.buy_amount]).toEqual(["1.111111", "1.100000", "1100.00"]);
    expect(quote({ sell: "SEK", buy: "EUR", amount: "1100.00", fixed: "buy", table, plan, now: NOW }).sell_amount).toBe(
      "1015.00",
    );
    // Tiers too: 9.00 GBP is exactly 10.00 EUR, above a 9.99 EUR bound.
    const tiered: PricingPlan = {
      ...plan,
      tier_currency: "EUR",
      tiers: [{ up_to: "9.99", bps: 300 }, { up_to: null, bps: 100 }],
    };
    expect(quote({ sell: "GBP", buy: "SEK", amount: "10.00", fixed: "sell", table, plan: tiered, now: NOW }).bps).toBe(
      100,
    );
    expect(quote({ sell: "GBP", buy: "SEK", amount: "9.99", fixed: "sell", table, plan: tiered, now: NOW }).bps).toBe(
      300,
    );
  });

  test("codes in any case; validity is a parameter; the answer holds the public fields only", () => {
    const r = q("gbp", " eur ", "100.00", "sell", { validityMs: 60_000 });
    expect(r.sell_currency).toBe("GBP");
    expect(r.buy_currency).toBe("EUR");
    expect(r.expires_at).toBe("2026-11-22T12:01:00.000Z");
    expect(Object.keys(quoteAnswer(r)).sort()).toEqual(
      [
        "buy_amount",
        "buy_currency",
        "expires_at",
        "fee",
        "fee_currency",
        "markup",
        "mid_rate",
        "rate",
        "sell_amount",
        "sell_currency",
      ],
    );
  });

  test("works with the indicative set for every pair", () => {
    for (const sell of CURRENCY_CODES) {
      for (const buy of CURRENCY_CODES) {
        if (sell === buy) continue;
        const fee = feeFor(DEFAULT_PLAN, sell, "regular");
        const amount = String(fee * 100); // well above the fee, in minor units read as major
        const r = quote({ sell, buy, amount, fixed: "sell", table: INDICATIVE_RATES, plan: DEFAULT_PLAN, now: NOW });
        expect(r.buy_minor, `${sell}→${buy}`).toBeGreaterThan(0);
        expect(new Big(r.rate).lt(r.mid_rate), `${sell}→${buy}`).toBe(true);
      }
    }
  });
});

describe("tiers by amount", () => {
  const bps = (sell: string, buy: string, amount: string, fixed: "sell" | "buy", plan = DEFAULT_PLAN) =>
    quote({ sell, buy, amount, fixed, table: TABLE, plan, now: NOW }).bps;

  test("fixed sell: the amount converted (after the fee), bounds included in their tier", () => {
    expect(bps("GBP", "EUR", "1001.00", "sell")).toBe(150); // 1000.00 converted
    expect(bps("GBP", "EUR", "1001.01", "sell")).toBe(100);
    expect(bps("GBP", "EUR", "10001.00", "sell")).toBe(100);
    expect(bps("GBP", "EUR", "10001.01", "sell")).toBe(50);
    expect(bps("GBP", "EUR", "2000000.00", "sell")).toBe(50);
  });

  test("measured in the tier currency at the mid rate, rounded down", () => {
    // 1251.00 EUR − 1.00 fee = 1250.00 EUR = 1000.00 GBP at mid.
    expect(bps("EUR", "USD", "1251.00", "sell")).toBe(150);
    expect(bps("EUR", "USD", "1251.02", "sell")).toBe(100); // 1000.016 GBP → 1000.01
    expect(bps("EUR", "USD", "1251.01", "sell")).toBe(150); // 1000.008 GBP → 1000.00 (house's favour)
    // 160000 JPY = 800 GBP; 200000 JPY = 1000 GBP; 200200 JPY = 1001 GBP.
    expect(bps("JPY", "EUR", "200200", "sell")).toBe(150);
    expect(bps("JPY", "EUR", "200202", "sell")).toBe(100);
  });

  test("fixed buy: the least amount that, sent, buys it; at a tier's lower bound, that bound", () => {
    // At 150 bps (1.23125) 1231.25 EUR takes 1000.00 GBP, the most of the first tier.
    expect(q("GBP", "EUR", "1231.25", "buy")).toMatchObject({ bps: 150, sell_minor: 100000 + 100 });
    // 1231.26 EUR would take 1000.01 GBP at 150 bps, which is in the second tier; there 1000.01 GBP
    // (its least amount) buys 1237.51 EUR, so any amount up to that costs 1000.01 GBP.
    for (const amount of ["1231.26", "1237.50", "1237.51"]) {
      expect(q("GBP", "EUR", amount, "buy"), amount).toMatchObject({ bps: 100, sell_minor: 100001 + 100 });
    }
    expect(q("GBP", "EUR", "1237.52", "buy")).toMatchObject({ bps: 100, sell_minor: 100002 + 100 });
    // Once priced at the amount at mid, 1250.00 EUR cost more than 1250.02 EUR.
    expect(q("GBP", "EUR", "1250.00", "buy").sell_minor).toBeLessThan(q("GBP", "EUR", "1250.02", "buy").sell_minor);
    expect(bps("USD", "JPY", "1600000", "buy")).toBe(100); // about 8,000 GBP
    expect(bps("USD", "JPY", "3000000", "buy")).toBe(50); // about 15,000 GBP
  });

  test("fixed buy never costs more than sending what buys the same amount, and receiving more never costs less", () => {
    let previous = 0;
    for (let cents = 122_000; cents <= 127_000; cents += 7) {
      const amount = (cents / 100).toFixed(2);
      const asked = q("GBP", "EUR", amount, "buy");
      expect(asked.sell_minor, amount).toBeGreaterThanOrEqual(previous);
      previous = asked.sell_minor;
      expect(q("GBP", "EUR", asked.sell_amount, "sell").buy_minor, amount).toBeGreaterThanOrEqual(cents);
      const less = formatAmount("GBP", asked.sell_minor - 1);
      expect(q("GBP", "EUR", less, "sell").buy_minor, amount).toBeLessThan(cents);
    }
  });

  test("a plan whose tiers are in another currency, and the markup it gives", () => {
    const plan: PricingPlan = {
      ...DEFAULT_PLAN,
      id: 7,
      is_default: false,
      ...planBody.parse({
        ...DEFAULT_PLAN,
        tier_currency: "JPY",
        tiers: [{ up_to: "100000", bps: 300 }, { up_to: null, bps: 0 }],
      }),
    };
    expect(bps("GBP", "EUR", "501.00", "sell", plan)).toBe(300); // 500 GBP = 100000 JPY
    const r = quote({ sell: "GBP", buy: "EUR", amount: "501.01", fixed: "sell", table: TABLE, plan, now: NOW });
    expect([r.bps, r.rate, r.mid_rate]).toEqual([0, "1.250000", "1.250000"]);
  });

  test("bpsFor directly", () => {
    expect(bpsFor(DEFAULT_PLAN, 0)).toBe(150);
    expect(bpsFor(DEFAULT_PLAN, 100000)).toBe(150);
    expect(bpsFor(DEFAULT_PLAN, 100001)).toBe(100);
    expect(bpsFor(DEFAULT_PLAN, 1000000)).toBe(100);
    expect(bpsFor(DEFAULT_PLAN, 1000001)).toBe(50);
    expect(bpsFor(DEFAULT_PLAN, Number.MAX_SAFE_INTEGER)).toBe(50);
    expect(() => bpsFor(DEFAULT_PLAN, 1.5)).toThrow(RangeError);
  });
});

describe("fees and overrides", () => {
  test("the plan's regular fee in the sell currency", () => {
    expect(q("USD", "GBP", "100.00", "sell").fee).toBe("1.50");
    expect(q("JPY", "GBP", "100000", "sell").fee).toBe("200");
    expect(q("KWD", "GBP", "100.000", "sell").fee).toBe("0.400");
  });

  test("overrides apply only when override_transfer_fee is on, each in its own currency", () => {
    expect(q("GBP", "EUR", "100.00", "sell", { overrides: OFF }).fee).toBe("1.00");
    const on = q("GBP", "EUR", "100.00", "sell", { overrides: ON });
    expect(on.fee).toBe("2.50");
    expect(on.fee_minor).toBe(250);
    expect(on.buy_amount).toBe("120.04"); // 97.50 × 1.23125 = 120.046875
    // Each currency's own override, with its own digits.
    expect(q("EUR", "GBP", "100.00", "sell", { overrides: ON }).fee).toBe("2.00");
    expect(q("KWD", "GBP", "100.000", "sell", { overrides: ON }).fee).toBe("0.250");
    // A currency without an override pays the plan's fee (it used to pay the GBP number: 3 yen).
    expect(q("JPY", "GBP", "100000", "sell", { overrides: ON }).fee).toBe("200");
    expect(q("USD", "GBP", "100.00", "sell", { overrides: ON }).fee).toBe("1.50");
    // On, but no override of that kind: the plan's fee.
    const noRegular = { ...ON, override_regular_transfer_fee: null };
    expect(q("GBP", "EUR", "100.00", "sell", { overrides: noRegular }).fee).toBe("1.00");
    // A zero override is a real override.
    expect(
      q("GBP", "EUR", "100.00", "sell", { overrides: { ...ON, override_regular_transfer_fee: { GBP: "0.00" } } }).fee,
    )
      .toBe("0.00");
    // fixed=buy adds the override fee too.
    expect(q("GBP", "EUR", "100.00", "buy", { overrides: ON }).sell_amount).toBe("83.72");
  });

  test("feeFor: kinds, overrides and errors", () => {
    expect(feeFor(DEFAULT_PLAN, "GBP", "regular")).toBe(100);
    expect(feeFor(DEFAULT_PLAN, "GBP", "priority")).toBe(500);
    expect(feeFor(DEFAULT_PLAN, "GBP", "priority", OFF)).toBe(500);
    expect(feeFor(DEFAULT_PLAN, "GBP", "priority", ON)).toBe(900);
    expect(feeFor(DEFAULT_PLAN, "JPY", "priority", ON)).toBe(9);
    expect(feeFor(DEFAULT_PLAN, "JPY", "regular", ON)).toBe(200);
    expect(feeFor(DEFAULT_PLAN, "BHD", "regular", null)).toBe(500);
    // The map's own keys only: nothing inherited from Object.prototype counts as an override.
    expect(feeFor(DEFAULT_PLAN, "GBP", "regular", { ...ON, override_regular_transfer_fee: {} })).toBe(100);
    expect(() => feeFor(DEFAULT_PLAN, "XYZ", "regular")).toThrow(MoneyError);
    const partial = { ...DEFAULT_PLAN, fees: { GBP: { regular: "1.00", priority: "5.00" } } };
    expect(moneyError(() => feeFor(partial, "EUR", "regular")).message).toBe(
      "The pricing plan Standard has no fees for EUR.",
    );
  });
});

describe("the default plan and planBody (a plan as an administrator writes it)", () => {
  test("the default plan is valid, covers every currency, and rises no fee in value from regular to priority", () => {
    const { id: _id, is_default: _isDefault, ...content } = DEFAULT_PLAN;
    expect(planBody.parse(DEFAULT_PLAN)).toEqual(content);
    expect(DEFAULT_PLAN.is_default).toBe(true);
    for (const code of CURRENCY_CODES) {
      const { regular, priority } = DEFAULT_PLAN.fees[code];
      expect(parseAmount(code, regular), code).toBeGreaterThan(0);
      expect(parseAmount(code, priority), code).toBeGreaterThan(parseAmount(code, regular));
    }
    // Fees are small: under 10 GBP priority, at the indicative mid rate.
    for (const code of CURRENCY_CODES) {
      const gbp = new Big(DEFAULT_PLAN.fees[code].priority).times(crossRate(INDICATIVE_RATES, code, "GBP"));
      expect(gbp.lt(10), code).toBe(true);
    }
    expect(Object.isFrozen(DEFAULT_PLAN.tiers[0])).toBe(true);
  });

  test("normalises amounts", () => {
    const plan = planBody.parse({
      ...DEFAULT_PLAN,
      name: "  Business ",
      tiers: [{ up_to: "5000", bps: 80 }, { up_to: null, bps: 40 }],
      fees: { ...DEFAULT_PLAN.fees, GBP: { regular: "0", priority: "3.5" } },
    });
    expect(plan.name).toBe("Business");
    expect(plan.tiers).toEqual([{ up_to: "5000.00", bps: 80 }, { up_to: null, bps: 40 }]);
    expect(plan.fees.GBP).toEqual({ regular: "0.00", priority: "3.50" });
  });

  const tiers = (...t: unknown[]) => ({ ...DEFAULT_PLAN, tiers: t });
  const bad: [string, unknown, string, string | undefined][] = [
    ["not an object", null, "A pricing plan must be an object.", undefined],
    ["no name", { ...DEFAULT_PLAN, name: " " }, "The plan needs a name of at most 100 characters.", "name"],
    [
      "unknown tier currency",
      { ...DEFAULT_PLAN, tier_currency: "XYZ" },
      'The tier currency "XYZ" is not a currency we support.',
      "tier_currency",
    ],
    ["no tiers", tiers(), "The plan needs at least one tier.", "tiers"],
    [
      "last tier closed",
      tiers({ up_to: "100.00", bps: 10 }),
      "The last tier must be open: its up_to is null.",
      "tiers.0.up_to",
    ],
    [
      "open tier first",
      tiers({ up_to: null, bps: 10 }, { up_to: null, bps: 5 }),
      "Only the last tier may be open; tier 1 needs an up_to.",
      "tiers.0.up_to",
    ],
    [
      "descending",
      tiers({ up_to: "500.00", bps: 10 }, { up_to: "400.00", bps: 5 }, { up_to: null, bps: 1 }),
      "Tier 2's up_to must be more than tier 1's.",
      "tiers.1.up_to",
    ],
    [
      "equal bounds",
      tiers({ up_to: "500.00", bps: 10 }, { up_to: "500", bps: 5 }, { up_to: null, bps: 1 }),
      "Tier 2's up_to must be more than tier 1's.",
      "tiers.1.up_to",
    ],
    [
      "zero bound",
      tiers({ up_to: "0", bps: 10 }, { up_to: null, bps: 1 }),
      "Tier 1's up_to must be more than zero.",
      "tiers.0.up_to",
    ],
    [
      "bound with 3 decimals",
      tiers({ up_to: "1.005", bps: 10 }, { up_to: null, bps: 1 }),
      "Tier 1's up_to: GBP amounts have at most 2 decimal places.",
      "tiers.0.up_to",
    ],
    [
      "bps too high",
      tiers({ up_to: null, bps: 1001 }),
      "Tier 1's bps must be a whole number from 0 to 1000.",
      "tiers.0.bps",
    ],
    [
      "bps negative",
      tiers({ up_to: null, bps: -1 }),
      "Tier 1's bps must be a whole number from 0 to 1000.",
      "tiers.0.bps",
    ],
    [
      "bps fractional",
      tiers({ up_to: null, bps: 1.5 }),
      "Tier 1's bps must be a whole number from 0 to 1000.",
      "tiers.0.bps",
    ],
    [
      "bps as text",
      tiers({ up_to: null, bps: "50" }),
      "Tier 1's bps must be a whole number from 0 to 1000.",
      "tiers.0.bps",
    ],
    [
      "fee with too many digits",
      { ...DEFAULT_PLAN, fees: { ...DEFAULT_PLAN.fees, JPY: { regular: "200.5", priority: "800" } } },
      "The regular JPY fee: JPY amounts have no decimal places.",
      "fees.JPY.regular",
    ],
    [
      "negative fee",
      { ...DEFAULT_PLAN, fees: { ...DEFAULT_PLAN.fees, GBP: { regular: "1.00", priority: "-5" } } },
      "The priority GBP fee: Amounts cannot be negative.",
      "fees.GBP.priority",
    ],
    [
      "fee as a number",
      { ...DEFAULT_PLAN, fees: { ...DEFAULT_PLAN.fees, GBP: { regular: 1, priority: "5.00" } } },
      "The regular GBP fee must be a decimal string in GBP.",
      "fees.GBP.regular",
    ],
    [
      "missing currency",
      { ...DEFAULT_PLAN, fees: { GBP: DEFAULT_PLAN.fees.GBP } },
      "The plan needs a regular and a priority fee for AED.",
      "fees.AED",
    ],
    [
      "unknown currency",
      { ...DEFAULT_PLAN, fees: { ...DEFAULT_PLAN.fees, XYZ: { regular: "1", priority: "2" } } },
      '"XYZ" is not a currency we support.',
      "fees.XYZ",
    ],
  ];
  test.each(bad)("refused: %s", (_name, input, message, field) => {
    const result = planBody.safeParse(input);
    expect(result.success, "the plan is refused").toBe(false);
    // The first problem is the one the API answers as `error`, at its field in `fields`.
    const [first] = result.error!.issues;
    expect(first.message).toBe(message);
    expect(first.path.join(".") || undefined).toBe(field);
  });
});

describe("errors", () => {
  const cases: [string, () => unknown, string, string | undefined][] = [
    [
      "the same currency",
      () => q("GBP", "GBP", "100.00", "sell"),
      "Choose two different currencies to convert between.",
      "buy",
    ],
    [
      "an unknown sell currency",
      () => q("XYZ", "EUR", "100.00", "sell"),
      '"XYZ" is not a currency we support.',
      "sell",
    ],
    [
      "an unknown buy currency",
      () => q("GBP", "ABCD", "100.00", "sell"),
      '"ABCD" is not a currency we support.',
      "buy",
    ],
    ["no buy currency", () => q("GBP", "", "100.00", "sell"), "Choose the currency to buy.", "buy"],
    [
      "fixed neither side",
      () => q("GBP", "EUR", "100.00", "both" as "sell"),
      'fixed must be "sell" or "buy".',
      "fixed",
    ],
    ["zero", () => q("GBP", "EUR", "0.00", "sell"), "The amount must be more than zero.", "amount"],
    ["zero to buy", () => q("GBP", "EUR", "0", "buy"), "The amount must be more than zero.", "amount"],
    [
      "exactly the fee",
      () => q("GBP", "EUR", "1.00", "sell"),
      "The amount must be more than the fee of 1.00 GBP.",
      "amount",
    ],
    [
      "less than the fee",
      () => q("JPY", "EUR", "150", "sell"),
      "The amount must be more than the fee of 200 JPY.",
      "amount",
    ],
    [
      "too small to buy anything",
      () => q("JPY", "GBP", "201", "sell"),
      "The amount is too small: after the fee it buys less than 0.01 GBP.",
      "amount",
    ],
    [
      "too many decimals",
      () => q("GBP", "EUR", "1.001", "sell"),
      "GBP amounts have at most 2 decimal places.",
      "amount",
    ],
    [
      "decimals on the buy side",
      () => q("GBP", "JPY", "100.5", "buy"),
      "JPY amounts have no decimal places.",
      "amount",
    ],
    ["negative", () => q("GBP", "EUR", "-100", "sell"), "Amounts cannot be negative.", "amount"],
    ["too large a result", () => q("GBP", "JPY", "90071992547409.91", "sell"), "The amount is too large.", "amount"],
    ["too large to pay", () => q("KWD", "JPY", "9007199254740991", "buy"), "The amount is too large.", "amount"],
    [
      "no rate",
      () => q("GBP", "SEK", "100.00", "sell"),
      "There is no rate for SEK in the rates of 2026-11-20.",
      "currency",
    ],
  ];
  test.each(cases)("refused: %s", (_name, fn, message, field) => {
    const e = moneyError(fn);
    expect(e.message).toBe(message);
    expect(e.field).toBe(field);
  });
});

/** A property checks about a thousand quotes, CPU-bound: on a shared 2-core machine, several seconds. */
const PROPERTY_TIMEOUT = 30_000;

describe("properties: the house never loses, and never wins by a minor unit or more", () => {
  /** A positive rate with up to 8 significant digits, between about 1e-4 and 1e5. */
  const rateText = fc
    .tuple(fc.integer({ min: 1, max: 99_999_999 }), fc.integer({ min: 0, max: 11 }))
    .map(([digits, scale]) => new Big(digits).div(new Big(10).pow(scale)).toFixed())
    .filter((r) => new Big(r).gte("0.0001") && new Big(r).lte("100000"));
  const code = fc.constantFrom(...CURRENCY_CODES);
  const pair = fc.tuple(code, code).filter(([a, b]) => a !== b);
  const plan = fc
    .tuple(
      fc.integer({ min: 0, max: 1000 }),
      fc.integer({ min: 0, max: 1000 }),
      fc.integer({ min: 1, max: 10_000_000 }),
    )
    .map(([bps1, bps2, bound]): PricingPlan => ({
      ...DEFAULT_PLAN,
      tiers: [{ up_to: (bound / 100).toFixed(2), bps: bps1 }, { up_to: null, bps: bps2 }],
    }));
  // A regular fee override in some currencies, written with each one's digits.
  const overrides = fc.option(
    fc.record({
      override_transfer_fee: fc.boolean(),
      override_regular_transfer_fee: fc.option(
        fc.dictionary(fc.constantFrom(...CURRENCY_CODES), fc.integer({ min: 0, max: 100_000 }))
          .map((fees) => Object.fromEntries(Object.entries(fees).map(([code, n]) => [code, formatAmount(code, n)]))),
      ),
      override_priority_transfer_fee: fc.constant(null),
    }),
  );
  const amountMinor = fc.oneof(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 1_000_000_000_000 }));
  // A rate for every currency, so that refusals come from the amounts only.
  const rates = fc
    .array(rateText, { minLength: CURRENCY_CODES.length, maxLength: CURRENCY_CODES.length })
    .map((list) => Object.fromEntries(CURRENCY_CODES.map((c, i) => [c, list[i]])));
  const scenario = fc.record({ pair, rates, plan, overrides, amountMinor });

  function setup(s: { rates: Record<string, string> }): RateTable {
    return { base: "EUR", as_of: "2026-11-20", source: "test", rates: { ...s.rates, EUR: "1" } };
  }

  /**
   * floor(minor units of `from` in minor units of `to` at the exact mid rate). Dividing rounded
   * down at 40 places and then flooring is the exact floor.
   */
  function floorConvert(table: RateTable, minor: number, from: string, to: string): number {
    const Down = Big();
    Down.DP = 40;
    Down.RM = Big.roundDown;
    const v = new Down(minor)
      .times(table.rates[to])
      .times(new Big(10).pow(minorUnits(to) - minorUnits(from)))
      .div(table.rates[from])
      .round(0, Big.roundDown);
    return Math.min(v.toNumber(), Number.MAX_SAFE_INTEGER);
  }

  /** The exact value, in buy minor units, of `convertedMinor` sell minor units at the printed `rate`. */
  function exact(r: Quote, convertedMinor: number): Big {
    return new Big(convertedMinor).times(r.rate).times(`1e${minorUnits(r.buy_currency) - minorUnits(r.sell_currency)}`);
  }

  /** Runs a quote, answering null for the refusals that random inputs may meet. */
  function attempt(input: QuoteInput): Quote | null {
    try {
      return quote(input);
    } catch (e) {
      expect(e).toBeInstanceOf(MoneyError);
      expect((e as MoneyError).message).toMatch(/too small|too large|more than the fee|no rate for/);
      return null;
    }
  }

  function checkCommon(r: Quote, table: RateTable, bps: number) {
    for (const n of [r.sell_minor, r.buy_minor, r.fee_minor]) {
      expect(Number.isSafeInteger(n)).toBe(true);
      expect(n).toBeGreaterThanOrEqual(0);
    }
    expect(r.buy_minor).toBeGreaterThan(0);
    expect(r.sell_minor).toBeGreaterThan(r.fee_minor);
    expect(parseAmount(r.sell_currency, r.sell_amount)).toBe(r.sell_minor);
    expect(parseAmount(r.buy_currency, r.buy_amount)).toBe(r.buy_minor);
    expect(parseAmount(r.sell_currency, r.fee)).toBe(r.fee_minor);
    expect(r.fee_currency).toBe(r.sell_currency);
    expect(r.bps).toBe(bps);
    // Exact comparisons, by multiplication only: with f = rates[sell] and t = rates[buy], the mid
    // is t / f and the marked-up rate t / f × (10000 − bps) / 10000.
    const f = new Big(table.rates[r.sell_currency]);
    const t = new Big(table.rates[r.buy_currency]);
    const places = r.rate.split(".")[1].length;
    expect(places).toBeGreaterThanOrEqual(6);
    expect(r.mid_rate.split(".")[1].length).toBe(places);
    const ulp = new Big(10).pow(-places);
    // The printed rate is the marked-up mid rounded down by less than one unit of its last place.
    const target = t.times(10_000 - r.bps);
    expect(new Big(r.rate).times(f).times(10_000).lte(target)).toBe(true);
    expect(new Big(r.rate).plus(ulp).times(f).times(10_000).gt(target)).toBe(true);
    // The printed mid is within half a unit of its last place of t / f.
    expect(new Big(r.mid_rate).times(f).minus(t).abs().times(2).lte(ulp.times(f))).toBe(true);
  }

  test("fixed=sell: buy ≤ (sell − fee) × rate < buy + 1 minor unit", () => {
    let priced = 0;
    fc.assert(
      fc.property(scenario, (s) => {
        const table = setup(s);
        const [sell, buy] = s.pair;
        const amount = formatAmountSafe(sell, s.amountMinor);
        const r = attempt({ sell, buy, amount, fixed: "sell", table, plan: s.plan, overrides: s.overrides, now: NOW });
        if (!r) return;
        priced++;
        const tierMinor = floorConvert(table, r.sell_minor - r.fee_minor, sell, "GBP");
        checkCommon(r, table, bpsFor(s.plan, tierMinor));
        expect(r.sell_minor).toBe(s.amountMinor);
        const value = exact(r, r.sell_minor - r.fee_minor);
        expect(new Big(r.buy_minor).lte(value)).toBe(true);
        expect(value.minus(r.buy_minor).lt(1)).toBe(true);
        // Never better for the customer than the mid rate: buy ≤ converted × t / f, in minor units.
        const [f, t] = [new Big(table.rates[sell]), new Big(table.rates[buy])];
        expect(
          new Big(r.buy_minor).times(f).times(new Big(10).pow(minorUnits(sell))).lte(
            new Big(r.sell_minor - r.fee_minor).times(t).times(new Big(10).pow(minorUnits(buy))),
          ),
        ).toBe(true);
      }),
      { numRuns: 1000 },
    );
    expect(priced).toBeGreaterThan(500);
  }, PROPERTY_TIMEOUT);

  test("fixed=buy: (sell − fee) × rate ≥ buy, and one sell minor unit less, sent, would not buy it", () => {
    let priced = 0;
    fc.assert(
      fc.property(scenario, (s) => {
        const table = setup(s);
        const [sell, buy] = s.pair;
        const amount = formatAmountSafe(buy, s.amountMinor);
        const r = attempt({ sell, buy, amount, fixed: "buy", table, plan: s.plan, overrides: s.overrides, now: NOW });
        if (!r) return;
        priced++;
        expect(r.buy_minor).toBe(s.amountMinor);
        const converted = r.sell_minor - r.fee_minor;
        // Its markup is the tier of what it converts, as fixed=sell would measure it.
        checkCommon(r, table, bpsFor(s.plan, floorConvert(table, converted, sell, "GBP")));
        expect(exact(r, converted).gte(r.buy_minor)).toBe(true);
        // The least amount that buys it when sent: one minor unit less, sent, buys less (or nothing).
        const base = { sell, buy, table, plan: s.plan, overrides: s.overrides, now: NOW, fixed: "sell" as const };
        const sent = attempt({ ...base, amount: r.sell_amount });
        expect(sent?.buy_minor).toBeGreaterThanOrEqual(r.buy_minor);
        const less = r.sell_minor - 1 > r.fee_minor
          ? attempt({ ...base, amount: formatAmountSafe(sell, r.sell_minor - 1) })
          : null;
        if (less) expect(less.buy_minor).toBeLessThan(r.buy_minor);
      }),
      { numRuns: 1000 },
    );
    expect(priced).toBeGreaterThan(500);
  }, PROPERTY_TIMEOUT);

  test("round trip with one tier: buying what a sell quote gives never costs more than that sell amount", () => {
    fc.assert(
      fc.property(scenario, fc.integer({ min: 0, max: 1000 }), (s, bps) => {
        const table = setup(s);
        const [sell, buy] = s.pair;
        const flat: PricingPlan = { ...DEFAULT_PLAN, tiers: [{ up_to: null, bps }] };
        const base = { sell, buy, table, plan: flat, overrides: s.overrides, now: NOW };
        const first = attempt({ ...base, amount: formatAmountSafe(sell, s.amountMinor), fixed: "sell" });
        if (!first) return;
        const back = quote({ ...base, amount: first.buy_amount, fixed: "buy" });
        expect(back.rate).toBe(first.rate);
        expect(back.sell_minor).toBeLessThanOrEqual(first.sell_minor);
        expect(back.buy_minor).toBe(first.buy_minor);
      }),
      { numRuns: 800 },
    );
  }, PROPERTY_TIMEOUT);
});

/** formatAmount without importing it twice under test: digits placed by hand, checked by parseAmount. */
function formatAmountSafe(code: string, minor: number): string {
  const digits = minorUnits(code);
  const text = digits === 0
    ? String(minor)
    : `${Math.floor(minor / 10 ** digits)}.${String(minor % 10 ** digits).padStart(digits, "0")}`;
  expect(parseAmount(code, text)).toBe(minor);
  return text;
}
