import { and, desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { auditLog, users } from "../../db/schema.ts";
import { partners } from "../../db/schema-partners.ts";
import {
  type Admin,
  completeOnboarding,
  type Customer,
  expectStatus,
  registerCustomer,
  uniqueEmail,
} from "../helpers/client.ts";
import {
  decimalOf,
  fund,
  minorOf,
  type MoneyApp,
  moneyApp,
  type OpenCustomer,
  openCustomer,
} from "../helpers/money.ts";
import { accountIdOf, addRecipient, paid } from "../helpers/payments.ts";

/**
 * Partners, affiliates, referrals and attributions (issue 11 item 6, decision 051): an
 * administrator creates a partner with a referral code and a share in percent (kept as basis
 * points), bad input is a 422 naming the field with nothing changed, a customer who registers with
 * the code is the partner's, the partner's commission for a period is their share of the fee and
 * markup income the ledger holds for their customers, and the attributions count sign-ups and
 * funded accounts by campaign and referring site. Customers get 404 for all of it.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;
// The ledger dates its movements by the wall clock, sign-ups by the test clock (a day in March):
// a period from one to the other holds both.
const today = () => new Date().toISOString().slice(0, 10);
const period = () => `from=${t.clock.today()}&to=${today()}`;

let codes = 0;
/** A referral code no other test uses. */
const newCode = (stem = "PARTNER") => `${stem}${Date.now().toString(36).toUpperCase()}${++codes}`;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
});

async function createPartner(fields: Record<string, unknown> = {}) {
  const res = await admin.client.post("console/partners", {
    name: `Lisbon Introducers ${++codes}`,
    email: "desk@introducers.example",
    code: newCode(),
    share_percent: "12.5",
    ...fields,
  });
  expectStatus(res, 201);
  return res.json.body as { id: number; code: string; name: string; share_bps: number };
}

/** A customer who registered with `code` and opened an account. */
async function referredCustomer(code: string, attribution?: Record<string, string>): Promise<OpenCustomer> {
  const customer = await registerCustomer(t, { referralCode: code, attribution });
  const confirmed = await completeOnboarding(customer);
  return { ...customer, accountRef: confirmed.json.body.account_ref as string };
}

