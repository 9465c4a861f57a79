import { desc } from "drizzle-orm";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { consoleAlerts } from "../../db/schema-console.ts";
import { rateTables } from "../../db/schema-money.ts";
import { refreshRates } from "../../server/money/rate-feed.ts";
import { type Admin, expectStatus, HOUR, TestClient } from "../helpers/client.ts";
import { type MoneyApp, moneyApp } from "../helpers/money.ts";

/**
 * Rates that cannot be right never reach a quote (issue 14, finding 6; docs/decisions/025): an
 * administrator's table dated after today, or with a rate that is not a price, is refused; a rate
 * that moves by more than 10 % must be confirmed by name, is then recorded with the confirming
 * administrator and raised for a second one; the ECB feed gets the same checks and holds a day
 * with a large move instead of applying it.
 */

vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

const DAY = 24 * HOUR;

let t: MoneyApp;
let admin: Admin;
let visitor: TestClient;
beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  visitor = new TestClient(t);
});

/** GBP against EUR as the calculator would price it: mid rate of 100.00 GBP → EUR. */
async function gbpEur() {
  const res = await visitor.get("quote?sell=GBP&buy=EUR&amount=100.00&fixed=sell");
  expectStatus(res, 200);
  return res.json.body.mid_rate as string;
}

const latestTable = async () => (await t.db.select().from(rateTables).orderBy(desc(rateTables.id)).limit(1))[0];
const alerts = () => t.db.select().from(consoleAlerts).orderBy(consoleAlerts.id);

/** The indicative EUR → GBP is 0.879: 1 GBP ≈ 1.137656 EUR. */
describe("PUT console/rates refuses what cannot be right, and changes nothing", () => {
  test.each([
    ["GBP at 10.001 per EUR", { GBP: "10.001" }],
    ["GBP at 0.001 per EUR", { GBP: "0.001" }],
    ["GBP at 1e-30 per EUR", { GBP: `0.${"0".repeat(29)}1` }],
    ["USD at 100 per EUR, beside a sound GBP", { GBP: "0.88", USD: "100" }],
  ])("%s is a 422 naming the rate, even when confirmed", async (_name, rates) => {
    const before = await gbpEur();
    const tables = (await t.db.select().from(rateTables)).length;
    const res = await admin.client.put("console/rates", {
      base: "EUR",
      rates,
      confirm_changes: Object.keys(rates),
    });
    expectStatus(res, 422);
    const [field] = Object.keys(res.json.fields);
    expect(field).toBe(`rates.${Object.keys(rates).at(-1)}`);
    expect(res.json.fields[field]).toMatch(/cannot be right: 1 EUR is worth about/);
    expect(await gbpEur()).toBe(before);
    expect(await t.db.select().from(rateTables)).toHaveLength(tables);
  });

  test("rates dated after today (UTC) are a 422 on as_of; today's are taken", async () => {
    const tomorrow = new Date(t.clock.now() + DAY).toISOString().slice(0, 10);
    const future = await admin.client.put("console/rates", { base: "EUR", as_of: tomorrow, rates: { GBP: "0.88" } });
    expectStatus(future, 422);
    expect(future.json.fields.as_of).toMatch(/cannot be dated after today/);
    const farAway = await admin.client.put("console/rates", {
      base: "EUR",
      as_of: "9999-12-31",
      rates: { GBP: "0.88" },
    });
    expectStatus(farAway, 422);
    expect(farAway.json.fields).toHaveProperty(["as_of"]);
    expect((await latestTable()).source).toBe("indicative");

    const today = await admin.client.put("console/rates", {
      base: "EUR",
      as_of: t.clock.today(),
      rates: { GBP: "0.88" },
    });
    expectStatus(today, 200);
    expect(today.json.body.as_of).toBe(t.clock.today());
  });
});

