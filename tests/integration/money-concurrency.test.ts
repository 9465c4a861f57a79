import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { checkLedger } from "../../server/ledger/check.ts";
import { type Admin, expectStatus } from "../helpers/client.ts";
import {
  balances,
  decimalOf,
  expectLedgerSound,
  fundedCustomer,
  minorOf,
  type MoneyApp,
  moneyApp,
  type OpenCustomer,
} from "../helpers/money.ts";

/**
 * Many conversions at once over HTTP (DESIGN.md section 4: a customer balance never goes below
 * zero; each movement is one transaction): a customer funded for exactly nine conversions fires
 * twenty at the same moment. Nine go through, eleven are refused for want of money, and the
 * balances and the ledger are exact.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 30_000 });

let t: MoneyApp;
let admin: Admin;
let customer: OpenCustomer;
/** The quotes refused for want of money in the first test. */
let refusedQuotes: string[] = [];
beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  customer = await fundedCustomer(t, admin, "GBP", "900.00");
});

describe("twenty conversions at once against a balance that covers nine", () => {
  afterAll(() => expectLedgerSound(t.db));

  test("exactly nine 201s and eleven 422s; GBP ends at 0.00 and EUR at the sum of the nine buy amounts", async () => {
    const quotes: { id: string; buy_amount: string }[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await customer.client.post("account/conversions/quote", {
        sell_currency: "GBP",
        buy_currency: "EUR",
        amount: "100.00",
        fixed: "sell",
      });
      expectStatus(res, 200);
      quotes.push(res.json.body);
    }
    expect(new Set(quotes.map((q) => q.id)).size).toBe(20);

    const answers = await Promise.all(
      quotes.map((q) => customer.client.post("account/conversions", { quote_id: q.id })),
    );
    const statuses = answers.map((a) => a.status);
    const done = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status === 422);
    expect(statuses.filter((s) => s !== 201 && s !== 422), JSON.stringify(answers.map((a) => a.text))).toEqual([]);
    expect(done).toHaveLength(9);
    expect(refused).toHaveLength(11);
    for (const r of refused) expect(r.json.error).toMatch(/^Not enough GBP/);
    refusedQuotes = quotes.filter((_, i) => answers[i].status === 422).map((q) => q.id);

    const executed = new Set(done.map((d) => d.json.body.quote_id as string));
    expect(executed.size).toBe(9);
    const eur = quotes.filter((q) => executed.has(q.id)).reduce((sum, q) => sum + minorOf(q.buy_amount, 2), 0n);
    expect(await balances(customer.client)).toEqual({ GBP: "0.00", EUR: decimalOf(eur, 2) });

    const list = await customer.client.get("account/conversions?per_page=100");
    expect(list.json.body.total).toBe(9);
    const report = await checkLedger(t.db);
    expect(report.violations).toEqual([]);
    expect(report.ok).toBe(true);
    const gbp = report.currencies.find((c) => c.currency === "GBP");
    expect(gbp).toMatchObject({ customers: 0, total: 0 });
    expect(gbp?.house.fee_income).toBe(9 * 100);
  });

  test("the refused quotes stay unused: with money again, one of them goes through, and a second is refused", async () => {
    expect(refusedQuotes).toHaveLength(11);
    const [retry, another] = refusedQuotes;
    const poor = await customer.client.post("account/conversions", { quote_id: retry });
    expectStatus(poor, 422);
    expect(poor.json.error).toBe(
      "Not enough GBP: your available balance is 0.00 GBP and this conversion needs 100.00 GBP.",
    );
    const topUp = await admin.client.post("console/receipts", {
      amount: "100.00",
      currency: "GBP",
      payer_name: "Top up",
      reference: customer.accountRef,
      received_at: t.clock.today(),
    });
    expectStatus(topUp, 201);
    expectStatus(await customer.client.post("account/conversions", { quote_id: retry }), 201);
    expectStatus(await customer.client.post("account/conversions", { quote_id: another }), 422);
    expect((await balances(customer.client)).GBP).toBe("0.00");
  });

  test("the same quote sent five times at once is executed once", async () => {
    const topUp = await admin.client.post("console/receipts", {
      amount: "500.00",
      currency: "GBP",
      payer_name: "Top up",
      reference: customer.accountRef,
      received_at: t.clock.today(),
    });
    expectStatus(topUp, 201);
    const q = await customer.client.post("account/conversions/quote", {
      sell_currency: "GBP",
      buy_currency: "EUR",
      amount: "100.00",
      fixed: "sell",
    });
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => customer.client.post("account/conversions", { quote_id: q.json.body.id })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect((await balances(customer.client)).GBP).toBe("400.00");
  });
});
