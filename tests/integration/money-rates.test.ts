import { desc } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { rateTables } from "../../db/schema-money.ts";
import { CURRENCY_CODES } from "../../server/money/currencies.ts";
import { refreshRates } from "../../server/money/rate-feed.ts";
import { INDICATIVE_RATES } from "../../server/money/rates.ts";
import { type Admin, expectStatus, TestClient } from "../helpers/client.ts";
import { expectLedgerSound, fundedCustomer, type MoneyApp, moneyApp, type OpenCustomer } from "../helpers/money.ts";

/**
 * Administrators update the mid-market rates (PUT console/rates; DESIGN.md section 4 "Rates").
 * What they save is what GET rates answers (source "admin"), what new quotes are priced from,
 * and what the public calculator page shows, cached page or not. A quote already held keeps
 * its price until it expires. Refused tables change nothing.
 */

vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

let t: MoneyApp;
let admin: Admin;
let visitor: TestClient;
let customer: OpenCustomer;
beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  visitor = new TestClient(t);
  customer = await fundedCustomer(t, admin, "GBP", "500.00");
});

const NEW_TABLE = { base: "EUR", as_of: "2026-03-01", rates: { USD: "1.2000", GBP: "0.8500" } };

async function rates(base = "GBP") {
  const res = await visitor.get(`rates?base=${base}`);
  expectStatus(res, 200);
  return res.json.body;
}

async function visitorQuote(sell = "GBP", buy = "EUR") {
  return await visitor.get(`quote?sell=${sell}&buy=${buy}&amount=100.00&fixed=sell`);
}

/** The rates line the public calculator page shows a visitor ("Rates as of 2026-11-20 (indicative)"). */
async function calculatorRates() {
  const res = await visitor.get("/calculator");
  expect(res.status).toBe(200);
  return /Rates as of [^<]*/.exec(res.text)?.[0];
}

/** The indicative table with a few rates changed, every currency present. */
function fullTable(as_of: string, changes: Record<string, string>) {
  const all = Object.fromEntries(Object.entries(INDICATIVE_RATES.rates).filter(([code]) => code !== "EUR"));
  return { base: "EUR", as_of, rates: { ...all, ...changes } };
}

describe("refused rate tables change nothing", () => {
  afterAll(() => expectLedgerSound(t.db));

  test.each([
    ["a rate that is not a number", { ...NEW_TABLE, rates: { USD: "abc", GBP: "0.8500" } }, "rates.USD"],
    ["a negative rate", { ...NEW_TABLE, rates: { USD: "-1.2", GBP: "0.8500" } }, "rates.USD"],
    ["a zero rate", { ...NEW_TABLE, rates: { USD: "0", GBP: "0.8500" } }, "rates.USD"],
    ["a rate written as a number", { ...NEW_TABLE, rates: { USD: 1.2, GBP: "0.8500" } }, "rates.USD"],
    ["a currency we do not support", { ...NEW_TABLE, rates: { USD: "1.2", XYZ: "2" } }, "rates.XYZ"],
    ["a base rate other than 1", { ...NEW_TABLE, rates: { EUR: "2", USD: "1.2" } }, "rates.EUR"],
    ["an unknown base", { ...NEW_TABLE, base: "XYZ" }, "base"],
    ["a date that does not exist", { ...NEW_TABLE, as_of: "2026-02-30" }, "as_of"],
    ["no rate besides the base", { ...NEW_TABLE, rates: {} }, "rates"],
  ])("%s is a 422 naming the field", async (_name, body, field) => {
    const before = await rates("EUR");
    const res = await admin.client.put("console/rates", body);
    expectStatus(res, 422);
    expect(res.json.fields, JSON.stringify(res.json)).toHaveProperty([field]);
    expect(await rates("EUR")).toEqual(before);
  });

  test("a customer's PUT console/rates is a 404 and changes nothing", async () => {
    const before = await rates("EUR");
    const res = await customer.client.put("console/rates", NEW_TABLE);
    expectStatus(res, 404);
    expect(await rates("EUR")).toEqual(before);
    expect(before).toMatchObject({ source: "indicative", indicative: true, as_of: "2026-11-20" });
  });
});

