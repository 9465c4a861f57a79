import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { attributions, users } from "../../db/schema.ts";
import { rowsOf, run } from "../../db/sql.ts";
import { backfillFunded, FUNDED_BACKFILL } from "../../server/partners/funded.ts";
import { updatePartner } from "../../server/partners/partners.ts";
import { businessOwner, memberWithRole } from "../helpers/account-users.ts";
import { type Admin, completeOnboarding, expectStatus, registerCustomer } from "../helpers/client.ts";
import {
  decimalOf,
  fund,
  minorOf,
  type MoneyApp,
  moneyApp,
  type OpenCustomer,
  openCustomer,
  postReceipt,
} from "../helpers/money.ts";

/**
 * The partner screens at scale (decision 055): "funded" is a column, `users.funded_at`, set in the
 * transaction that credits a receipt to the customer (matched at once or allocated later), copied on
 * their attribution, filled once for a database from before the column; a partner's customers come
 * a page at a time.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
});

/** The customer's funded time and its copy on their attribution, as stored. */
async function fundedOf(id: number) {
  const [user] = await t.db.select({ at: users.fundedAt }).from(users).where(eq(users.id, id));
  const [copy] = await t.db.select({ at: attributions.fundedAt }).from(attributions)
    .where(eq(attributions.userId, id));
  return { user: user.at?.getTime() ?? null, attribution: copy?.at?.getTime() ?? null };
}

/** The time of the ledger transfer of the given kind that credited the customer's account. */
async function creditedAt(customer: OpenCustomer, kind: "receipt" | "allocation"): Promise<number> {
  const [row] = await rowsOf<{ at: number }>(
    t.db,
    `SELECT min(tr.created_at) AS at FROM ledger_transfers tr
       JOIN ledger_entries e ON e.transfer_id = tr.id AND e.amount > 0
       JOIN ledger_accounts la ON la.id = e.ledger_account_id AND la.kind = 'customer'
       JOIN accounts a ON a.id = la.account_id
      WHERE tr.kind = ? AND a.account_ref = ?`,
    [kind, customer.accountRef],
  );
  expect(row.at, `a ${kind} credited ${customer.accountRef}`).not.toBeNull();
  return Number(row.at);
}

describe("a customer is funded", () => {
  test("by a receipt that matched their account at once, from the receipt's time, and on their attribution", async () => {
    const customer = await openCustomer(t);
    expect(await fundedOf(customer.id)).toEqual({ user: null, attribution: null });
    await fund(t, admin, customer, "GBP", "25.00");
    const at = await creditedAt(customer, "receipt");
    expect(await fundedOf(customer.id)).toEqual({ user: at, attribution: at });
    // A second receipt keeps the first time.
    await fund(t, admin, customer, "GBP", "5.00");
    expect((await fundedOf(customer.id)).user).toBe(at);
  });

  test("by a receipt allocated to their account later, not while it waits unmatched", async () => {
    const customer = await openCustomer(t);
    const waiting = await postReceipt(t, admin, {
      amount: "40.00",
      currency: "EUR",
      reference: "no reference we know",
    });
    expectStatus(waiting, 201);
    expect(waiting.json.body.status).toBe("unmatched");
    expect((await fundedOf(customer.id)).user).toBeNull();
    const allocated = await admin.client.post(`console/receipts/${waiting.json.body.id}/allocate`, {
      account_ref: customer.accountRef,
    });
    expectStatus(allocated, 200);
    const at = await creditedAt(customer, "allocation");
    expect(await fundedOf(customer.id)).toEqual({ user: at, attribution: at });
  });

  test("by joining an account that a receipt credited before, from that receipt's time", async () => {
    const owner = await businessOwner(t, admin);
    await fund(t, admin, owner, "GBP", "60.00");
    const at = await creditedAt(owner, "receipt");
    const member = await memberWithRole(t, owner.client, "viewer");
    expect((await fundedOf(member.id)).user).toBe(at);
  });

  test("and the partner screens say so: the attributions count them", async () => {
    const campaign = `figures-${Date.now()}`;
    const attribution = { utm_source: "partner-figures", utm_medium: "test", utm_campaign: campaign };
    const registered = await registerCustomer(t, { attribution });
    expect(registered.id).toBeGreaterThan(0);
    const period = `from=${t.clock.today()}&to=${new Date().toISOString().slice(0, 10)}`;
    const res = await admin.client.get(`console/attributions?${period}`);
    expectStatus(res, 200);
    expect(res.json.body.by_campaign).toContainEqual({ ...attribution, signups: 1, funded: 0 });
  });
});

