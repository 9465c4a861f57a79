import { expect, test, vi } from "vitest";
import { checkLedger } from "../../server/ledger/check.ts";
import { expectStatus } from "../helpers/client.ts";
import { fundedCustomer, moneyApp } from "../helpers/money.ts";
import { addRecipient, paid, paymentAccount } from "../helpers/payments.ts";

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

test("the ledger check finds a conversion or a payment whose record tells other amounts than its money moved", async () => {
  const { t, admin } = await moneyApp();
  const account = await paymentAccount(t, admin, { GBP: "500.00" });
  const customer = account.owner;
  const held = await customer.client.post("account/conversions/quote", {
    sell_currency: "GBP",
    buy_currency: "EUR",
    amount: "100.00",
    fixed: "sell",
  });
  expectStatus(held, 200);
  expectStatus(await customer.client.post("account/conversions", { quote_id: held.json.body.id }), 201);
  const uk = await addRecipient(t, account, { name: "Mary Smith", currency: "GBP", country: "GB" });
  const payment = await paid(customer.client, { recipient_id: uk, amount: "50.00", sell_currency: "GBP" });
  expectStatus(await customer.client.post(`account/payments/${payment.id}/cancel`, {}), 200);
  expect((await checkLedger(t.db)).violations).toEqual([]);

  // Records that tell the customer more than the ledger gave them: a cent more bought, a payment
  // whose hold and release moved less than its total.
  await t.db.$client.execute("UPDATE conversions SET buy_minor = buy_minor + 1");
  await t.db.$client.execute({
    sql: "UPDATE payments SET sell_minor = sell_minor + 1 WHERE id = ?",
    args: [payment.id],
  });
  const report = await checkLedger(t.db);
  expect(report.violations).toEqual([
    expect.stringMatching(
      /^conversion 1 says 10000 GBP sold \(fee 100\) for \d+ EUR, but its transfer moved -10000 GBP/,
    ),
    expect.stringMatching(new RegExp(`^payment ${payment.id}: its payment_hold moved available -5000, held 5000`)),
    expect.stringMatching(new RegExp(`^payment ${payment.id}: its payment_release moved available 5000, held -5000`)),
  ]);
});
