import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { type Admin, expectStatus } from "../helpers/client.ts";
import { fund, type MoneyApp, moneyApp, type OpenCustomer, openCustomer, postReceipt } from "../helpers/money.ts";
import { movementPage } from "../../server/transactions/movements.ts";
import {
  accountIdOf,
  addMember,
  addRecipient,
  cancel,
  paid,
  type PaymentAccount,
  paymentAccount,
} from "../helpers/payments.ts";

/**
 * Transactions through the calls (issue 10, part 1; decision 036): every movement of the current
 * account newest first, each filter keeping only what it names, a cursor that neither repeats nor
 * skips a movement while new ones arrive, another account's movement a 404, a bad filter a 422
 * naming it, the full cost of a conversion and a payment's timeline, and the CSV the same list.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 180_000 });

let t: MoneyApp;
let admin: Admin;
let account: PaymentAccount;
let owner: OpenCustomer;
let stranger: OpenCustomer;
let conversionId: number;
let paymentId: number;

interface Item {
  id: number;
  kind: string;
  status: string;
  currency: string;
  amount: string;
  held: string;
  counter_currency: string | null;
  counter_amount: string | null;
  fee: string | null;
  reference: string | null;
  counterparty: string | null;
  payment_id: number | null;
  created_at: string;
}

async function list(query: string, client = owner.client): Promise<{ items: Item[]; next_cursor: string | null }> {
  const res = await client.get(`account/transactions${query ? `?${query}` : ""}`);
  expectStatus(res, 200);
  return res.json.body;
}

/** Every movement the filters keep, page after page. */
async function all(query: string, limit = 100): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: Item[]; next_cursor: string | null } = await list(
      [query, `limit=${limit}`, cursor ? `cursor=${cursor}` : ""].filter(Boolean).join("&"),
    );
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return items;
}

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  account = await paymentAccount(t, admin, { GBP: "1000.00" });
  owner = account.owner;
  const payer = await postReceipt(t, admin, {
    amount: "250.00",
    currency: "EUR",
    reference: `Rent ${owner.accountRef}`,
    payer_name: 'Dupont, "Jean" & Fils',
  });
  expectStatus(payer, 201);
  const quote = await owner.client.post("account/conversions/quote", {
    sell_currency: "GBP",
    buy_currency: "EUR",
    amount: "100.00",
    fixed: "sell",
  });
  expectStatus(quote, 200);
  const converted = await owner.client.post("account/conversions", { quote_id: quote.json.body.id });
  expectStatus(converted, 201);
  conversionId = converted.json.body.transfer_id;
  const recipient = await addRecipient(t, account, { name: "Marie Curie", currency: "EUR", country: "FR" });
  const payment = await paid(
    owner.client,
    { recipient_id: recipient, amount: "50.00", sell_currency: "GBP" },
    "Lab rent",
  );
  paymentId = payment.id;
  stranger = await openCustomer(t);
  await fund(t, admin, stranger, "GBP", "75.00");
});

