import { expect, test, vi } from "vitest";
import { checkLedger } from "../../server/ledger/check.ts";
import { expectStatus } from "../helpers/client.ts";
import { fundedCustomer, moneyApp } from "../helpers/money.ts";

// A customer onboarded and funded through the API takes about 1.5 s alone, several times that on a
// loaded machine: the same allowance as the other money suites, not vitest's default 5 s.
vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

test("the ledger check finds a conversion or a receipt separated from its transfer", async () => {
  const { t, admin } = await moneyApp();
  const customer = await fundedCustomer(t, admin, "GBP", "500.00");
  const held = await customer.client.post("account/conversions/quote", {
    sell_currency: "GBP",
    buy_currency: "EUR",
    amount: "100.00",
    fixed: "sell",
  });
  expectStatus(held, 200);
  expectStatus(await customer.client.post("account/conversions", { quote_id: held.json.body.id }), 201);
  expect((await checkLedger(t.db)).violations).toEqual([]);

  // What a crash between two commits would leave, were they not one transaction.
  await t.db.$client.execute("DELETE FROM conversions");
  await t.db.$client.execute("DELETE FROM receipts");
  const report = await checkLedger(t.db);
  expect(report.ok).toBe(false);
  expect(report.violations.some((v) => /a conversion transfer without its conversion record/.test(v))).toBe(true);
  expect(report.violations.some((v) => /a receipt transfer without its receipt record/.test(v))).toBe(true);
});
