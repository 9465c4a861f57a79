import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { type Admin, expectStatus } from "../helpers/client.ts";
import { decimalOf, fundedCustomer, minorOf, type MoneyApp, moneyApp, type OpenCustomer } from "../helpers/money.ts";

/**
 * The profit report (issue 11, item 7; docs/API.md console/profit): after a customer converts,
 * the administrator's report shows the conversion's fee and markup on the day, in the currency
 * sold, under "No partner" when split by partner; the CSV holds the same rows; bad input is a 422
 * naming the field; a customer gets 404 for the calls and the page.
 * (That the figures reconcile with the ledger is profit-reconcile.test.ts.)
 */

vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

let t: MoneyApp;
let admin: Admin;
let ada: OpenCustomer;
/** What the conversions cost Ada, as their answers said, in GBP minor units. */
let fees = 0n;
let markup = 0n;
// The ledger dates its movements by the wall clock.
const today = () => new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  ada = await fundedCustomer(t, admin, "GBP", "1000.00");
  for (const amount of ["100.00", "250.00"]) {
    const quoted = await ada.client.post("account/conversions/quote", {
      sell_currency: "GBP",
      buy_currency: "EUR",
      amount,
      fixed: "sell",
    });
    expectStatus(quoted, 200);
    // What GET quote shows for the same conversion names its markup.
    const shown = await ada.client.get(`quote?sell=GBP&buy=EUR&amount=${amount}&fixed=sell`);
    expectStatus(shown, 200);
    expectStatus(await ada.client.post("account/conversions", { quote_id: quoted.json.body.id }), 201);
    fees += minorOf(quoted.json.body.fee, 2);
    markup += minorOf(shown.json.body.markup, 2);
  }
});

describe("the report after two conversions", () => {
  test("GET console/profit shows today's GBP fee and markup, by currency", async () => {
    const res = await admin.client.get(`console/profit?from=${today()}&to=${today()}&group=day`);
    expectStatus(res, 200);
    expect(fees).toBeGreaterThan(0n);
    expect(markup).toBeGreaterThan(0n);
    expect(res.json.body).toEqual({
      from: today(),
      to: today(),
      group: "day",
      by: "currency",
      rows: [{
        period: today(),
        currency: "GBP",
        partner: null,
        markup: decimalOf(markup, 2),
        fees: decimalOf(fees, 2),
        total: decimalOf(markup + fees, 2),
      }],
    });
  });

  test("by partner, everything is under 'No partner'; by month the period is the month's first day", async () => {
    const res = await admin.client.get(`console/profit?from=${today()}&to=${today()}&group=month&by=partner`);
    expectStatus(res, 200);
    expect(res.json.body.rows).toEqual([expect.objectContaining({
      period: `${today().slice(0, 8)}01`,
      currency: "GBP",
      partner: "No partner",
      total: decimalOf(markup + fees, 2),
    })]);
  });

  test("a period before the conversions has no rows", async () => {
    const res = await admin.client.get("console/profit?from=2020-01-01&to=2020-01-31");
    expectStatus(res, 200);
    expect(res.json.body.rows).toEqual([]);
  });

  test("the CSV holds the same rows, with a header, as a download", async () => {
    const query = `from=${today()}&to=${today()}&group=week&by=partner`;
    const json = await admin.client.get(`console/profit?${query}`);
    const res = await admin.client.get(`console/profit.csv?${query}`);
    expectStatus(res, 200);
    expect(res.headers.get("content-type")).toContain("text/csv");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="profit-.*\.csv"$/);
    const rows = parse(res.text, { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0])).toEqual(["period", "currency", "partner", "markup", "fees", "total"]);
    expect(rows).toEqual(json.json.body.rows);
  });

  test("the page shows a chart per currency, the table of figures and the CSV link with the same query", async () => {
    const res = await admin.client.get(`/console/profitReports?from=${today()}&to=${today()}`);
    expect(res.status).toBe(200);
    const main = res.text.slice(res.text.indexOf("<main"), res.text.indexOf("</main>"));
    expect(main).not.toContain("Coming soon");
    expect(main).toMatch(/<figure[^>]*data-chart="GBP"/);
    expect(main).toMatch(
      /<svg[^>]*role="img"[^>]*aria-label="Income in GBP per period; the figures are in the table below."/,
    );
    expect(main).toContain(`data-row="${today()} GBP"`);
    expect(main).toContain(decimalOf(markup, 2));
    expect(main).toContain(decimalOf(fees, 2));
    // The totals per currency close the table.
    expect(main).toMatch(/<tfoot>.*Total GBP.*<\/tfoot>/s);
    expect(main).toContain(
      `href="/api/console/profit.csv?from=${today()}&amp;to=${today()}&amp;group=day&amp;by=currency"`,
    );
  });

  test("the page explains a refused query instead of a report", async () => {
    const res = await admin.client.get("/console/profitReports?from=2026-02-01&to=2026-01-01");
    expect(res.status).toBe(200);
    expect(res.text).toContain("The date to is before the date from.");
    expect(res.text).not.toContain("profit.csv");
  });

  test("a date that is not one is explained once", async () => {
    const res = await admin.client.get("/console/profitReports?from=bad");
    expect(res.status).toBe(200);
    expect(res.text.split("from is a date written YYYY-MM-DD.")).toHaveLength(2);
    // Only a date goes into the date input (a browser warns about anything else); a real one stays.
    expect(res.text).not.toContain('value="bad"');
    expect(res.text).toMatch(/<input[^>]*type="date"[^>]*name="from"(?![^>]*value=)[^>]*>/);
    const impossible = await admin.client.get("/console/profitReports?from=2026-02-30&to=2026-03-01");
    expect(impossible.text).not.toContain('value="2026-02-30"');
    expect(impossible.text).toContain('value="2026-03-01"');
  });
});

describe("refusals", () => {
  test.each([
    ["from=2026-13-01", "from"],
    ["to=yesterday", "to"],
    ["from=2026-02-01&to=2026-01-01", "to"],
    ["group=year", "group"],
    ["by=country", "by"],
    ["from=2000-01-01&to=2026-01-01&group=month", "from"],
    ["from=2024-01-01&to=2026-01-01&group=day", "group"],
  ])("%s is refused with 422 naming %s, on both calls", async (query, field) => {
    for (const path of ["console/profit", "console/profit.csv"]) {
      const res = await admin.client.get(`${path}?${query}`);
      expectStatus(res, 422);
      expect(Object.keys(res.json.fields ?? { [res.json.field]: 1 }), res.text).toEqual([field]);
    }
  });

  test("a customer gets 404 for the calls and the page", async () => {
    for (const path of ["console/profit", "console/profit.csv", "/console/profitReports"]) {
      expect((await ada.client.get(path)).status, path).toBe(404);
    }
  });
});
