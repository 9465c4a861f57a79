import { beforeAll, describe, expect, test, vi } from "vitest";
import { creditReceipt } from "../../server/ledger/movements.ts";
import { type Admin, expectStatus } from "../helpers/client.ts";
import { type MoneyApp, moneyApp, type OpenCustomer, openCustomer } from "../helpers/money.ts";
import {
  addMember,
  addRecipient,
  type Member,
  paid,
  type PaymentAccount,
  paymentAccount,
  setRule,
} from "../helpers/payments.ts";

/**
 * The transactions screens (issue 10, parts 1 and 4) are rendered on the server with what they
 * show: the filtered list with its pages and its CSV link, a movement's page for its account only,
 * and the dashboard's payments waiting for the user's approval with the way to every transaction.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;
let account: PaymentAccount;
let payer: Member;
let approver: Member;
let viewer: Member;
let stranger: OpenCustomer;
let waiting: { id: number };
let conversion: number;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  account = await paymentAccount(t, admin, { GBP: "1000.00", EUR: "300.00" });
  payer = await addMember(t, account, "payer");
  approver = await addMember(t, account, "approver");
  viewer = await addMember(t, account, "viewer");
  const recipient = await addRecipient(t, account, { name: "Tom Atkins", currency: "GBP", country: "GB" });
  await setRule(account.owner.client, { mode: "all" });
  waiting = await paid(payer.client, { recipient_id: recipient, amount: "25.00", sell_currency: "GBP" });
  const quote = await account.owner.client.post("account/conversions/quote", {
    sell_currency: "EUR",
    buy_currency: "GBP",
    amount: "100.00",
    fixed: "sell",
  });
  const converted = await account.owner.client.post("account/conversions", { quote_id: quote.json.body.id });
  expectStatus(converted, 201);
  conversion = converted.json.body.transfer_id;
  stranger = await openCustomer(t);
});

const rowsOf = (html: string) => [...html.matchAll(/data-movement="(\d+)"/g)].map((m) => Number(m[1]));

describe("/account/transactions", () => {
  test("lists the movements newest first, each leading to its page, with a CSV link", async () => {
    const res = await viewer.client.get("/account/transactions");
    expectStatus(res, 200);
    expect(res.text).not.toContain("Coming soon");
    const rows = rowsOf(res.text);
    expect(rows).toHaveLength(4);
    expect(rows[0]).toBe(conversion);
    expect(res.text).toContain(`href="/account/transactions/${conversion}"`);
    // The link names the account the page shows (decision 075).
    expect(res.text).toContain(`href="/api/account/transactions.csv?account_ref=${account.owner.accountRef}"`);
  });

  test("keeps the filters in the address, in the form, in the CSV link and in the next page's link", async () => {
    const res = await viewer.client.get("/account/transactions?currency=EUR&kind=&q=");
    expectStatus(res, 200);
    expect(rowsOf(res.text)).toHaveLength(2);
    expect(res.text).toContain(
      `href="/api/account/transactions.csv?currency=EUR&amp;account_ref=${account.owner.accountRef}"`,
    );
    expect(res.text).toMatch(/<option value="EUR" selected="">EUR<\/option>/);
    const all = await viewer.client.get("/account/transactions");
    // 50 a page: four movements need no next page.
    expect(all.text).not.toContain("Older movements");
  });

  test("says that the days of From and To are UTC's, as the list's times are", async () => {
    const res = await viewer.client.get("/account/transactions?from=2026-11-30");
    expectStatus(res, 200);
    expect(res.text).toContain('<p id="period-days"');
    expect(res.text).toContain("From and To are days in UTC, both included.");
    expect(res.text.match(/aria-describedby="period-days"/g)).toHaveLength(2);
  });

  test("says which filter cannot be used instead of listing", async () => {
    const res = await viewer.client.get("/account/transactions?currency=pounds");
    expectStatus(res, 200);
    expect(res.text).toContain("currency is a currency code such as GBP.");
    expect(rowsOf(res.text)).toEqual([]);
    expect(res.text).not.toContain("Download CSV");
  });

  test("a date that is not one is explained once", async () => {
    const res = await viewer.client.get("/account/transactions?from=garbage");
    expectStatus(res, 200);
    expect(res.text.split("from is a date written YYYY-MM-DD.")).toHaveLength(2);
    expect(rowsOf(res.text)).toEqual([]);
  });
});

describe("/account/transactions/{id}", () => {
  test("a conversion's page shows its full cost", async () => {
    const res = await viewer.client.get(`/account/transactions/${conversion}`);
    expectStatus(res, 200);
    for (
      const words of [
        "Full cost",
        "Mid-market rate",
        "Our rate",
        "Our markup on the rate",
        "Fee",
        "Sold",
        "100.00 EUR",
        "1 EUR = ",
      ]
    ) {
      expect(res.text).toContain(words);
    }
  });

  test("a payment's hold shows the payment's timeline and leads to the payment", async () => {
    const list = await viewer.client.get("account/transactions?kind=payment_hold");
    const [hold] = list.json.body.items;
    const res = await viewer.client.get(`/account/transactions/${hold.id}`);
    expectStatus(res, 200);
    expect(res.text).toContain("The payment&#x27;s timeline");
    expect(res.text).toContain(`href="/account/pendingpayments/${waiting.id}"`);
  });

  test("another account's movement, or one that does not exist, is not found", async () => {
    expectStatus(await stranger.client.get(`/account/transactions/${conversion}`), 404);
    expectStatus(await viewer.client.get("/account/transactions/999999"), 404);
    expectStatus(await viewer.client.get(`/account/transactions/0${conversion}`), 404);
  });
});

describe("/account (the dashboard)", () => {
  test("an approver sees the payments waiting for their approval, linking to each", async () => {
    const res = await approver.client.get("/account");
    expectStatus(res, 200);
    expect(res.text).toContain("Payments waiting for your approval");
    expect(res.text).toContain('data-approvals="1"');
    expect(res.text).toContain(`href="/account/pendingpayments/${waiting.id}"`);
  });

  test("the payer who prepared it has nothing to approve; a viewer has no such card", async () => {
    // A payer may not approve at all: no card.
    const forPayer = await payer.client.get("/account");
    expect(forPayer.text).not.toContain("Payments waiting for your approval");
    const forOwner = await account.owner.client.get("/account");
    expect(forOwner.text).toContain('data-approvals="1"');
    const forViewer = await viewer.client.get("/account");
    expect(forViewer.text).not.toContain("Payments waiting for your approval");
  });

  test("a personal account, where approval rules do not apply, has no approval cards, and still a way to pay", async () => {
    const res = await stranger.client.get("/account");
    expectStatus(res, 200);
    expect(res.text).toContain(`data-current-account="${stranger.accountRef}"`);
    expect(res.text).not.toContain("Payments waiting for your approval");
    expect(res.text).not.toContain("Waiting for approval");
    const main = res.text.slice(res.text.indexOf("<main"), res.text.indexOf("</main>"));
    expect(main).not.toContain('href="/account/pendingpayments"');
    expect(main).toContain('href="/account/payment"');
  });

  test("the latest movements lead to every transaction", async () => {
    const res = await viewer.client.get("/account");
    expect(res.text).toContain('href="/account/transactions"');
    expect(res.text).toContain("All transactions");
  });
});

describe("/account/transactions, page after page", () => {
  test("'Older movements' leads to the next page of older movements, none repeated, none left out, with the filters kept", async () => {
    for (let i = 0; i < 50; i++) {
      await creditReceipt(t.db, {
        accountId: account.accountId,
        currency: "EUR",
        amount: 100 + i,
        reference: `page-${i}`,
      });
    }
    const every = (await viewer.client.get("account/transactions?limit=100&currency=EUR")).json.body.items
      .map((m: { id: number }) => m.id);
    expect(every.length).toBe(52);
    const first = await viewer.client.get("/account/transactions?currency=EUR");
    const more = /<a class="[^"]*" rel="next" href="([^"]+)"/.exec(first.text);
    expect(more, "an 'Older movements' link").not.toBeNull();
    // It replaces the page with the next one, and says so: not "Load more", which would add rows.
    expect(first.text).toContain(">Older movements</a>");
    const next = more![1].replaceAll("&amp;", "&");
    expect(next).toMatch(/^\/account\/transactions\?currency=EUR&cursor=/);
    const second = await viewer.client.get(next);
    expectStatus(second, 200);
    expect(second.text).not.toContain('rel="next"');
    expect(second.text).toContain('href="/account/transactions?currency=EUR"');
    expect([...rowsOf(first.text), ...rowsOf(second.text)]).toEqual(every);
  });
});

describe("a payment that failed after it was sent", () => {
  test("its refund's page says the money is back, and the cost is what it would have been", async () => {
    const recipient = await addRecipient(t, account, { name: "Rita Refund", currency: "GBP", country: "GB" });
    const made = await paid(payer.client, { recipient_id: recipient, amount: "30.00", sell_currency: "GBP" });
    expectStatus(await approver.client.put(`account/pendingpayments/update?id=${made.id}`, {}), 200);
    expectStatus(await admin.client.post(`console/payouts/${made.id}/submit`, {}), 200);
    expectStatus(await admin.client.post(`console/payouts/${made.id}/fail`, { reason: "Account closed" }), 200);
    const list = await viewer.client.get("account/transactions?kind=refund");
    const refund = list.json.body.items.find((m: { payment_id: number }) => m.payment_id === made.id);
    const res = await viewer.client.get(`/account/transactions/${refund.id}`);
    expectStatus(res, 200);
    const text = res.text.replaceAll("<!-- -->", "");
    expect(text).toContain("The payment failed after it was sent and was refunded: 30.00 GBP is back in your balance.");
    expect(text).toContain("Would have been debited");
    expect(text).toContain("The recipient would have got");
    expect(text).not.toContain("Debited from your balance");
    expect(text).not.toContain("The recipient gets");
  });
});
