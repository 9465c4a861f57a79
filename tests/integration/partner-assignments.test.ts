import { beforeAll, describe, expect, test, vi } from "vitest";
import { rowsOf, run } from "../../db/sql.ts";
import { ASSIGNMENTS_BACKFILL, backfillAssignments } from "../../server/partners/assignments.ts";
import { setCustomerPartner } from "../../server/partners/partners.ts";
import { type Admin, completeOnboarding, expectStatus, registerCustomer } from "../helpers/client.ts";
import { accountIdOf, addRecipient, paid } from "../helpers/payments.ts";
import {
  decimalOf,
  fund,
  minorOf,
  type MoneyApp,
  moneyApp,
  type OpenCustomer,
  openCustomer,
} from "../helpers/money.ts";

/**
 * A partner earns on the income of a customer while the customer is theirs, and only then
 * (decision 062): each change of a customer's partner is recorded with its time, and each movement
 * of the ledger counts for the partner the customer was with at the movement's time. Assigning a
 * partner to a customer with a history of income, moving them to another partner or taking them
 * off changes nothing already earned; the profit report by partner says the same and adds up to
 * the house's income.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;
// The ledger dates its movements by the wall clock, sign-ups by the test clock (a day in March):
// a period from one to the other holds both. Changes of partner are made at the wall clock's time.
const today = () => new Date().toISOString().slice(0, 10);
const period = () => `from=${t.clock.today()}&to=${today()}`;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
});

let made = 0;
async function createPartner(name: string, share_percent = "10") {
  const code = `MOVE${Date.now().toString(36).toUpperCase()}${++made}`;
  const res = await admin.client.post("console/partners", { name: `${name} ${made}`, code, share_percent });
  expectStatus(res, 201);
  return res.json.body as { id: number; code: string; name: string };
}

/** A conversion of GBP 250.00 to EUR by the customer: what it earned the house (fee and markup), in pence. */
async function convert(customer: OpenCustomer): Promise<bigint> {
  const quoted = await customer.client.post("account/conversions/quote", {
    sell_currency: "GBP",
    buy_currency: "EUR",
    amount: "250.00",
    fixed: "sell",
  });
  expectStatus(quoted, 200);
  const shown = await customer.client.get("quote?sell=GBP&buy=EUR&amount=250.00&fixed=sell");
  expectStatus(await customer.client.post("account/conversions", { quote_id: quoted.json.body.id }), 201);
  return minorOf(quoted.json.body.fee, 2) + minorOf(shown.json.body.markup, 2);
}

interface Commission {
  partner_id: number;
  share_bps: number;
  income: string;
  commission: string;
}

async function commissionsOf(partnerId: number): Promise<Commission[]> {
  const res = await admin.client.get(`console/referrals?${period()}`);
  expectStatus(res, 200);
  return res.json.body.commissions.filter((c: Commission) => c.partner_id === partnerId);
}

/** Resolves once the wall clock has moved past the millisecond it read when called. */
async function nextMillisecond(): Promise<number> {
  const start = Date.now();
  while (Date.now() === start) await new Promise((resolve) => setTimeout(resolve, 1));
  return Date.now();
}

/**
 * Moves a customer to a partner (or none) at a millisecond of its own: a change takes the movements
 * from its time on, that time included (assignments.ts), and a fast machine could otherwise date a
 * conversion and the change that follows it, or the change and the conversion after it, alike.
 */
async function moveCustomer(customerId: number, partnerId: number | null) {
  await setCustomerPartner(t.db, customerId, partnerId, admin.id, new Date(await nextMillisecond()));
  await nextMillisecond();
}

const tenPercent = (income: bigint) => decimalOf((income * 1000n + 5000n) / 10000n, 2);

/** The profit report by partner for the whole history, as rows {partner, currency, markup, fees}. */
async function profitByPartner() {
  const res = await admin.client.get(`console/profit?${period()}&group=month&by=partner`);
  expectStatus(res, 200);
  return res.json.body.rows as { partner: string; currency: string; markup: string; fees: string; total: string }[];
}