describe("creating and changing a partner", () => {
  test("the share in percent is kept as basis points, the code in capitals, and the creation is audited", async () => {
    const code = newCode("lisbon");
    const res = await admin.client.post("console/partners", {
      name: "Porto Partners",
      email: "Desk@Porto.example",
      code: code.toLowerCase(),
      share_percent: "12.5",
    });
    expectStatus(res, 201);
    expect(res.json.redirect).toBe(`/console/partners/${res.json.body.id}`);
    expect(res.json.body).toMatchObject({
      name: "Porto Partners",
      email: "desk@porto.example",
      code: code.toUpperCase(),
      share_bps: 1250,
      share_percent: "12.50",
      customers: 0,
    });
    const [row] = await t.db.select().from(partners).where(eq(partners.id, res.json.body.id));
    expect(row.shareBps).toBe(1250);
    const [entry] = await t.db.select().from(auditLog).where(eq(auditLog.action, "partner.create"))
      .orderBy(desc(auditLog.id)).limit(1);
    expect(entry).toMatchObject({ actorId: admin.id, before: null });
    expect(entry.after).toMatchObject({ id: res.json.body.id, code: code.toUpperCase(), share_bps: 1250 });
    const listed = await admin.client.get("console/partners");
    expect(listed.json.body.map((p: { id: number }) => p.id)).toContain(res.json.body.id);
  });

  test.each([
    [{ name: "" }, "name"],
    [{ name: "x".repeat(101) }, "name"],
    [{ code: "ab" }, "code"],
    [{ code: "has space" }, "code"],
    [{ share_percent: "100.01" }, "share_percent"],
    [{ share_percent: "12.345" }, "share_percent"],
    [{ share_percent: "-1" }, "share_percent"],
    [{ share_percent: 12 }, "share_percent"],
    [{ email: "not an address" }, "email"],
  ])("%j is refused with a 422 naming %s, and nothing is created", async (fields, field) => {
    const before = (await t.db.select().from(partners)).length;
    const res = await admin.client.post("console/partners", {
      name: "Refused",
      code: newCode(),
      share_percent: "10",
      ...fields,
    });
    expectStatus(res, 422);
    expect(Object.keys(res.json.fields ?? {})).toContain(field);
    expect((await t.db.select().from(partners)).length).toBe(before);
  });

  test("a code another partner has is a 422 on code, when creating and when changing", async () => {
    const first = await createPartner();
    const second = await createPartner();
    const again = await admin.client.post("console/partners", { name: "Copy", code: first.code, share_percent: "5" });
    expectStatus(again, 422);
    expect(again.json.fields.code).toBe("This referral code is another partner's: choose another.");
    const changed = await admin.client.put(`console/partners/${second.id}`, {
      name: "Second",
      code: first.code.toLowerCase(),
      share_percent: "5",
    });
    expectStatus(changed, 422);
    expect(changed.json.fields.code).toBeDefined();
    const [kept] = await t.db.select().from(partners).where(eq(partners.id, second.id));
    expect(kept.code).toBe(second.code);
  });

  test("a name another partner has, case aside, is a 422 on name", async () => {
    const first = await createPartner({ name: "Madeira Partners" });
    const again = await admin.client.post("console/partners", {
      name: "MADEIRA partners",
      code: newCode(),
      share_percent: "5",
    });
    expectStatus(again, 422);
    expect(Object.keys(again.json.fields)).toEqual(["name"]);
    // Its own name is not another's.
    const same = await admin.client.put(`console/partners/${first.id}`, {
      name: "Madeira Partners",
      code: first.code,
      share_percent: "6",
    });
    expectStatus(same, 200);
  });

  test("PUT changes the name, code and share, audited with the values before and after; a bad share is a 422", async () => {
    const partner = await createPartner({ share_percent: "10" });
    const code = newCode("renamed");
    const bad = await admin.client.put(`console/partners/${partner.id}`, {
      name: "Renamed",
      code,
      share_percent: "150",
    });
    expectStatus(bad, 422);
    expect(Object.keys(bad.json.fields)).toEqual(["share_percent"]);
    const res = await admin.client.put(`console/partners/${partner.id}`, {
      name: "Renamed",
      code,
      share_percent: "7.25",
    });
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({
      id: partner.id,
      name: "Renamed",
      code: code.toUpperCase(),
      share_bps: 725,
      email: null,
    });
    const [entry] = await t.db.select().from(auditLog).where(eq(auditLog.action, "partner.update"))
      .orderBy(desc(auditLog.id)).limit(1);
    expect(entry.before).toMatchObject({ id: partner.id, share_bps: 1000, code: partner.code });
    expect(entry.after).toMatchObject({ id: partner.id, share_bps: 725, code: code.toUpperCase(), name: "Renamed" });
  });

  test("an unknown partner is a 404 to read and to change", async () => {
    expectStatus(await admin.client.get("console/partners/999999"), 404);
    const res = await admin.client.put("console/partners/999999", { name: "N", code: newCode(), share_percent: "1" });
    expectStatus(res, 404);
  });
});

describe("a customer who registers with the partner's code", () => {
  let partner: { id: number; code: string; name: string };
  let customer: OpenCustomer;

  beforeAll(async () => {
    partner = await createPartner({ name: "Funchal Referrals" });
    // Typed in lower case, as people do.
    customer = await referredCustomer(partner.code.toLowerCase());
  });

  test("is the partner's (users.partner_id), and the session's affiliate is the code", async () => {
    const [row] = await t.db.select({ partnerId: users.partnerId, referralCode: users.referralCode }).from(users)
      .where(eq(users.id, customer.id));
    expect(row).toEqual({ partnerId: partner.id, referralCode: partner.code });
    const me = await customer.client.get("account/whoami");
    expect(me.json.body.affiliate).toBe(partner.code);
  });

  test("GET console/partners/{id} lists them with their account", async () => {
    const res = await admin.client.get(`console/partners/${partner.id}`);
    expectStatus(res, 200);
    expect(res.json.body.customers).toBe(1);
    expect(res.json.body.customer_list.items).toEqual([expect.objectContaining({
      id: customer.id,
      email: customer.email,
      account_ref: customer.accountRef,
      funded: false,
    })]);
  });

  test("a code that is no partner's is kept as typed, and makes nobody a partner's", async () => {
    const someone = await registerCustomer(t, { referralCode: "NoSuchCode1" });
    const [row] = await t.db.select({ partnerId: users.partnerId, referralCode: users.referralCode }).from(users)
      .where(eq(users.id, someone.id));
    expect(row).toEqual({ partnerId: null, referralCode: "NoSuchCode1" });
  });
});