describe("a rate that moves by more than 10 %", () => {
  test("up to 10 % needs no confirmation and raises nothing", async () => {
    // 0.879 (the indicative rate, in force earlier today) → 0.9669 is exactly 10 %.
    const res = await admin.client.put("console/rates", { base: "EUR", rates: { GBP: "0.9669" } });
    expectStatus(res, 200);
    expect(await latestTable()).toMatchObject({ confirmedChanges: null, confirmedBy: null });
    expect(await alerts()).toEqual([]);
  });

  test("is a 409 listing each large move on its rate, and nothing changes", async () => {
    const before = await gbpEur();
    const res = await admin.client.put("console/rates", {
      base: "EUR",
      rates: { GBP: "1.21", USD: "1.16", JPY: "140" },
      confirm_changes: ["GBP"],
    });
    expectStatus(res, 409);
    // GBP is confirmed; JPY (181.5 → 140, −22.9 %) is not; USD moves by less than 10 %.
    expect(res.json.fields).toEqual({
      "rates.JPY": "EUR/JPY moves by 22.9 % (181.500000 → 140.000000): confirm this change.",
    });
    expect(res.json.error).toBe("EUR/JPY moves by 22.9 % (181.500000 → 140.000000): confirm to apply.");
    expect(await gbpEur()).toBe(before);

    const none = await admin.client.put("console/rates", { base: "EUR", rates: { GBP: "1.21" } });
    expectStatus(none, 409);
    // Measured from the furthest rate in force over the last day: the indicative 0.879 of this morning.
    expect(none.json.fields).toEqual({
      "rates.GBP": "EUR/GBP moves by 37.7 % (0.879000 → 1.210000): confirm this change.",
    });
    expect(await alerts()).toEqual([]);
  });

  test("once confirmed it applies, is recorded with the confirming administrator, and raised for a second one", async () => {
    const res = await admin.client.put("console/rates", {
      base: "EUR",
      rates: { GBP: "1.21", USD: "1.16" },
      confirm_changes: ["GBP"],
    });
    expectStatus(res, 200);
    expect(res.json.body.rates.GBP).toBe("1.210000");
    expect(await gbpEur()).toBe("0.826446");

    const table = await latestTable();
    const move = { currency: "GBP", pair: "EUR/GBP", from: "0.879000", to: "1.210000", percent: "37.7" };
    expect(table).toMatchObject({ source: "admin", createdBy: admin.id, confirmedBy: admin.id });
    expect(table.confirmedChanges).toEqual([move]);

    const [alert] = await alerts();
    expect(alert).toMatchObject({
      kind: "rate_change",
      severity: "warning",
      createdBy: admin.id,
      assignedTo: null,
      resolvedAt: null,
      subject: { rate_table_id: table.id, source: "admin", base: "EUR", changes: [move] },
    });
    expect(alert.message).toContain("EUR/GBP moves by 37.7 % (0.879000 → 1.210000)");
    expect(alert.message).toContain("A second administrator should check");
  });

  test("a move is measured against the pair the administrator writes, whatever the base", async () => {
    // Against GBP: 1 GBP = 0.826446 EUR now, 1.137656 this morning; 0.95 is a 16.5 % move of GBP/EUR.
    const res = await admin.client.put("console/rates", { base: "GBP", rates: { EUR: "0.95" } });
    expectStatus(res, 409);
    expect(Object.keys(res.json.fields)).toEqual(["rates.EUR"]);
    expect(res.json.error).toMatch(/^GBP\/EUR moves by 16\.5 % \(1\.137656 → 0\.950000\)/);
  });

  test("confirm_changes names supported currencies only", async () => {
    const res = await admin.client.put("console/rates", {
      base: "EUR",
      rates: { GBP: "1.2" },
      confirm_changes: ["XYZ"],
    });
    expectStatus(res, 422);
    expect(res.json.fields).toHaveProperty(["confirm_changes.0"]);
  });
});

describe("a large move split into steps", () => {
  test("adds up over the day: the step that takes a rate past 10 % from any rate of the last 24 hours needs its confirmation", async () => {
    // JPY is 181.5 per EUR in the indicative set; each step is 6 % on the last.
    expectStatus(await admin.client.put("console/rates", { base: "EUR", rates: { JPY: "192.39" } }), 200);
    const second = await admin.client.put("console/rates", { base: "EUR", rates: { JPY: "203.93" } });
    expectStatus(second, 409);
    expect(second.json.fields).toEqual({
      "rates.JPY": "EUR/JPY moves by 12.4 % (181.500000 → 203.930000): confirm this change.",
    });
    const confirmed = await admin.client.put("console/rates", {
      base: "EUR",
      rates: { JPY: "203.93" },
      confirm_changes: ["JPY"],
    });
    expectStatus(confirmed, 200);
    const raised = (await alerts()).at(-1)!;
    expect(raised).toMatchObject({ kind: "rate_change", createdBy: admin.id });
    expect(raised.message).toContain("EUR/JPY moves by 12.4 % (181.500000 → 203.930000)");
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

describe("the ECB feed gets the same checks", () => {
  const feed = (day: string, usd: string, gbp: string) =>
    refreshRates(t.db, "https://ecb.test/daily.xml", ecbFetch(day, usd, gbp), new Date(t.clock.now()));

  test("a day that moves a rate by more than 10 % is held, not applied, and raised once", async () => {
    t.clock.advance(DAY);
    const before = await latestTable();
    const raisedBefore = (await alerts()).length;
    // GBP 1.21 → 0.85: −29.8 %.
    expect(await feed(t.clock.today(), "1.16", "0.85")).toBe("held");
    expect((await latestTable()).id).toBe(before.id);
    expect(await gbpEur()).toBe("0.826446");

    const raised = (await alerts()).slice(raisedBefore);
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({
      kind: "rate_change",
      severity: "warning",
      createdBy: null,
      subject: {
        source: "ecb",
        as_of: t.clock.today(),
        changes: [{ currency: "GBP", pair: "EUR/GBP", from: "1.210000", to: "0.850000", percent: "29.8" }],
      },
    });
    expect(raised[0].message).toMatch(/are held, not applied: EUR\/GBP moves by 29\.8 %/);

    // Read again 6 hours later: still held, not raised twice.
    expect(await feed(t.clock.today(), "1.16", "0.85")).toBe("held");
    expect((await alerts()).slice(raisedBefore)).toHaveLength(1);
  });

  test("a day dated after today, or with a rate that cannot be a price, is refused and raised", async () => {
    const before = await latestTable();
    const tomorrow = new Date(t.clock.now() + DAY).toISOString().slice(0, 10);
    expect(await feed(tomorrow, "1.16", "1.2")).toBe("refused");
    expect(await feed(t.clock.today(), "1160", "1.2")).toBe("refused");
    expect((await latestTable()).id).toBe(before.id);
    const refusals = (await alerts()).filter((a) => a.severity === "critical");
    expect(refusals.map((a) => a.subject.as_of)).toEqual([tomorrow]);
    expect(refusals[0].message).toMatch(/were refused: Rates cannot be dated after today/);
  });

  test("a day within 10 % is applied as before", async () => {
    t.clock.advance(DAY);
    expect(await feed(t.clock.today(), "1.17", "1.15")).toBe("updated");
    expect(await latestTable()).toMatchObject({ source: "ecb", asOf: t.clock.today() });
  });
});