describe("a customer with income, assigned to a partner, moved to another, then to none", () => {
  let a: { id: number; name: string };
  let b: { id: number; name: string };
  let customer: OpenCustomer;
  let beforeA = 0n;
  let whileA = 0n;
  let whileB = 0n;
  let afterB = 0n;

  beforeAll(async () => {
    a = await createPartner("Coimbra Introducers");
    b = await createPartner("Braga Introducers");
    customer = await openCustomer(t);
    await fund(t, admin, customer, "GBP", "2000.00");
    beforeA = await convert(customer);
    await moveCustomer(customer.id, a.id);
    whileA = await convert(customer);
    await moveCustomer(customer.id, b.id);
    whileB = await convert(customer);
    await moveCustomer(customer.id, null);
    afterB = await convert(customer);
  });

  test("the first partner earns nothing on the income before the assignment, and keeps what they earned while assigned", async () => {
    expect(beforeA).toBeGreaterThan(0n);
    expect(await commissionsOf(a.id)).toEqual([expect.objectContaining({
      share_bps: 1000,
      currency: "GBP",
      income: decimalOf(whileA, 2),
      commission: tenPercent(whileA),
    })]);
  });

  test("the second partner earns from the move on, and nothing after the customer was taken off", async () => {
    expect(afterB).toBeGreaterThan(0n);
    expect(await commissionsOf(b.id)).toEqual([expect.objectContaining({
      share_bps: 1000,
      currency: "GBP",
      income: decimalOf(whileB, 2),
      commission: tenPercent(whileB),
    })]);
  });

  test("the profit report by partner gives each partner the same income", async () => {
    const rows = await profitByPartner();
    expect(rows.filter((r) => r.partner === a.name)).toEqual([expect.objectContaining({
      currency: "GBP",
      total: decimalOf(whileA, 2),
    })]);
    expect(rows.filter((r) => r.partner === b.name)).toEqual([expect.objectContaining({
      currency: "GBP",
      total: decimalOf(whileB, 2),
    })]);
  });

  test("the customer's console page shows whose they were and from when", async () => {
    const page = await admin.client.get(`/console/users/${customer.id}`);
    expect(page.status).toBe(200);
    const table = page.text.slice(page.text.indexOf('aria-label="Partner history"'));
    const rows = table.slice(0, table.indexOf("</table>")).split("<tr").slice(2);
    expect(rows.map((r) => (r.includes(a.name) ? "A" : r.includes(b.name) ? "B" : "none"))).toEqual([
      "none",
      "B",
      "A",
    ]);
    expect(rows.every((r) => r.includes(admin.email))).toBe(true);
  });
});

describe("the console's change of partner", () => {
  test("is recorded from the time it is made, by the administrator, and choosing the same partner again records nothing", async () => {
    const partner = await createPartner("Porto Desk");
    const customer = await openCustomer(t);
    const history = () =>
      rowsOf<{ partner_id: number | null; starts_at: number; created_by: number }>(
        t.db,
        "SELECT partner_id, starts_at, created_by FROM partner_assignments WHERE user_id = ? ORDER BY id",
        [customer.id],
      );
    expect(await history()).toEqual([]);
    expectStatus(await admin.client.put(`console/users/${customer.id}/partner`, { partner_id: partner.id }), 200);
    expectStatus(await admin.client.put(`console/users/${customer.id}/partner`, { partner_id: partner.id }), 200);
    expect(await history()).toEqual([{ partner_id: partner.id, starts_at: t.clock.now(), created_by: admin.id }]);
    t.clock.advance(60_000);
    expectStatus(await admin.client.put(`console/users/${customer.id}/partner`, { partner_id: null }), 200);
    expect((await history()).map((h) => [h.partner_id, h.starts_at])).toEqual([
      [partner.id, t.clock.now() - 60_000],
      [null, t.clock.now()],
    ]);
  });
});

