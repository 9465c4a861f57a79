import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { payments } from "../../db/schema-payments.ts";
import { BY_THE_RAIL } from "../../server/payouts/answer.ts";
import { type Admin, expectStatus } from "../helpers/client.ts";
import { expectLedgerSound, type MoneyApp, moneyApp } from "../helpers/money.ts";
import { addRecipient, paid, type PaymentAccount, paymentAccount } from "../helpers/payments.ts";

/**
 * SEPA recipients when the company's bank is outside the EEA (decision 066): with the default
 * COMPANY_BANK_IBAN (GB), every SEPA file names the creditor's bank by BIC. New recipients are asked
 * for it; a payment approved to a recipient saved without one is left out of the file, with why,
 * and the desk sends it by its rail, so the customer's money is never stranded.
 */

vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;
let account: PaymentAccount;
let withBic: number, withoutBic: number;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  account = await paymentAccount(t, admin, { EUR: "10000.00" });
  withBic = await addRecipient(t, account, {
    name: "Jörg Schäfer",
    currency: "EUR",
    country: "DE",
    details: { iban: "DE02120300000000202051", bic: "BYLADEM1001" },
  });
  // Saved before the requirements asked for a BIC.
  withoutBic = await addRecipient(t, account, {
    name: "Anna Weber",
    currency: "EUR",
    country: "DE",
    details: { iban: "DE89370400440532013000" },
  });
});

describe("a company bank outside the EEA", () => {
  test("the requirements ask for the BIC of a German EUR recipient, and the server refuses one without it", async () => {
    const res = await account.owner.client.get("account/recipients/requirements?currency=EUR&country=DE");
    expectStatus(res, 200);
    expect(res.json.body.fields.map((f: { key: string; required: boolean }) => [f.key, f.required])).toEqual([
      ["iban", true],
      ["bic", true],
    ]);
    const refused = await account.owner.client.post("account/recipients", {
      name: "Max Braun",
      type: "person",
      currency: "EUR",
      country: "DE",
      details: { iban: "DE89370400440532013000" },
    });
    expectStatus(refused, 422);
    expect(Object.keys(refused.json.fields)).toEqual(["details.bic"]);
    const saved = await account.owner.client.post("account/recipients", {
      name: "Max Braun",
      type: "person",
      currency: "EUR",
      country: "DE",
      details: { iban: "DE89370400440532013000", bic: "COBADEFFXXX" },
    });
    expectStatus(saved, 201);
  });

  test("a payment without a BIC is left out of the SEPA file with why, and the desk submits and completes it", async () => {
    const fine = await paid(account.owner.client, { recipient_id: withBic, amount: "20.00", sell_currency: "EUR" });
    const stranded = await paid(account.owner.client, {
      recipient_id: withoutBic,
      amount: "30.00",
      sell_currency: "EUR",
    });
    const res = await admin.client.post("console/payouts/batches", { scheme: "sepa" });
    expectStatus(res, 201);
    expect(res.json.body.payments.map((p: { id: number }) => p.id)).toEqual([fine.id]);
    expect(res.json.body.left_out).toEqual([{
      payment_id: stranded.id,
      problems: [expect.stringMatching(/BIC is needed .* GB, a SEPA country outside the EEA/), BY_THE_RAIL],
    }]);

    const queue = await admin.client.get("console/payouts?rail=local");
    expectStatus(queue, 200);
    const listed = queue.json.body.items.find((p: { id: number }) => p.id === stranded.id);
    expect(listed.actions).toMatchObject({ submit: true, fail: true });
    expect(listed.actions.note).toMatch(/no BIC/);

    const sent = await admin.client.post(`console/payouts/${stranded.id}/submit`, {});
    expectStatus(sent, 200);
    expect(sent.json.body.payment).toMatchObject({ status: "submitted", rail_reference: `SIM-${stranded.id}` });
    const done = await admin.client.post(`console/payouts/${stranded.id}/complete`, {});
    expectStatus(done, 200);
    expect(done.json.body.payment.status).toBe("completed");
    const [row] = await t.db.select().from(payments).where(eq(payments.id, stranded.id));
    expect(row.batchId).toBe(null);
    // Sent by the rail, it is in no file: the next export finds nothing waiting.
    expectStatus(await admin.client.post("console/payouts/batches", { scheme: "sepa" }), 409);
    await expectLedgerSound(t.db);
  });

  test("a SEPA payment that has its BIC still goes only in a file", async () => {
    const p = await paid(account.owner.client, { recipient_id: withBic, amount: "5.00", sell_currency: "EUR" });
    const res = await admin.client.post(`console/payouts/${p.id}/submit`, {});
    expectStatus(res, 409);
  });
});
