import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { type Admin, expectStatus } from "../helpers/client.ts";
import { dyingInstance } from "../helpers/dying-instance.ts";
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
 * Idempotency-Key on the calls that move money, where it matters most (issue 14, findings 5 and
 * 7): a retry must learn what happened to its request even when the process died between the
 * money moving and the answer being stored, and a key sent by an administrator for one customer
 * must never answer for another.
 */

vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

let t: MoneyApp;
let admin: Admin;
let ada: OpenCustomer;
let bob: OpenCustomer;
beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  ada = await fundedCustomer(t, admin, "GBP", "1000.00");
  bob = await fundedCustomer(t, admin, "GBP", "1000.00");
});
afterAll(() => expectLedgerSound(t.db));
afterEach(() => {
  vi.restoreAllMocks();
});

const GBP_EUR = { sell_currency: "GBP", buy_currency: "EUR", amount: "100.00", fixed: "sell" };

async function holdQuote(customer: OpenCustomer) {
  const res = await customer.client.post("account/conversions/quote", GBP_EUR);
  expectStatus(res, 200);
  return res.json.body as { id: string; buy_amount: string };
}

const conversionsOf = async (quoteId: string) =>
  (await t.db.$client.execute({ sql: "SELECT * FROM conversions WHERE quote_id = ?", args: [quoteId] })).rows;

describe("a retry after the process died between the conversion's commit and its answer", () => {
  test("gets the conversion's 201, the same every time, and the money moved once", async () => {
    const before = await balances(ada.client);
    const quote = await holdQuote(ada);
    const key = `convert-${crypto.randomUUID()}`;
    const dying = await dyingInstance(t.db, {
      now: t.clock.now,
      diesAfter: async () => (await conversionsOf(quote.id)).length > 0,
    });
    try {
      // The first attempt goes to the instance that dies as soon as the conversion is on disk:
      // its client never hears back.
      void ada.client.to(dying.app).post("account/conversions", { quote_id: quote.id }, { "Idempotency-Key": key });
      await dying.died;
      const [stored] = await conversionsOf(quote.id);
      expect(stored, "the conversion was committed before the crash").toBeDefined();

      // The retry reaches the instance that is still up (the restarted server).
      const retry = await ada.client.post("account/conversions", { quote_id: quote.id }, { "Idempotency-Key": key });
      expect(retry.status, retry.text).toBe(201);
      expect(retry.json.body).toMatchObject({
        id: stored.id,
        quote_id: quote.id,
        sell_amount: "100.00",
        buy_amount: quote.buy_amount,
        transfer_id: stored.transfer_id,
      });

      // Once the first attempt's claim on the key has run out (60 s), still the same answer.
      const later = Date.now() + 61_000;
      vi.spyOn(Date, "now").mockReturnValue(later);
      const again = await ada.client.post("account/conversions", { quote_id: quote.id }, { "Idempotency-Key": key });
      expect(again.status, again.text).toBe(201);
      expect(again.text).toBe(retry.text);
    } finally {
      dying.close();
    }

    expect(await conversionsOf(quote.id)).toHaveLength(1);
    const after = await balances(ada.client);
    expect(after.GBP).toBe(decimalOf(minorOf(before.GBP, 2) - 100_00n, 2));
    expect(after.EUR).toBe(quote.buy_amount);
  });

  test("a crash before the commit leaves nothing, not even a claim: the retry converts at once, once", async () => {
    const quote = await holdQuote(bob);
    const key = `convert-${crypto.randomUUID()}`;
    // Dies at the first COMMIT of the request, before it runs: the key is claimed in the
    // conversion's own transaction (decision 053), so that COMMIT is the conversion's.
    let sent = false;
    const dying = await dyingInstance(t.db, {
      now: t.clock.now,
      diesAfter: () => Promise.resolve(sent),
      diesBeforeCommit: true,
    });
    sent = true;
    void bob.client.to(dying.app).post("account/conversions", { quote_id: quote.id }, { "Idempotency-Key": key });
    await dying.died;
    // The process is gone: its open transaction goes with it.
    await dying.close();
    expect(await conversionsOf(quote.id)).toHaveLength(0);
    const keys = await t.db.$client.execute({ sql: "SELECT 1 FROM idempotency_keys WHERE key = ?", args: [key] });
    expect(keys.rows, "no claim of the key reached the disk").toHaveLength(0);

    // No claim to wait for: the retry runs now, and its answer is the key's from then on.
    const retry = await bob.client.post("account/conversions", { quote_id: quote.id }, { "Idempotency-Key": key });
    expect(retry.status, retry.text).toBe(201);
    const again = await bob.client.post("account/conversions", { quote_id: quote.id }, { "Idempotency-Key": key });
    expect(again.text).toBe(retry.text);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await conversionsOf(quote.id)).toHaveLength(1);
  });

  test("the key and the conversion reach the disk in one COMMIT, never the key alone", async () => {
    const quote = await holdQuote(bob);
    const key = `convert-${crypto.randomUUID()}`;
    const seen: Array<{ key: boolean; conversion: boolean }> = [];
    const dying = await dyingInstance(t.db, {
      now: t.clock.now,
      diesAfter: async () => {
        const keys = await t.db.$client.execute({ sql: "SELECT 1 FROM idempotency_keys WHERE key = ?", args: [key] });
        seen.push({ key: keys.rows.length > 0, conversion: (await conversionsOf(quote.id)).length > 0 });
        return seen.at(-1)!.conversion;
      },
    });
    try {
      void bob.client.to(dying.app).post("account/conversions", { quote_id: quote.id }, { "Idempotency-Key": key });
      await dying.died;
    } finally {
      dying.close();
    }
    // Every COMMIT of the instance, its start's included: none ever wrote the one without the other.
    expect(seen.filter((commit) => commit.key !== commit.conversion)).toEqual([]);
    expect(seen.at(-1)).toEqual({ key: true, conversion: true });
  });

  test("two attempts with one key at once (a double-click) convert once, and both get the conversion's 201", async () => {
    const before = await balances(bob.client);
    const quote = await holdQuote(bob);
    const key = `convert-${crypto.randomUUID()}`;
    const send = () => bob.client.post("account/conversions", { quote_id: quote.id }, { "Idempotency-Key": key });
    const answers = await Promise.all([send(), send()]);
    expect(answers.map((a) => a.status)).toEqual([201, 201]);
    expect(answers[0].text).toBe(answers[1].text);
    // The one refused by the other's effect says it is the first answer, replayed.
    expect(answers.map((a) => a.headers.get("Idempotent-Replayed")).sort()).toEqual(["true", null].sort());
    const made = answers[0];
    const retry = await send();
    expect([retry.status, retry.text]).toEqual([201, made.text]);
    expect(await conversionsOf(quote.id)).toHaveLength(1);
    expect((await balances(bob.client)).GBP).toBe(decimalOf(minorOf(before.GBP, 2) - 100_00n, 2));
  });

  test("a refusal is the key's answer too: a quote that does not exist, refused, and refused again as a replay", async () => {
    const key = `convert-${crypto.randomUUID()}`;
    const missing = crypto.randomUUID();
    const first = await bob.client.post("account/conversions", { quote_id: missing }, { "Idempotency-Key": key });
    expect(first.status, first.text).toBe(404);
    const again = await bob.client.post("account/conversions", { quote_id: missing }, { "Idempotency-Key": key });
    expect([again.status, again.text, again.headers.get("Idempotent-Replayed")]).toEqual([404, first.text, "true"]);
    const other = await bob.client.post("account/conversions", { quote_id: crypto.randomUUID() }, {
      "Idempotency-Key": key,
    });
    expect(other.status).toBe(422);
  });

  test("without a crash, the stored answer is the one the client got, byte for byte", async () => {
    const quote = await holdQuote(ada);
    const key = `convert-${crypto.randomUUID()}`;
    const first = await ada.client.post("account/conversions", { quote_id: quote.id }, { "Idempotency-Key": key });
    expectStatus(first, 201);
    const { rows } = await t.db.$client.execute({
      sql: "SELECT state, response_status, response_body FROM idempotency_keys WHERE key = ?",
      args: [key],
    });
    expect(rows[0]).toMatchObject({ state: "done", response_status: 201, response_body: first.text });
  });
});