describe("the profit report by partner over a period spanning moves", () => {
  test("adds up to the house's fee income and to the report by currency, whatever the split", async () => {
    const partner = await createPartner("Aveiro Introducers");
    const customer = await openCustomer(t);
    await fund(t, admin, customer, "GBP", "1000.00");
    await convert(customer);
    await moveCustomer(customer.id, partner.id);
    const theirs = await convert(customer);
    await moveCustomer(customer.id, null);
    await convert(customer);

    const byPartner = await profitByPartner();
    const currencyRes = await admin.client.get(`console/profit?${period()}&group=month&by=currency`);
    expectStatus(currencyRes, 200);
    const byCurrency = currencyRes.json.body.rows as { currency: string; markup: string; fees: string }[];
    // Every movement of the ledger is in the period: the house's fee income is its balance.
    const house = await rowsOf<{ currency: string; balance: number }>(
      t.db,
      "SELECT currency, balance FROM ledger_accounts WHERE kind = 'house' AND purpose = 'fee_income' AND balance <> 0",
    );
    expect(house.length).toBeGreaterThan(0);
    for (const { currency, balance } of house) {
      const sum = (rows: { currency: string; markup: string; fees: string }[], field: "markup" | "fees") =>
        rows.filter((r) => r.currency === currency).reduce((n, r) => n + minorOf(r[field], 2), 0n);
      expect(sum(byPartner, "fees"), `fees in ${currency} by partner`).toBe(BigInt(balance));
      expect(sum(byCurrency, "fees"), `fees in ${currency} by currency`).toBe(BigInt(balance));
      expect(sum(byPartner, "markup"), `markup in ${currency}`).toBe(sum(byCurrency, "markup"));
    }
    expect(byPartner.filter((r) => r.partner === partner.name)).toEqual([expect.objectContaining({
      currency: "GBP",
      total: decimalOf(theirs, 2),
    })]);
  });
});

describe("a customer who registers with a partner's code", () => {
  test("is the partner's from their sign-up, recorded as registered with the code, and the partner earns from then", async () => {
    const partner = await createPartner("Faro Introducers");
    const registered = await registerCustomer(t, { referralCode: partner.code });
    const confirmed = await completeOnboarding(registered);
    const customer: OpenCustomer = { ...registered, accountRef: confirmed.json.body.account_ref };
    const history = await rowsOf<{ partner_id: number; starts_at: number; created_by: number; signed_up: number }>(
      t.db,
      `SELECT pa.partner_id, pa.starts_at, pa.created_by, u.created_at AS signed_up
         FROM partner_assignments pa JOIN users u ON u.id = pa.user_id WHERE pa.user_id = ?`,
      [customer.id],
    );
    expect(history).toEqual([{
      partner_id: partner.id,
      starts_at: history[0]?.signed_up,
      created_by: customer.id,
      signed_up: expect.any(Number),
    }]);
    await fund(t, admin, customer, "GBP", "1000.00");
    const income = await convert(customer);
    expect(await commissionsOf(partner.id)).toEqual([expect.objectContaining({ income: decimalOf(income, 2) })]);
    const page = await admin.client.get(`/console/users/${customer.id}`);
    const table = page.text.slice(page.text.indexOf('aria-label="Partner history"'));
    expect(table.slice(0, table.indexOf("</table>"))).toContain("Registered with the code");
  });
});