describe("an administrator's rates are the ones in use", () => {
  let held: { id: string; rate: string; buy_amount: string };
  afterAll(() => expectLedgerSound(t.db));

  test("before the update: the indicative rates, and the cached calculator page shows their date", async () => {
    expect(await rates()).toMatchObject({ source: "indicative", indicative: true, as_of: "2026-11-20" });
    expect(await calculatorRates()).toBe("Rates as of 2026-11-20 (indicative)");
    // Twice, so the second answer comes from the page cache.
    expect(await calculatorRates()).toBe("Rates as of 2026-11-20 (indicative)");
    const res = await customer.client.post("account/conversions/quote", {
      sell_currency: "GBP",
      buy_currency: "EUR",
      amount: "100.00",
      fixed: "sell",
    });
    expectStatus(res, 200);
    held = res.json.body;
  });

  test("PUT console/rates answers the new table as GET rates would, marked as the administrator's", async () => {
    const res = await admin.client.put("console/rates", NEW_TABLE);
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({
      base: "EUR",
      as_of: "2026-03-01",
      source: "admin",
      indicative: false,
      rates: { EUR: "1.000000", GBP: "0.850000", USD: "1.200000" },
    });
    // The currencies the update did not name are still quoted (carried over).
    expect(Object.keys(res.json.body.rates)).toContain("JPY");
    // The change is recorded with its time, source and author.
    const [row] = await t.db.select().from(rateTables).orderBy(desc(rateTables.id)).limit(1);
    expect(row).toMatchObject({ base: "EUR", asOf: "2026-03-01", source: "admin", createdBy: admin.id });
    expect(row.createdAt.getTime()).toBe(t.clock.now());
  });

  test("GET rates reflects them against any base", async () => {
    expect(await rates("EUR")).toMatchObject({
      base: "EUR",
      as_of: "2026-03-01",
      source: "admin",
      indicative: false,
      rates: { USD: "1.200000", GBP: "0.850000" },
    });
    const gbp = await rates("GBP");
    expect(gbp).toMatchObject({ base: "GBP", source: "admin", indicative: false });
    expect(gbp.rates.EUR).toBe("1.176471"); // 1 / 0.85
    expect(gbp.rates.USD).toBe("1.411765"); // 1.2 / 0.85
  });

  test("a new quote is priced from them", async () => {
    const res = await visitorQuote();
    expectStatus(res, 200);
    expect(res.json.body.mid_rate).toBe("1.176471");
    expect(res.json.body.rate).toBe("1.158823"); // 1/0.85 × 0.985 = 1.15882352..., rounded down
    const usd = await visitorQuote("GBP", "USD");
    expect(usd.json.body.mid_rate).toBe("1.411765");
  });

  test("a quote held before the update keeps its price until it expires", async () => {
    const res = await customer.client.post("account/conversions", { quote_id: held.id });
    expectStatus(res, 201);
    expect(res.json.body).toMatchObject({ rate: held.rate, buy_amount: held.buy_amount });
    expect(held.rate).not.toBe("1.158823");
  });

  test("the cached calculator page shows the new rates' date at once", async () => {
    expect(await calculatorRates()).toBe("Rates as of 2026-03-01 (admin)");
  });

  test("a full table replaces every rate it names; the calculator follows again", async () => {
    const res = await admin.client.put("console/rates", fullTable("2026-03-02", { GBP: "0.8000" }));
    expectStatus(res, 200);
    expect(Object.keys(res.json.body.rates).sort()).toEqual([...CURRENCY_CODES].sort());
    expect((await rates()).rates.EUR).toBe("1.250000");
    expect((await visitorQuote()).json.body.mid_rate).toBe("1.250000");
    expectStatus(await visitorQuote("GBP", "JPY"), 200);
    expect(await calculatorRates()).toBe("Rates as of 2026-03-02 (admin)");
  });
});