describe("an Idempotency-Key sent by an administrator on behalf of customers", () => {
  afterAll(async () => {
    await admin.client.delete("account/onbehalf");
  });

  test("is scoped to the customer: the same key and body for another customer runs for that customer", async () => {
    const key = `quote-${crypto.randomUUID()}`;
    expectStatus(await admin.client.post("account/onbehalf", { on_behalf_of: ada.id }), 200);
    const forAda = await admin.client.post("account/conversions/quote", GBP_EUR, { "Idempotency-Key": key });
    expectStatus(forAda, 200);

    expectStatus(await admin.client.post("account/onbehalf", { on_behalf_of: bob.id }), 200);
    const forBob = await admin.client.post("account/conversions/quote", GBP_EUR, { "Idempotency-Key": key });
    expectStatus(forBob, 200);
    expect(forBob.headers.get("idempotent-replayed"), "Ada's answer was replayed for Bob").toBeNull();
    expect(forBob.json.body.id).not.toBe(forAda.json.body.id);

    // Bob's quote is Bob's: it converts on his account, and Ada's is not his.
    const bobsBefore = await balances(bob.client);
    expectStatus(await admin.client.post("account/conversions", { quote_id: forBob.json.body.id }), 201);
    expect((await balances(bob.client)).GBP).toBe(decimalOf(minorOf(bobsBefore.GBP, 2) - 100_00n, 2));
    expectStatus(await admin.client.post("account/conversions", { quote_id: forAda.json.body.id }), 404);

    // Back on Ada's behalf, the key still answers with Ada's quote.
    expectStatus(await admin.client.post("account/onbehalf", { on_behalf_of: ada.id }), 200);
    const adaAgain = await admin.client.post("account/conversions/quote", GBP_EUR, { "Idempotency-Key": key });
    expect(adaAgain.headers.get("idempotent-replayed")).toBe("true");
    expect(adaAgain.text).toBe(forAda.text);
  });

  test("is apart from the administrator's own keys and from the customer's", async () => {
    const key = `quote-${crypto.randomUUID()}`;
    expectStatus(await admin.client.post("account/onbehalf", { on_behalf_of: ada.id }), 200);
    const forAda = await admin.client.post("account/conversions/quote", GBP_EUR, { "Idempotency-Key": key });
    expectStatus(forAda, 200);
    const byAda = await ada.client.post("account/conversions/quote", GBP_EUR, { "Idempotency-Key": key });
    expectStatus(byAda, 200);
    expect(byAda.headers.get("idempotent-replayed")).toBeNull();
    expect(byAda.json.body.id).not.toBe(forAda.json.body.id);
  });
});