describe("a database from before the column", () => {
  test("is filled once from the ledger: a second run finds its record and changes nothing", async () => {
    const matched = await openCustomer(t);
    await fund(t, admin, matched, "GBP", "10.00");
    const at = await creditedAt(matched, "receipt");
    const never = await openCustomer(t);
    // As the migration leaves an older database: the column empty, no backfill recorded.
    await run(t.db, "UPDATE users SET funded_at = NULL");
    await run(t.db, "UPDATE attributions SET funded_at = NULL");
    await run(t.db, "DELETE FROM backfills WHERE name = ?", [FUNDED_BACKFILL]);

    const marked = await backfillFunded(t.db);
    expect(marked).toBeGreaterThanOrEqual(1);
    expect(await fundedOf(matched.id)).toEqual({ user: at, attribution: at });
    expect((await fundedOf(never.id)).user).toBeNull();
    const [done] = await rowsOf<{ rows: number }>(t.db, "SELECT rows FROM backfills WHERE name = ?", [FUNDED_BACKFILL]);
    expect(done.rows).toBe(marked);

    // Run again (the next start): done already, so even a customer emptied since stays as they are.
    await run(t.db, "UPDATE users SET funded_at = NULL WHERE id = ?", [matched.id]);
    expect(await backfillFunded(t.db)).toBe(0);
    expect((await fundedOf(matched.id)).user).toBeNull();
    await run(t.db, "UPDATE users SET funded_at = ? WHERE id = ?", [at, matched.id]);
  });
});