describe("a payment refunded after its customer moved to another partner", () => {
  test("is taken back from the partner who earned on it, at their share, not charged to the new one", async () => {
    // Dan registered with ACME's code (10 %), paid 500 USD from GBP, the desk sent it; the
    // administrator moved him to BETA (20 %), then the payout failed and was refunded.
    const acme = await createPartner("ACME Introducers");
    const beta = await createPartner("BETA Introducers", "20");
    const registered = await registerCustomer(t, { referralCode: acme.code });
    const confirmed = await completeOnboarding(registered);
    const dan: OpenCustomer = { ...registered, accountRef: confirmed.json.body.account_ref };
    await fund(t, admin, dan, "GBP", "1000.00");
    const account = { accountId: await accountIdOf(t.db, dan.id), owner: dan, members: [] };
    const recipient = await addRecipient(t, account as never, { currency: "USD", country: "US" });
    const payment = await paid(dan.client, {
      recipient_id: recipient,
      amount: "500.00",
      fixed: "receive",
      sell_currency: "GBP",
    });
    expectStatus(await admin.client.post(`console/payouts/${payment.id}/submit`, {}), 200);
    const [earned] = await commissionsOf(acme.id);
    expect(minorOf(earned.income, 2)).toBeGreaterThan(minorOf(payment.fee, 2));

    await moveCustomer(dan.id, beta.id);
    expectStatus(await admin.client.post(`console/payouts/${payment.id}/fail`, { reason: "Account closed" }), 200);

    // The refund reverses the payout for ACME, at ACME's share: nothing left to either.
    expect(await commissionsOf(acme.id)).toEqual([expect.objectContaining({
      share_bps: 1000,
      currency: "GBP",
      income: "0.00",
      commission: "0.00",
    })]);
    expect(await commissionsOf(beta.id)).toEqual([]);
    const rows = await profitByPartner();
    expect(rows.filter((r) => r.partner === acme.name).map((r) => r.total)).toEqual(["0.00"]);
    expect(rows.filter((r) => r.partner === beta.name)).toEqual([]);
  });
});

describe("a database from before the history", () => {
  test("records each customer's partner from their sign-up once, so a customer never moved earns their partner what they did", async () => {
    const partner = await createPartner("Evora Introducers");
    const registered = await registerCustomer(t, { referralCode: partner.code });
    const confirmed = await completeOnboarding(registered);
    const customer: OpenCustomer = { ...registered, accountRef: confirmed.json.body.account_ref };
    await fund(t, admin, customer, "GBP", "1000.00");
    const income = await convert(customer);
    // As the migration leaves an older database: users.partner_id set, no history, no backfill recorded.
    await run(t.db, "DELETE FROM partner_assignments WHERE user_id = ?", [customer.id]);
    await run(t.db, "DELETE FROM backfills WHERE name = ?", [ASSIGNMENTS_BACKFILL]);
    expect(await commissionsOf(partner.id)).toEqual([]);

    expect(await backfillAssignments(t.db)).toBe(1);
    expect(await backfillAssignments(t.db)).toBe(0);
    const [row] = await rowsOf<{ starts_at: number; created_at: number; created_by: number | null }>(
      t.db,
      `SELECT pa.starts_at, u.created_at, pa.created_by FROM partner_assignments pa JOIN users u ON u.id = pa.user_id
        WHERE pa.user_id = ?`,
      [customer.id],
    );
    expect(row).toEqual({ starts_at: row.created_at, created_at: expect.any(Number), created_by: null });
    expect(await commissionsOf(partner.id)).toEqual([expect.objectContaining({
      income: decimalOf(income, 2),
      commission: tenPercent(income),
    })]);
    const page = await admin.client.get(`/console/users/${customer.id}`);
    expect(page.text).toContain("Recorded from sign-up");
  });

  test("a change to a customer the backfill missed keeps their partner until the change", async () => {
    const first = await createPartner("Sintra Introducers");
    const second = await createPartner("Cascais Introducers");
    const registered = await registerCustomer(t, { referralCode: first.code });
    const confirmed = await completeOnboarding(registered);
    const customer: OpenCustomer = { ...registered, accountRef: confirmed.json.body.account_ref };
    // Set by an instance of the previous release while this one started: no history row.
    await run(t.db, "DELETE FROM partner_assignments WHERE user_id = ?", [customer.id]);
    await fund(t, admin, customer, "GBP", "1000.00");
    const before = await convert(customer);
    await moveCustomer(customer.id, second.id);
    const after = await convert(customer);
    expect(await commissionsOf(first.id)).toEqual([expect.objectContaining({ income: decimalOf(before, 2) })]);
    expect(await commissionsOf(second.id)).toEqual([expect.objectContaining({ income: decimalOf(after, 2) })]);
    const [{ n }] = await rowsOf<{ n: number }>(
      t.db,
      "SELECT count(*) AS n FROM partner_assignments WHERE user_id = ?",
      [customer.id],
    );
    expect(n).toBe(2);
  });
});
