/**
 * An amount that would take a balance beyond what the ledger holds exactly (Number.MAX_SAFE_INTEGER
 * minor units) is a 422 naming the amount, and nothing is written (issue 14, finding 2; decision
 * 024): a receipt used to answer 500. Receipts, their allocation and conversions move balances;
 * quotes, plans' bounds and fee overrides are amounts that are refused past the same bound.
 */
import { asc } from "drizzle-orm";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { ledgerAccounts, ledgerEntries, ledgerTransfers, receipts } from "../../db/schema-money.ts";
import type { AppEnv } from "../../server/env.ts";
import { errorHandlers } from "../../server/http/errors.tsx";
import { BalanceOutOfRange } from "../../server/ledger/ledger.ts";
import { type Admin, type ClientResponse, expectStatus } from "../helpers/client.ts";
import {
  balances,
  expectLedgerSound,
  fund,
  fundedCustomer,
  type MoneyApp,
  moneyApp,
  type OpenCustomer,
  postReceipt,
} from "../helpers/money.ts";

vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

/** The most the ledger holds in one balance: Number.MAX_SAFE_INTEGER minor units, in GBP or EUR. */
const MOST = "90071992547409.91";

let t: MoneyApp;
let admin: Admin;
let ada: OpenCustomer;
beforeAll(async () => {
  // Receipts this large would otherwise wait for a second administrator (decision 026): this file is about booking them.
  ({ t, admin } = await moneyApp({ env: { RECEIPT_APPROVAL_GBP: "1000000000000000000" } }));
  ada = await fundedCustomer(t, admin, "GBP", MOST);
});
afterAll(() => expectLedgerSound(t.db));

/** Every ledger and receipt row: a refused amount must leave all of them as they were. */
async function snapshot() {
  return {
    accounts: await t.db.select().from(ledgerAccounts).orderBy(asc(ledgerAccounts.id)),
    transfers: await t.db.select().from(ledgerTransfers).orderBy(asc(ledgerTransfers.id)),
    entries: await t.db.select().from(ledgerEntries).orderBy(asc(ledgerEntries.id)),
    receipts: await t.db.select().from(receipts).orderBy(asc(receipts.id)),
  };
}

function expectTooLarge(res: ClientResponse, field: string) {
  expectStatus(res, 422);
  expect(res.json.fields?.[field]).toMatch(/too large/);
  expect(res.json.error).toMatch(/too large/);
}

describe("a receipt that would take a balance past the most the ledger holds", () => {
  test("credited to a customer whose balance is at the most: 422 on amount, nothing written", async () => {
    const before = await snapshot();
    const res = await postReceipt(t, admin, { amount: "0.01", currency: "GBP", reference: `Top up ${ada.accountRef}` });
    expectTooLarge(res, "amount");
    expect(res.json.error).toContain("0.01 GBP");
    expect(await snapshot()).toEqual(before);
    expect(await balances(ada.client)).toEqual({ GBP: MOST });
  });

  test("unmatched, when the house's bank account is at the most: 422 on amount, nothing written", async () => {
    const before = await snapshot();
    const res = await postReceipt(t, admin, { amount: "1.00", currency: "GBP", reference: "no reference at all" });
    expectTooLarge(res, "amount");
    expect(await snapshot()).toEqual(before);
  });

  test("an amount of more than the most is refused as it is read", async () => {
    const res = await postReceipt(t, admin, {
      amount: "90071992547409.92",
      currency: "EUR",
      reference: `Top up ${ada.accountRef}`,
    });
    expectTooLarge(res, "amount");
  });
});

describe("a conversion that would take a balance past the most", () => {
  test("is a 422 naming the quote, and moves nothing", async () => {
    const bob = await fundedCustomer(t, admin, "EUR", MOST);
    await fund(t, admin, bob, "USD", "100.00");
    const quote = await bob.client.post("account/conversions/quote", {
      sell_currency: "USD",
      buy_currency: "EUR",
      amount: "10.00",
      fixed: "sell",
    });
    expectStatus(quote, 200);
    const before = await snapshot();
    const res = await bob.client.post("account/conversions", { quote_id: quote.json.body.id });
    expectTooLarge(res, "quote_id");
    expect(await snapshot()).toEqual(before);
    expect(await balances(bob.client)).toEqual({ EUR: MOST, USD: "100.00" });
  });
});

describe("amounts past the most are refused wherever they enter", () => {
  test("a quote whose amount converts to more than the most", async () => {
    const res = await ada.client.get(`quote?sell=GBP&buy=JPY&amount=${MOST}&fixed=sell`);
    expectStatus(res, 422);
    expect(res.json.fields.amount).toMatch(/too large/);
  });

  test("a fee override", async () => {
    const res = await admin.client.put(`console/users/${ada.id}/fees`, {
      override_transfer_fee: true,
      fees: { GBP: { regular: "90071992547409.92" } },
    });
    expectStatus(res, 422);
    expect(res.json.fields["fees.GBP.regular"]).toMatch(/too large/);
  });
});

describe("a movement past the most that no service words", () => {
  test("is still a 422 saying the amount is too large, never a 500", async () => {
    const app = new Hono<AppEnv>();
    app.onError(errorHandlers(() => null).onError);
    app.post("/api/move", () => {
      throw new BalanceOutOfRange({ id: 1, accountId: 2, currency: "EUR", purpose: "balance" }, 150);
    });
    const res = await app.request("/api/move", { method: "POST" });
    expect(res.status).toBe(422);
    expect((await res.json()).error).toBe(
      "The amount 1.50 EUR is too large: it would take a balance beyond the most the ledger holds, 90071992547409.91 EUR.",
    );
  });
});