describe("a partner's customers", () => {
  let partner: { id: number; code: string };
  const emails: string[] = [];

  beforeAll(async () => {
    const res = await admin.client.post("console/partners", {
      name: `Paging Partner ${Date.now()}`,
      code: `PAGES${Date.now().toString(36).toUpperCase()}`,
      share_percent: "10",
    });
    expectStatus(res, 201);
    partner = res.json.body;
    for (let i = 0; i < 3; i++) {
      const customer = await registerCustomer(t, { referralCode: partner.code });
      emails.unshift(customer.email);
      // Each signs up a minute after the one before: newest first is a known order.
      t.clock.advance(60_000);
    }
  });

  test("come a page at a time, newest first, with the total", async () => {
    const first = await admin.client.get(`console/partners/${partner.id}?per_page=2`);
    expectStatus(first, 200);
    expect(first.json.body.customers).toBe(3);
    expect(first.json.body.customer_list).toMatchObject({ page: 1, per_page: 2, total: 3 });
    expect(first.json.body.customer_list.items.map((c: { email: string }) => c.email)).toEqual(emails.slice(0, 2));
    const second = await admin.client.get(`console/partners/${partner.id}?page=2&per_page=2`);
    expectStatus(second, 200);
    expect(second.json.body.customer_list.items.map((c: { email: string }) => c.email)).toEqual(emails.slice(2));
    const beyond = await admin.client.get(`console/partners/${partner.id}?page=3&per_page=2`);
    expect(beyond.json.body.customer_list.items).toEqual([]);
  });

  test("a page or a page size that is no whole number in range is a 422 naming it", async () => {
    const page = await admin.client.get(`console/partners/${partner.id}?page=0`);
    expectStatus(page, 422);
    expect(Object.keys(page.json.fields)).toEqual(["page"]);
    const size = await admin.client.get(`console/partners/${partner.id}?per_page=101`);
    expectStatus(size, 422);
    expect(Object.keys(size.json.fields)).toEqual(["per_page"]);
  });

  test("the referrals of a period come a page at a time too, each sign-up once", async () => {
    const period = `from=${t.clock.today()}&to=${today()}`;
    const first = await admin.client.get(`console/referrals?${period}&per_page=2`);
    expectStatus(first, 200);
    const { total } = first.json.body.referrals;
    expect(total).toBeGreaterThanOrEqual(3);
    const seen: string[] = [];
    for (let page = 1; page <= Math.ceil(total / 2); page++) {
      const res = await admin.client.get(`console/referrals?${period}&page=${page}&per_page=2`);
      expectStatus(res, 200);
      expect(res.json.body.referrals).toMatchObject({ page, per_page: 2, total });
      seen.push(...res.json.body.referrals.items.map((r: { customer: { email: string } }) => r.customer.email));
    }
    expect(seen.length).toBe(total);
    expect(new Set(seen).size).toBe(total);
    expect(seen.filter((email) => emails.includes(email))).toEqual(emails);
    const bad = await admin.client.get(`console/referrals?${period}&per_page=0`);
    expectStatus(bad, 422);
    expect(Object.keys(bad.json.fields)).toEqual(["per_page"]);
  });

  test("the partner's page shows one page and links to the next", async () => {
    const page = await admin.client.get(`/console/partners/${partner.id}?per_page=2`);
    expect(page.status).toBe(200);
    const main = page.text.slice(page.text.indexOf("<main"), page.text.indexOf("</main>"));
    expect(main).toContain(`data-customer="${emails[0]}"`);
    expect(main).not.toContain(`data-customer="${emails[2]}"`);
    expect(main).toContain("Page 1 of 2");
    expect(main).toContain(`href="/console/partners/${partner.id}?page=2&amp;per_page=2"`);
    const next = await admin.client.get(`/console/partners/${partner.id}?page=2&per_page=2`);
    expect(next.text).toContain(`data-customer="${emails[2]}"`);
  });
});

describe("a commission at the share in force", () => {
  test("each movement counts at the partner's share at its time: a change mid-period splits the period", async () => {
    const code = `SHARES${Date.now().toString(36).toUpperCase()}`;
    const name = `Share History ${Date.now()}`;
    const created = await admin.client.post("console/partners", { name, code, share_percent: "10" });
    expectStatus(created, 201);
    const partner = created.json.body;
    const registered = await registerCustomer(t, { referralCode: code });
    const confirmed = await completeOnboarding(registered);
    const customer: OpenCustomer = { ...registered, accountRef: confirmed.json.body.account_ref };
    await fund(t, admin, customer, "GBP", "1000.00");
    /** A conversion of GBP 250.00 to EUR: what it earned the house (fee and markup), in pence. */
    const convert = async () => {
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
    };
    const before = await convert();
    // The ledger dates movements by the wall clock: the change is made at the wall clock's time too.
    await updatePartner(t.db, partner.id, { name, email: "", code, share_percent: "20" }, admin.id, new Date());
    const after = await convert();

    const res = await admin.client.get(`console/referrals?from=${t.clock.today()}&to=${today()}`);
    expectStatus(res, 200);
    const mine = res.json.body.commissions.filter((c: { partner_id: number }) => c.partner_id === partner.id);
    const at = (income: bigint, bps: bigint) => decimalOf((income * bps + 5000n) / 10000n, 2);
    expect(mine.map((c: { share_bps: number; income: string; commission: string }) => [
      c.share_bps,
      c.income,
      c.commission,
    ])).toEqual([
      [1000, decimalOf(before, 2), at(before, 1000n)],
      [2000, decimalOf(after, 2), at(after, 2000n)],
    ]);
    const [history] = await rowsOf<{ n: number }>(
      t.db,
      "SELECT count(*) AS n FROM partner_shares WHERE partner_id = ?",
      [
        partner.id,
      ],
    );
    expect(history.n).toBe(2);
  });
});

const today = () => new Date().toISOString().slice(0, 10);