/** An ECB daily file for `day` (USD and GBP only), served by a stand-in fetch. */
function ecbFetch(day: string, usd: string, gbp: string): typeof fetch {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
  <gesmes:subject>Reference rates</gesmes:subject>
  <gesmes:Sender><gesmes:name>European Central Bank</gesmes:name></gesmes:Sender>
  <Cube><Cube time="${day}"><Cube currency="USD" rate="${usd}"/><Cube currency="GBP" rate="${gbp}"/></Cube></Cube>
</gesmes:Envelope>`;
  return (() =>
    Promise.resolve(new Response(xml, { headers: { "content-type": "text/xml" } }))) as unknown as typeof fetch;
}

describe("the scheduled rate feed and the administrator's rates", () => {
  afterAll(() => expectLedgerSound(t.db));

  // Fails today: refreshRates (server/money/rate-feed.ts) only compares dates with an "ecb" table.
  test('an ECB day older than the administrator\'s rates does not replace them ("nothing newer than what we have")', async () => {
    const before = await rates("EUR");
    expect(before).toMatchObject({ source: "admin", as_of: "2026-03-02" });
    const result = await refreshRates(
      t.db,
      "https://ecb.test/daily.xml",
      ecbFetch("2026-02-27", "1.1000", "0.9000"),
      new Date(t.clock.now()),
    );
    expect(result).toBe("unchanged");
    expect(await rates("EUR")).toEqual(before);
  });

  test("a newer ECB day is taken, with the currencies the ECB does not publish carried over", async () => {
    // Read on the evening of the feed's day (a day after today is refused: docs/decisions/025),
    // within 10 % of the administrator's rates (USD 1.155, GBP 0.80), so it is not held.
    const result = await refreshRates(
      t.db,
      "https://ecb.test/daily.xml",
      ecbFetch("2026-03-05", "1.1000", "0.8400"),
      new Date("2026-03-05T17:00:00Z"),
    );
    expect(result).toBe("updated");
    const now = await rates("EUR");
    expect(now).toMatchObject({
      source: "ecb",
      indicative: false,
      as_of: "2026-03-05",
      rates: { USD: "1.100000", GBP: "0.840000" },
    });
    expect(now.rates.KWD).toEqual(expect.any(String));
  });
});

describe("updating some rates (docs/API.md: PUT console/rates {base, as_of?, rates})", () => {
  afterAll(() => expectLedgerSound(t.db));

  // Fails today: validateRateTable requires as_of although docs/API.md marks it optional.
  test("as_of may be left out: the rates are dated today", async () => {
    const { base, rates: table } = fullTable("unused", { GBP: "0.8100" });
    const res = await admin.client.put("console/rates", { base, rates: table });
    expectStatus(res, 200);
    expect(res.json.body.as_of).toBe(t.clock.today());
    expect((await rates()).rates.EUR).toBe("1.234568"); // 1 / 0.81
  });

  test("the table is recorded as the administrator's, whatever source the body names", async () => {
    const res = await admin.client.put("console/rates", { ...NEW_TABLE, source: "ecb" });
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({ source: "admin", indicative: false });
    const [row] = await t.db.select().from(rateTables).orderBy(desc(rateTables.id)).limit(1);
    expect(row).toMatchObject({ source: "admin", createdBy: admin.id });
  });

  // Fails today: PUT console/rates saves the table as given, so every currency it leaves out loses
  // its rate and can no longer be quoted; the rate feed carries such currencies over (mergeRateTables).
  test("an update naming two currencies keeps quoting the others at their previous rates", async () => {
    const before = await rates("EUR");
    const res = await admin.client.put("console/rates", NEW_TABLE);
    expectStatus(res, 200);
    expect(res.json.body.rates).toMatchObject({ USD: "1.200000", GBP: "0.850000" });
    // JPY was not mentioned: customers can still convert it, at its previous rate.
    expect(res.json.body.rates.JPY).toBe(before.rates.JPY);
    const yen = await visitorQuote("GBP", "JPY");
    expectStatus(yen, 200);
  });
});

describe("the console's rates form", () => {
  /** The date the form on /console/pricingplan would save new rates with, as the server renders it. */
  async function formDate() {
    const page = await admin.client.get("/console/pricingplan");
    expect(page.status).toBe(200);
    return /<input[^>]*id="rates-as-of"[^>]*value="([^"]*)"/.exec(page.text)?.[1];
  }

  test("dates the rates an administrator enters today, not the day of the table they replace", async () => {
    const yesterday = new Date(Date.parse(`${t.clock.today()}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    expectStatus(await admin.client.put("console/rates", { ...NEW_TABLE, as_of: yesterday }), 200);
    expect(await formDate()).toBe(t.clock.today());
  });
});