describe("an administrator sets a customer's partner", () => {
  test("on a customer who registered without the code: the partner lists them, and null takes them off", async () => {
    const partner = await createPartner({ name: "Set By Hand" });
    const customer = await openCustomer(t);
    const res = await admin.client.put(`console/users/${customer.id}/partner`, { partner_id: partner.id });
    expectStatus(res, 200);
    expect(res.json.body).toEqual({ id: customer.id, partner_id: partner.id, partner: "Set By Hand" });
    const listed = await admin.client.get(`console/partners/${partner.id}`);
    expect(listed.json.body.customer_list.items.map((c: { id: number }) => c.id)).toEqual([customer.id]);
    const [entry] = await t.db.select().from(auditLog).where(eq(auditLog.action, "customer.partner"))
      .orderBy(desc(auditLog.id)).limit(1);
    expect(entry).toMatchObject({
      actorId: admin.id,
      subjectId: customer.id,
      before: { partner_id: null, partner: null },
      after: { partner_id: partner.id, partner: "Set By Hand" },
    });
    const page = await admin.client.get(`/console/users/${customer.id}`);
    expect(page.text).toContain('aria-label="The customer&#x27;s partner"');
    expectStatus(await admin.client.put(`console/users/${customer.id}/partner`, { partner_id: null }), 200);
    expect((await admin.client.get(`console/partners/${partner.id}`)).json.body.customer_list.items).toEqual([]);
  });

  test("an unknown partner is a 422 on partner_id; an administrator or an unknown user is a 404", async () => {
    const customer = await openCustomer(t);
    const res = await admin.client.put(`console/users/${customer.id}/partner`, { partner_id: 999999 });
    expectStatus(res, 422);
    expect(Object.keys(res.json.fields)).toEqual(["partner_id"]);
    const bad = await admin.client.put(`console/users/${customer.id}/partner`, { partner_id: "one" });
    expectStatus(bad, 422);
    expect(Object.keys(bad.json.fields)).toEqual(["partner_id"]);
    const [row] = await t.db.select({ partnerId: users.partnerId }).from(users).where(eq(users.id, customer.id));
    expect(row.partnerId).toBeNull();
    expectStatus(await admin.client.put(`console/users/${admin.id}/partner`, { partner_id: null }), 404);
    expectStatus(await admin.client.put("console/users/999999/partner", { partner_id: null }), 404);
  });
});

