import { beforeAll, describe, expect, test, vi } from "vitest";
import type { Database } from "../../db/client.ts";
import { RAIL_UNCONFIRMED } from "../../server/payouts/answer.ts";
import { completePayout, failPayout, submitPayout } from "../../server/payouts/desk.ts";
import { type PayoutRail, RailRefused } from "../../server/payouts/rail.ts";
import type { PaymentRow } from "../../server/payments/answer.ts";
import { RESTRICTED_PAYOUT } from "../../lib/restriction.ts";
import { SimulatedRail } from "../../server/payouts/simulated-rail.ts";
import { type Admin, expectStatus } from "../helpers/client.ts";
import { expectLedgerSound, type MoneyApp, moneyApp } from "../helpers/money.ts";
import { addRecipient, balanceOf, paid, type PaymentAccount, paymentAccount } from "../helpers/payments.ts";

/**
 * Two administrators of the payout desk on one payment at the same moment: one sends it while the
 * other marks it failed or arrived. The payout desk refuses to fail or complete a payment whose
 * rail has not answered (decision 031), and holds back a restricted customer's payment (decision
 * 048); these tests make sure that still holds when the other click, or the restriction, came
 * between the desk reading the payment and its write.
 * (One at a time, and a rail whose answer was lost: payouts-desk.test.ts.)
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;
let account: PaymentAccount;
let uk: number;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  account = await paymentAccount(t, admin, { GBP: "1000.00" });
  uk = await addRecipient(t, account, { name: "Mary Smith", currency: "GBP", country: "GB" });
});

/** A rail that, asked to send a payment, waits until `answer` is called; `asked` resolves when it was asked. */
function railAnsweringLater() {
  const asked = Promise.withResolvers<void>();
  const answered = Promise.withResolvers<string | null>();
  const rail: PayoutRail = {
    name: "test rail",
    async submit(payment: PaymentRow) {
      asked.resolve();
      const refusal = await answered.promise;
      if (refusal !== null) throw new RailRefused([refusal]);
      return { railReference: `TEST-${payment.id}` };
    },
  };
  return { rail, asked: asked.promise, answer: (refusal: string | null) => answered.resolve(refusal) };
}

/**
 * The database as the other administrator's request uses it: it read the payment at once, but its
 * write only gets its turn once `until` resolves (as when it waited for the sender's write).
 */
function writesWaitFor(db: Database, until: Promise<void>): Database {
  return new Proxy(db, {
    get(target, property) {
      if (property === "transaction") {
        return async (...args: Parameters<Database["transaction"]>) => {
          await until;
          return await target.transaction(...args);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const now = () => new Date(t.clock.now());

describe("one administrator sends a payment while another acts on it", () => {
  test("failing it is refused while the rail has it: the customer is not refunded a payment the rail then pays", async () => {
    const payment = await paid(account.owner.client, { recipient_id: uk, amount: "100.00", sell_currency: "GBP" });
    const sending = railAnsweringLater();
    const sent = submitPayout(t.db, sending.rail, { paymentId: payment.id, adminId: admin.id, now: now() });
    const failed = failPayout(writesWaitFor(t.db, sending.asked), {
      paymentId: payment.id,
      adminId: admin.id,
      now: now(),
      reason: "The recipient's bank is closed",
    }).then(() => null, (error: Error) => error);

    const refusal = await failed;
    sending.answer(null);
    const outcome = await sent;

    expect(refusal?.message).toBe(RAIL_UNCONFIRMED);
    expect(outcome.payment).toMatchObject({ status: "submitted", railReference: `TEST-${payment.id}` });
    // The rail pays the recipient: the customer keeps paying for it (the 100.00 sent, fee included).
    expect(await balanceOf(account.owner.client, "GBP")).toEqual({ available: "900.00", held: "0.00" });
    await expectLedgerSound(t.db);
  });

  test("marking it arrived is refused while the rail has it: a payment the rail refuses is failed and refunded", async () => {
    const before = await balanceOf(account.owner.client, "GBP");
    const payment = await paid(account.owner.client, { recipient_id: uk, amount: "50.00", sell_currency: "GBP" });
    const sending = railAnsweringLater();
    const sent = submitPayout(t.db, sending.rail, { paymentId: payment.id, adminId: admin.id, now: now() });
    const completed = completePayout(writesWaitFor(t.db, sending.asked), {
      paymentId: payment.id,
      adminId: admin.id,
      now: now(),
    }).then(() => null, (error: Error) => error);

    const refusal = await completed;
    sending.answer("Account closed");
    const outcome = await sent;

    expect(refusal?.message).toBe(RAIL_UNCONFIRMED);
    expect(outcome).toMatchObject({ payment: { status: "failed" }, refused: "Account closed" });
    expect(await balanceOf(account.owner.client, "GBP")).toEqual(before);
    await expectLedgerSound(t.db);
  });
});

test("a customer restricted while the desk sends their payment is held back, not paid out", async () => {
  const other = await paymentAccount(t, admin, { GBP: "300.00" });
  const theirs = await addRecipient(t, other, { name: "John Smith", currency: "GBP", country: "GB" });
  const payment = await paid(other.owner.client, { recipient_id: theirs, amount: "100.00", sell_currency: "GBP" });
  const restricting = Promise.withResolvers<void>();
  const sent = submitPayout(writesWaitFor(t.db, restricting.promise), new SimulatedRail(), {
    paymentId: payment.id,
    adminId: admin.id,
    now: now(),
  }).then(() => null, (error: Error) => error);
  const restricted = await admin.client.post(`console/users/${other.owner.id}/restrict`, {
    reason: "Unusual activity",
  });
  expectStatus(restricted, 200);
  restricting.resolve();

  expect((await sent)?.message).toBe(RESTRICTED_PAYOUT);
  expect(await balanceOf(other.owner.client, "GBP")).toEqual({ available: "200.00", held: "100.00" });
  await expectLedgerSound(t.db);
});

test("a payment put in a SEPA file while the desk fails it is not refunded: it is in the file the bank pays", async () => {
  const euros = await paymentAccount(t, admin, { EUR: "500.00" });
  const france = await addRecipient(t, euros, {
    name: "Jean Dupont",
    currency: "EUR",
    country: "FR",
    details: { iban: "FR1420041010050500013M02606", bic: "PSSTFRPPXXX" },
  });
  const payment = await paid(euros.owner.client, { recipient_id: france, amount: "100.00", sell_currency: "EUR" });
  const filed = Promise.withResolvers<void>();
  const failed = failPayout(writesWaitFor(t.db, filed.promise), {
    paymentId: payment.id,
    adminId: admin.id,
    now: now(),
    reason: "The customer asked us to stop it",
  }).then(() => null, (error: Error) => error);
  const file = await admin.client.post("console/payouts/batches", { scheme: "sepa" });
  expectStatus(file, 201);
  expect(file.json.body.payments.map((p: { id: number }) => p.id)).toEqual([payment.id]);
  filed.resolve();

  expect((await failed)?.message).toBe(
    `Payment ${payment.id} was sent while this was being asked: nothing was done. Look at it again.`,
  );
  expect(await balanceOf(euros.owner.client, "EUR")).toEqual({ available: "400.00", held: "0.00" });
  await expectLedgerSound(t.db);
});