describe("GET account/transactions", () => {
  test("lists every movement of the account, newest first, and none of another account's", async () => {
    const { items, next_cursor } = await list("");
    expect(next_cursor).toBeNull();
    expect(items.map((m) => m.kind)).toEqual(["payment_hold", "conversion", "receipt", "receipt"]);
    const [hold, conversion, eur, gbp] = items;
    expect(hold).toMatchObject({
      currency: "GBP",
      status: "approved",
      reference: "Lab rent",
      counterparty: "Marie Curie",
    });
    expect(hold.amount.startsWith("-")).toBe(true);
    expect(hold.held).toBe(hold.amount.slice(1));
    expect(conversion).toMatchObject({ currency: "GBP", amount: "-100.00", held: "0.00", counter_currency: "EUR" });
    expect(conversion.fee).toMatch(/^\d+\.\d\d$/);
    expect(eur).toMatchObject({
      currency: "EUR",
      amount: "250.00",
      counterparty: 'Dupont, "Jean" & Fils',
      status: "completed",
    });
    expect(gbp).toMatchObject({ currency: "GBP", amount: "1000.00" });
    const times = items.map((m) => m.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    const theirs = await list("", stranger.client);
    expect(theirs.items.map((m) => [m.kind, m.amount])).toEqual([["receipt", "75.00"]]);
  });

  test("each filter keeps only what it names", async () => {
    expect((await list("currency=EUR")).items.map((m) => m.kind)).toEqual(["conversion", "receipt"]);
    expect((await list("currency=eur")).items.map((m) => m.kind)).toEqual(["conversion", "receipt"]);
    expect((await list("kind=conversion")).items.map((m) => m.id)).toEqual([conversionId]);
    expect((await list("kind=payment_hold&status=approved")).items.map((m) => m.payment_id)).toEqual([paymentId]);
    expect((await list("status=completed")).items.map((m) => m.kind)).toEqual(["conversion", "receipt", "receipt"]);
    expect((await list("q=marie")).items.map((m) => m.kind)).toEqual(["payment_hold"]);
    expect((await list("q=lab%20rent")).items.map((m) => m.kind)).toEqual(["payment_hold"]);
    expect((await list("q=dupont")).items.map((m) => m.currency)).toEqual(["EUR"]);
    expect((await list("q=nobody%20at%20all")).items).toEqual([]);
    // LIKE's wildcards are taken literally.
    expect((await list("q=%25")).items).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect((await list(`from=${today}&to=${today}`)).items).toHaveLength(4);
    expect((await list(`to=${yesterday}`)).items).toEqual([]);
    expect((await list("currency=USD")).items).toEqual([]);
  });

  test("the cursor neither repeats nor skips a movement while new ones arrive between pages", async () => {
    const before = await all("");
    const first = await list("limit=2");
    expect(first.items.map((m) => m.id)).toEqual(before.slice(0, 2).map((m) => m.id));
    expect(first.next_cursor).toEqual(expect.any(String));
    // Money arrives while the customer reads the first page.
    await fund(t, admin, owner, "GBP", "5.00");
    await fund(t, admin, owner, "EUR", "6.00");
    const second = await list(`limit=2&cursor=${first.next_cursor}`);
    expect(second.items.map((m) => m.id)).toEqual(before.slice(2, 4).map((m) => m.id));
    expect(second.next_cursor).toBeNull();
    // The new movements lead the list from its first page.
    const now = await list("limit=2");
    expect(now.items.map((m) => m.amount)).toEqual(["6.00", "5.00"]);
  });

  test("a viewer of the account sees its movements", async () => {
    const viewer = await addMember(t, account, "viewer");
    const mine = await all("");
    expect((await list("limit=100", viewer.client)).items.map((m) => m.id)).toEqual(mine.map((m) => m.id));
  });

  test.each([
    ["currency=pounds", "currency"],
    // A code's shape, but no currency we support: not an empty list that says nothing moved in it.
    ["currency=XXX", "currency"],
    ["kind=gift", "kind"],
    ["status=lost", "status"],
    ["from=2026-13-01", "from"],
    ["to=2026-02-30", "to"],
    ["from=yesterday", "from"],
    ["cursor=page-two", "cursor"],
    ["limit=0", "limit"],
    ["limit=101", "limit"],
    [`q=${"x".repeat(71)}`, "q"],
    ["from=2026-05-02&to=2026-05-01", "to"],
  ])("%s is refused with 422 naming %s", async (query, field) => {
    for (const path of ["account/transactions", "account/transactions.csv"]) {
      if (path.endsWith(".csv") && /^(cursor|limit)=/.test(query)) continue;
      const res = await owner.client.get(`${path}?${query}`);
      expectStatus(res, 422);
      expect(Object.keys(res.json.fields ?? {}), res.text).toEqual([field]);
    }
  });
});

test.each(["limit=0", "limit=101", "limit=abc"])("%s is refused in the words of its rule", async (query) => {
  const res = await owner.client.get(`account/transactions?${query}`);
  expectStatus(res, 422);
  expect(res.json.fields).toEqual({ limit: "limit is a whole number from 1 to 100." });
});

describe("GET account/transactions/{id}", () => {
  test("a conversion's detail has its full cost: mid rate, our rate, markup and fee", async () => {
    const res = await owner.client.get(`account/transactions/${conversionId}`);
    expectStatus(res, 200);
    const body = res.json.body;
    expect(body).toMatchObject({ id: conversionId, kind: "conversion", payment: null, receipt: null });
    expect(body.cost).toMatchObject({
      sell_currency: "GBP",
      sell_amount: "100.00",
      buy_currency: "EUR",
      fee_currency: "GBP",
    });
    expect(body.cost.mid_rate).toMatch(/^\d+\.\d+$/);
    expect(body.cost.rate).toMatch(/^\d+\.\d+$/);
    expect(Number(body.cost.rate)).toBeLessThanOrEqual(Number(body.cost.mid_rate));
    expect(Number(body.cost.markup)).toBeGreaterThan(0);
    expect(body.cost.fee).toBe(body.fee);
  });

  test("a payment's movement has the payment's cost and timeline, and its release after a cancel", async () => {
    const [hold] = (await list("kind=payment_hold")).items;
    const res = await owner.client.get(`account/transactions/${hold.id}`);
    expectStatus(res, 200);
    expect(res.json.body.payment).toMatchObject({ id: paymentId, reference: "Lab rent" });
    expect(res.json.body.payment.events.map((e: { event: string }) => e.event)).toContain("created");
    expect(res.json.body.cost).toMatchObject({ sell_currency: "GBP", buy_currency: "EUR" });
    expect(res.json.body.cost.markup).toEqual(expect.any(String));
    expectStatus(await cancel(owner.client, paymentId), 200);
    const released = (await list("kind=payment_release")).items;
    expect(released.map((m) => [m.payment_id, m.amount, m.status])).toEqual([[paymentId, hold.held, "cancelled"]]);
    const after = await owner.client.get(`account/transactions/${released[0].id}`);
    expect(after.json.body.payment.events.map((e: { event: string }) => e.event)).toContain("cancelled");
  });

  test("a receipt's detail names its payer; another account's movement is 404, a non-canonical id 422", async () => {
    const [eur] = (await list("q=dupont")).items;
    const res = await owner.client.get(`account/transactions/${eur.id}`);
    expectStatus(res, 200);
    expect(res.json.body.receipt).toMatchObject({ payer_name: 'Dupont, "Jean" & Fils' });
    const [theirs] = (await list("", stranger.client)).items;
    expectStatus(await owner.client.get(`account/transactions/${theirs.id}`), 404);
    expectStatus(await stranger.client.get(`account/transactions/${conversionId}`), 404);
    expectStatus(await owner.client.get("account/transactions/999999"), 404);
    expectStatus(await owner.client.get(`account/transactions/0${conversionId}`), 422);
  });
});

describe("GET account/transactions.csv", () => {
  test("the CSV, parsed by a CSV library, is the list with the same filters", async () => {
    for (const query of ["", "currency=EUR", "q=dupont", "kind=receipt"]) {
      const res = await owner.client.get(`account/transactions.csv${query ? `?${query}` : ""}`);
      expectStatus(res, 200);
      expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
      expect(res.headers.get("content-disposition")).toMatch(/attachment; filename="transactions-P\d+\.csv"/);
      const rows: Record<string, string>[] = parse(res.text, { columns: true });
      const items = await all(query);
      expect(rows.map((r) => Number(r.id))).toEqual(items.map((m) => m.id));
      expect(rows.map((r) => [r.kind, r.currency, r.amount, r.held, r.counterparty])).toEqual(
        items.map((m) => [m.kind, m.currency, m.amount, m.held, m.counterparty ?? ""]),
      );
    }
  });

  test("an empty list is the header alone; a name a spreadsheet would run is written as text", async () => {
    const empty = await owner.client.get("account/transactions.csv?currency=JPY");
    expectStatus(empty, 200);
    expect(parse(empty.text)).toEqual([expect.arrayContaining(["date", "id", "kind", "amount", "counterparty"])]);
    await postReceipt(t, admin, {
      amount: "1.00",
      currency: "GBP",
      reference: `${owner.accountRef}`,
      payer_name: "=HYPERLINK(1)",
    });
    const res = await owner.client.get("account/transactions.csv?q=HYPERLINK");
    const rows: Record<string, string>[] = parse(res.text, { columns: true });
    expect(rows.map((r) => r.counterparty)).toEqual(["'=HYPERLINK(1)"]);
  });
});

describe("a receipt that matched no account at first", () => {
  test("once allocated it is money received on the account, found by its payer", async () => {
    const recorded = await postReceipt(t, admin, {
      amount: "12.34",
      currency: "GBP",
      reference: "no reference we know",
      payer_name: "Babbage Analytical Engines",
    });
    expectStatus(recorded, 201);
    expect(recorded.json.body.status).toBe("unmatched");
    expect((await list("q=babbage")).items).toEqual([]);
    const allocated = await admin.client.post(`console/receipts/${recorded.json.body.id}/allocate`, {
      account_ref: owner.accountRef,
    });
    expectStatus(allocated, 200);
    const found = (await list("q=babbage")).items;
    expect(found.map((m) => [m.kind, m.amount, m.currency, m.counterparty])).toEqual([
      ["receipt", "12.34", "GBP", "Babbage Analytical Engines"],
    ]);
    const detail = await owner.client.get(`account/transactions/${found[0].id}`);
    expect(detail.json.body.receipt).toMatchObject({ payer_name: "Babbage Analytical Engines" });
  });
});

describe("a text search", () => {
  test("finds the same movements whether the newest entries fill the page or the matches are found first", async () => {
    const accountId = await accountIdOf(t.db, owner.id);
    for (const q of ["a", "dupont", "lab", "babbage", "P", "nothing like it", "%"]) {
      for (const limit of [1, 2, 50]) {
        const read = (window: number) => movementPage(t.db, accountId, { q }, null, limit, window);
        // A window of one entry never holds a page: the search goes the other way.
        expect(await read(1), `q=${q} limit=${limit}`).toEqual(await read(2000));
      }
    }
  });
});

describe("a payment that failed after it was sent", () => {
  test("its fee reads as charged on the payment and as given back on the refund: the CSV's fees add up to nothing", async () => {
    const recipient = await addRecipient(t, account, { name: "Pierre Curie", currency: "GBP", country: "GB" });
    const payment = await paid(
      owner.client,
      { recipient_id: recipient, amount: "40.00", sell_currency: "GBP" },
      "Deposit",
    );
    expect(Number(payment.fee)).toBeGreaterThan(0);
    expectStatus(await admin.client.post(`console/payouts/${payment.id}/submit`, {}), 200);
    expectStatus(await admin.client.post(`console/payouts/${payment.id}/fail`, { reason: "Account closed" }), 200);
    const steps = (await list("q=deposit")).items;
    expect(steps.map((m) => [m.kind, m.fee])).toEqual([
      ["refund", `-${payment.fee}`],
      ["payment", payment.fee],
      ["payment_hold", null],
    ]);
    const res = await owner.client.get("account/transactions.csv?q=deposit");
    const rows: Record<string, string>[] = parse(res.text, { columns: true });
    expect(rows.map((r) => r.fee)).toEqual([`-${payment.fee}`, payment.fee, ""]);
    // What the payment cost: nothing, and the amounts say so too.
    expect(rows.reduce((sum, r) => sum + Math.round(Number(r.fee || "0") * 100), 0)).toBe(0);
    expect(rows.reduce((sum, r) => sum + Math.round((Number(r.amount) + Number(r.held)) * 100), 0)).toBe(0);
  });
});