describe("commissions", () => {
  let partner: { id: number; code: string; name: string; share_bps: number };
  let referred: OpenCustomer;
  /** What the referred customer's conversion and payment earned us, in GBP minor units, as their answers said. */
  let fees = 0n;
  let markup = 0n;

  beforeAll(async () => {
    partner = await createPartner({ name: `Commission Partner ${newCode()}`, share_percent: "33.33" });
    referred = await referredCustomer(partner.code);
    await fund(t, admin, referred, "GBP", "2000.00");
    // A conversion with a known fee and markup.
    const quoted = await referred.client.post("account/conversions/quote", {
      sell_currency: "GBP",
      buy_currency: "EUR",
      amount: "333.33",
      fixed: "sell",
    });
    expectStatus(quoted, 200);
    const shown = await referred.client.get("quote?sell=GBP&buy=EUR&amount=333.33&fixed=sell");
    expectStatus(await referred.client.post("account/conversions", { quote_id: quoted.json.body.id }), 201);
    fees += minorOf(quoted.json.body.fee, 2);
    markup += minorOf(shown.json.body.markup, 2);
    // A payment in GBP to a GBP recipient: a transfer fee, no markup, earned when it is paid out.
    const account = { accountId: await accountIdOf(t.db, referred.id), owner: referred, members: [] };
    const recipient = await addRecipient(t, account as never, { currency: "GBP", country: "GB" });
    const payment = await paid(referred.client, { recipient_id: recipient, amount: "100.00", sell_currency: "GBP" });
    expect(payment.status).toBe("approved");
    expectStatus(await admin.client.post(`console/payouts/${payment.id}/submit`, {}), 200);
    fees += minorOf(payment.fee, 2);
    // Someone else's income is not the partner's.
    const other = await openCustomer(t);
    await fund(t, admin, other, "GBP", "500.00");
    const theirs = await other.client.post("account/conversions/quote", {
      sell_currency: "GBP",
      buy_currency: "EUR",
      amount: "200.00",
      fixed: "sell",
    });
    expectStatus(await other.client.post("account/conversions", { quote_id: theirs.json.body.id }), 201);
  });

  test("are the partner's share of their customers' fee and markup in the period, as the ledger holds them", async () => {
    expect(fees).toBeGreaterThan(0n);
    expect(markup).toBeGreaterThan(0n);
    const res = await admin.client.get(`console/referrals?${period()}`);
    expectStatus(res, 200);
    const mine = res.json.body.commissions.filter((c: { partner_id: number }) => c.partner_id === partner.id);
    const income = fees + markup;
    // 33.33% of the income, rounded half away from zero to the penny.
    const commission = (income * 3333n + 5000n) / 10000n;
    expect(mine).toEqual([{
      partner_id: partner.id,
      partner: partner.name,
      code: partner.code,
      share_bps: 3333,
      currency: "GBP",
      markup: decimalOf(markup, 2),
      fees: decimalOf(fees, 2),
      income: decimalOf(income, 2),
      commission: decimalOf(commission, 2),
    }]);
    // The profit report by partner, which reconciles with the house accounts, says the same.
    const profit = await admin.client.get(`console/profit?from=${today()}&to=${today()}&by=partner&group=day`);
    expect(profit.json.body.rows).toContainEqual(expect.objectContaining({
      partner: partner.name,
      currency: "GBP",
      total: decimalOf(income, 2),
    }));
  });

  test("the referral lists the customer as funded, and a period before it has no commission", async () => {
    const res = await admin.client.get(`console/referrals?${period()}`);
    expect(res.json.body.referrals.items).toContainEqual({
      code: partner.code,
      owner: { kind: "partner", id: partner.id, name: partner.name },
      customer: expect.objectContaining({ id: referred.id, account_ref: referred.accountRef, funded: true }),
      partner: { id: partner.id, name: partner.name },
    });
    const before = await admin.client.get("console/referrals?from=2020-01-01&to=2020-01-31");
    expectStatus(before, 200);
    expect(before.json.body).toEqual({
      from: "2020-01-01",
      to: "2020-01-31",
      referrals: { items: [], page: 1, per_page: 20, total: 0 },
      commissions: [],
    });
  });

  test("the referrals page shows the commission", async () => {
    const res = await admin.client.get(`/console/referrals?${period()}`);
    expect(res.status).toBe(200);
    const main = res.text.slice(res.text.indexOf("<main"), res.text.indexOf("</main>"));
    expect(main).not.toContain("Coming soon");
    const row = main.slice(main.indexOf(`data-commission="${partner.code} GBP"`));
    expect(row.slice(0, row.indexOf("</tr>"))).toContain(
      `>${decimalOf(((fees + markup) * 3333n + 5000n) / 10000n, 2)}<`,
    );
  });

  test("a period that cannot be shown is a 422 naming the field", async () => {
    const res = await admin.client.get("console/referrals?from=2026-02-01&to=2026-01-01");
    expectStatus(res, 422);
    expect(res.json.fields).toEqual({ to: "The date to is before the date from." });
    const bad = await admin.client.get("console/attributions?from=yesterday");
    expectStatus(bad, 422);
    expect(Object.keys(bad.json.fields)).toEqual(["from"]);
  });
});

describe("affiliates", () => {
  test("list partners' codes, customers' codes (an account they own) and unknown codes, with sign-ups", async () => {
    const partner = await createPartner({ name: "Affiliate Partner" });
    await registerCustomer(t, { referralCode: partner.code });
    const friend = await openCustomer(t);
    await registerCustomer(t, { referralCode: friend.accountRef.toLowerCase() });
    const unknown = newCode("UNKNOWN");
    await registerCustomer(t, { referralCode: unknown });
    const res = await admin.client.get("console/affiliates");
    expectStatus(res, 200);
    const byCode = (code: string) => res.json.body.find((r: { code: string }) => r.code === code);
    expect(byCode(partner.code)).toEqual({
      code: partner.code,
      owner: { kind: "partner", id: partner.id, name: partner.name },
      signups: 1,
      funded: 0,
    });
    expect(byCode(friend.accountRef)).toEqual({
      code: friend.accountRef,
      owner: { kind: "customer", id: friend.id, name: expect.any(String) },
      signups: 1,
      funded: 0,
    });
    expect(byCode(unknown)).toEqual({
      code: unknown,
      owner: { kind: "unknown", id: null, name: null },
      signups: 1,
      funded: 0,
    });
    const page = await admin.client.get("/console/affiliates");
    expect(page.text).toContain(`data-code="${partner.code}"`);
  });
});

describe("a customer given another partner by an administrator", () => {
  test("keeps the code they registered with: referrals, affiliates and their session say it, the partner now apart", async () => {
    const acme = await createPartner({ name: "ACME Referrals" });
    const beta = await createPartner({ name: "BETA Referrals" });
    const dan = await referredCustomer(acme.code);
    const bob = await openCustomer(t);
    for (const customer of [dan, bob]) {
      expectStatus(await admin.client.put(`console/users/${customer.id}/partner`, { partner_id: beta.id }), 200);
    }

    const res = await admin.client.get(`console/referrals?${period()}&per_page=100`);
    expectStatus(res, 200);
    const items = res.json.body.referrals.items as { customer: { id: number } }[];
    // Bob typed no code: he is BETA's customer, not a sign-up with a code.
    expect(items.filter((r) => r.customer.id === bob.id)).toEqual([]);
    expect(items.filter((r) => r.customer.id === dan.id)).toEqual([{
      code: acme.code,
      owner: { kind: "partner", id: acme.id, name: acme.name },
      customer: expect.objectContaining({ id: dan.id }),
      partner: { id: beta.id, name: beta.name },
    }]);
    const page = await admin.client.get(`/console/referrals?${period()}&per_page=100`);
    const row = page.text.slice(page.text.indexOf(`data-referral="${dan.email}"`));
    expect(row.slice(0, row.indexOf("</tr>"))).toContain(`>${beta.name}</a>`);

    const codes = await admin.client.get("console/affiliates");
    const byCode = (code: string) => codes.json.body.find((r: { code: string }) => r.code === code);
    expect(byCode(acme.code)).toMatchObject({ signups: 1 });
    expect(byCode(beta.code)).toMatchObject({ signups: 0 });

    expect((await dan.client.get("account/whoami")).json.body.affiliate).toBe(acme.code);
    expect((await bob.client.get("account/whoami")).json.body.affiliate).toBeNull();
    const [row2] = await t.db.select({ referralCode: users.referralCode }).from(users).where(eq(users.id, bob.id));
    expect(row2.referralCode).toBeNull();

    // ACME's page lists its customers now: none, and says so without denying Dan's sign-up.
    const acmePage = await admin.client.get(`/console/partners/${acme.id}`);
    expect(acmePage.text).not.toContain("Nobody has registered");
    expect(acmePage.text).toContain(`${acme.name} has no customers now.`);
  });
});

describe("attributions", () => {
  test("count sign-ups and funded accounts by campaign and by referring site", async () => {
    const campaign = `black-friday-${newCode()}`;
    const site = `${campaign.toLowerCase()}.example.com`;
    const attribution = {
      utm_source: "newsletter",
      utm_medium: "email",
      utm_campaign: campaign,
      referrer: `https://${site}/offers?id=1`,
      landing_path: "/register",
    };
    const funded = await referredCustomer("", attribution);
    await fund(t, admin, funded, "GBP", "50.00");
    await referredCustomer("", attribution);
    // Registered, never funded, never opened.
    const waiting: Customer = await registerCustomer(t, { attribution, email: uniqueEmail("waiting") });
    expect(waiting.id).toBeGreaterThan(0);
    const res = await admin.client.get(`console/attributions?${period()}`);
    expectStatus(res, 200);
    expect(res.json.body.by_campaign).toContainEqual({
      utm_source: "newsletter",
      utm_medium: "email",
      utm_campaign: campaign,
      signups: 3,
      funded: 1,
    });
    expect(res.json.body.by_referrer).toContainEqual({ referrer: site, signups: 3, funded: 1 });
    expect(res.json.body.signups).toBeGreaterThanOrEqual(3);
    const page = await admin.client.get(`/console/attributions?${period()}`);
    const row = page.text.slice(page.text.indexOf(`data-referrer="${site}"`));
    expect(row.slice(0, row.indexOf("</tr>"))).toMatch(/>3<.*>1<.*>33%</s);
  });
});

describe("a visitor brought by a campaign or a partner", () => {
  test("keeps them from the home page to the registration", async () => {
    const landing = "utm_source=google&utm_medium=cpc&utm_campaign=spring&ref=ACME10&lang=en";
    const carried = "/register?utm_source=google&amp;utm_medium=cpc&amp;utm_campaign=spring&amp;ref=ACME10";
    const html = await (await t.app.request(`/?${landing}`)).text();
    // The header's button, the page's own, and the sign-in card's link.
    expect(html.split(`href="${carried}"`).length - 1).toBe(3);
    const register = await (await t.app.request(carried.replaceAll("&amp;", "&"))).text();
    expect(register).toContain('"referralCode":"ACME10"');
    expect(register).toContain('"utm_campaign":"spring"');
    // A visitor who came with nothing is sent to the plain registration.
    expect(await (await t.app.request("/")).text()).toContain('href="/register"');
  });
});

describe("the pages", () => {
  test("the partners page lists a partner, and the partner's page their customers", async () => {
    const partner = await createPartner({ name: "Page Partner" });
    const customer = await registerCustomer(t, { referralCode: partner.code });
    const list = await admin.client.get("/console/partners");
    expect(list.status).toBe(200);
    const main = list.text.slice(list.text.indexOf("<main"), list.text.indexOf("</main>"));
    expect(main).not.toContain("Coming soon");
    expect(main).toContain(`href="/console/partners/${partner.id}"`);
    expect(main).toContain('aria-label="Create a partner"');
    const page = await admin.client.get(`/console/partners/${partner.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`data-customer="${customer.email}"`);
    expect(page.text).toContain('aria-label="Change the partner"');
    expect((await admin.client.get("/console/partners/999999")).status).toBe(404);
  });

  test("a customer gets 404 from every call and page", async () => {
    const customer = await openCustomer(t);
    const partner = await createPartner();
    for (
      const path of [
        "console/partners",
        `console/partners/${partner.id}`,
        "console/affiliates",
        "console/referrals",
        "console/attributions",
      ]
    ) {
      expectStatus(await customer.client.get(path), 404);
    }
    expectStatus(
      await customer.client.post("console/partners", { name: "X", code: newCode(), share_percent: "1" }),
      404,
    );
    for (
      const path of [
        "/console/partners",
        `/console/partners/${partner.id}`,
        "/console/affiliates",
        "/console/referrals",
        "/console/attributions",
      ]
    ) {
      expect((await customer.client.get(path)).status).toBe(404);
    }
    const [unchanged] = await t.db.select().from(partners).where(and(eq(partners.id, partner.id)));
    expect(unchanged.name).toBe(partner.name);
  });
});
