import { and, asc, desc, eq, gt } from "drizzle-orm";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { accountMembers, auditLog, emails } from "../../db/schema.ts";
import { jobs } from "../../db/schema-jobs.ts";
import { rateTables } from "../../db/schema-money.ts";
import { notifications } from "../../db/schema-payments.ts";
import { rateAlerts } from "../../db/schema-ratealerts.ts";
import { JobRunner } from "../../server/jobs/runner.ts";
import { refreshRates } from "../../server/money/rate-feed.ts";
import { rateAlertCheckJob } from "../../server/ratealerts/check.ts";
import { type Admin, anotherAdmin, type ClientResponse, expectStatus, HOUR } from "../helpers/client.ts";
import { type MoneyApp, moneyApp, type OpenCustomer, openCustomer } from "../helpers/money.ts";
import { addMember, paymentAccount } from "../helpers/payments.ts";
import { businessOwner, memberWithRole } from "../helpers/account-users.ts";

/**
 * Rate alerts (issue 10 part 3, decision 038): set on a pair with a target and a direction, read
 * "1 GBP = x EUR" against the mid-market rate; checked when rates change (an administrator's update,
 * the ECB feed), each firing once with an in-app notification and an email, never while paused.
 * The embedded rates start at 1 EUR = 0.879 GBP, so 1 GBP = 1.137656 EUR.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;
let runner: JobRunner;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  runner = new JobRunner({
    db: t.db,
    jobs: [rateAlertCheckJob],
    deps: { config: t.config, services: t.services },
    now: t.clock.now,
  });
});

/** The administrator sets 1 EUR = `gbp` GBP; the rate checks it queued run. */
async function adminSetsGbp(gbp: string) {
  const res = await admin.client.put("console/rates", { base: "EUR", rates: { GBP: gbp } });
  expectStatus(res, 200);
  await runner.drain();
}

const alertRow = async (id: number) => (await t.db.select().from(rateAlerts).where(eq(rateAlerts.id, id)))[0];

const firedNotices = (userId: number) =>
  t.db.select().from(notifications).where(
    and(eq(notifications.userId, userId), eq(notifications.kind, "rate_alert_fired")),
  ).orderBy(asc(notifications.id));

async function emailsTo(to: string, after: number) {
  await t.services.emailOutbox.drain();
  return await t.db.select().from(emails).where(and(eq(emails.to, to), gt(emails.id, after))).orderBy(asc(emails.id));
}

async function lastEmailId() {
  const rows = await t.db.select({ id: emails.id }).from(emails);
  return rows.reduce((most, r) => Math.max(most, r.id), 0);
}

const created = (res: ClientResponse) => {
  expectStatus(res, 201);
  return res.json.body as { id: number; current_rate: string; fired_at: string | null };
};

describe("an alert that the rate crosses", () => {
  let customer: OpenCustomer;
  beforeAll(async () => {
    customer = await openCustomer(t);
  });

  test("fires once, by notification and email, not again while the rate stays past it, and never while paused", async () => {
    const waiting = created(
      await customer.client.post("account/ratealerts", {
        sell_currency: "gbp",
        buy_currency: "EUR",
        target_rate: "1.15",
        direction: "above",
      }),
    );
    expect(waiting.current_rate).toBe("1.137656");
    const paused = created(
      await customer.client.post("account/ratealerts", {
        sell_currency: "GBP",
        buy_currency: "EUR",
        target_rate: "1.151",
        direction: "above",
      }),
    );
    expectStatus(await customer.client.put(`account/ratealerts/${paused.id}`, { paused: true }), 200);
    const below = created(
      await customer.client.post("account/ratealerts", {
        sell_currency: "GBP",
        buy_currency: "EUR",
        target_rate: "1.10",
        direction: "below",
      }),
    );
    const mark = await lastEmailId();

    // 1 EUR = 0.86 GBP: 1 GBP = 1.162791 EUR, past 1.15.
    await adminSetsGbp("0.86");
    const fired = await alertRow(waiting.id);
    expect(fired.firedAt?.getTime()).toBe(t.clock.now());
    expect(fired.firedRate).toBe("1.162791");
    expect((await alertRow(paused.id)).firedAt).toBeNull();
    expect((await alertRow(below.id)).firedAt).toBeNull();

    const notices = await firedNotices(customer.id);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      title: "Rate alert: 1 GBP = 1.162791 EUR",
      link: `/account/ratealerts?alert=${waiting.id}`,
      body: expect.stringContaining("at or above your target of 1 GBP = 1.15 EUR"),
    });
    const mails = await emailsTo(customer.email, mark);
    expect(mails.map((m) => m.template)).toEqual(["rate-alert-fired"]);
    expect(mails[0].subject).toBe("Rate alert: 1 GBP = 1.162791 EUR");
    expect(mails[0].text).toContain(`http://localhost/account/ratealerts?alert=${waiting.id}`);
    expect(mails[0].html).toContain("See your rate alerts");

    // The rate moves again and stays past the target: nothing more.
    t.clock.advance(60_000);
    await adminSetsGbp("0.855");
    expect((await alertRow(waiting.id)).firedRate).toBe("1.162791");
    expect(await firedNotices(customer.id)).toHaveLength(1);
    expect(await emailsTo(customer.email, mails[0].id)).toEqual([]);

    // The list says when it fired and at what rate; the others still wait, with the rate now.
    const list = await customer.client.get("account/ratealerts");
    expectStatus(list, 200);
    const items = list.json.body.items as Record<string, unknown>[];
    expect(items.map((i) => i.id)).toEqual([below.id, paused.id, waiting.id]);
    expect(items[2]).toMatchObject({ fired_rate: "1.162791", fired_at: fired.firedAt!.toISOString() });
    expect(items[1]).toMatchObject({ paused: true, fired_at: null, current_rate: "1.169591" });

    // A fired alert is finished: it cannot be resumed or paused.
    const again = await customer.client.put(`account/ratealerts/${waiting.id}`, { paused: false });
    expectStatus(again, 409);

    // Resuming while the rate is past its target is refused as setting it would be; it stays paused
    // and does not fire at the next change.
    const resumed = await customer.client.put(`account/ratealerts/${paused.id}`, { paused: false });
    expectStatus(resumed, 422);
    expect(resumed.json.error).toBe(
      "The rate is already 1 GBP = 1.169591 EUR, at or above 1.151: choose a target the rate has not reached.",
    );
    expect(Object.keys(resumed.json.fields)).toEqual(["paused"]);
    expect(await alertRow(paused.id)).toMatchObject({ paused: true, firedAt: null });
    t.clock.advance(60_000);
    await adminSetsGbp("0.857");
    expect((await alertRow(paused.id)).firedAt).toBeNull();

    // Back short of the target, it resumes, and fires when the rate next crosses it.
    t.clock.advance(60_000);
    await adminSetsGbp("0.88");
    expectStatus(await customer.client.put(`account/ratealerts/${paused.id}`, { paused: false }), 200);
    t.clock.advance(60_000);
    await adminSetsGbp("0.856");
    expect((await alertRow(paused.id)).firedRate).toBe("1.168224");
    expect(await firedNotices(customer.id)).toHaveLength(2);
  });

  test("the page lists them with the rate now and when they fired; the dashboard shows the fired ones", async () => {
    // The text as read: without the markers React puts between a sentence's parts.
    const read = (html: string) => html.replaceAll("<!-- -->", "").replace(/<[^>]+>/g, "");
    const page = await customer.client.get("/account/ratealerts");
    expect(page.status).toBe(200);
    const text = read(page.text);
    // The screen itself is built (the menu may still mark other screens "Coming soon").
    expect(read(page.text.slice(page.text.indexOf("<main"), page.text.indexOf("</main>")))).not.toContain(
      "Coming soon",
    );
    expect(text).toContain("We watch the mid-market rate");
    // Beside the form, already in the server's render: the rate of its first pair.
    expect(text).toContain("Now: 1 GBP = 1.168224 EURMid-market rate of 2026-03-02");
    expect(text).toContain("Now: 1 GBP = 1.168224 EUR");
    expect(text).toContain("Fired 2 Mar 2026, 09:00 UTC at 1 GBP = 1.162791 EUR");
    const dashboard = await customer.client.get("/account");
    expect(dashboard.status).toBe(200);
    const section = read(dashboard.text.slice(dashboard.text.indexOf("Rate alerts that fired")));
    expect(section).toContain("1 GBP = 1.168224 EUR (at or above 1.151)");
    expect(dashboard.text).toMatch(/Rate alerts that fired[\s\S]*href="\/account\/ratealerts"/);
    // A customer whose alerts never fired is told so.
    const other = await openCustomer(t);
    expect((await other.client.get("/account")).text).toContain("None of your alerts has fired yet.");
  });

  test("the ECB feed's rates are checked too", async () => {
    const alert = created(
      await customer.client.post("account/ratealerts", {
        sell_currency: "EUR",
        buy_currency: "GBP",
        target_rate: "0.87",
        direction: "above",
      }),
    );
    expect(alert.current_rate).toBe("0.856000");
    t.clock.advance(24 * HOUR);
    const day = t.clock.today();
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
  <Cube><Cube time="${day}"><Cube currency="USD" rate="1.1550"/><Cube currency="GBP" rate="0.8712"/></Cube></Cube>
</gesmes:Envelope>`;
    const fetchFn = (() => Promise.resolve(new Response(xml))) as unknown as typeof fetch;
    expect(await refreshRates(t.db, "https://ecb.test/daily.xml", fetchFn, new Date(t.clock.now()))).toBe("updated");
    await runner.drain();
    expect((await alertRow(alert.id)).firedRate).toBe("0.871200");
    expect((await firedNotices(customer.id)).at(-1)?.title).toBe("Rate alert: 1 EUR = 0.871200 GBP");
  });
});

const above = (sell: string, buy: string, target: string) => ({
  sell_currency: sell,
  buy_currency: buy,
  target_rate: target,
  direction: "above",
});

describe("the check of a rate change", () => {
  const checks = () => t.db.select().from(jobs).where(eq(jobs.kind, "ratealerts.check"));

  test("someone removed from the account takes their alerts on it with them: nobody is told of their target", async () => {
    const desk = await anotherAdmin(t);
    const owner = await businessOwner(t, desk);
    const payer = await memberWithRole(t, owner.client, "payer");
    const earlier = await memberWithRole(t, owner.client, "payer");
    const payers = created(await payer.client.post("account/ratealerts", above("USD", "CHF", "0.9")));
    const owners = created(await owner.client.post("account/ratealerts", above("USD", "CHF", "0.9")));
    const left = created(await earlier.client.post("account/ratealerts", above("USD", "CHF", "0.9")));
    expectStatus(await owner.client.delete(`account/users/${payer.id}`), 200);
    const listed = await owner.client.get("account/ratealerts");
    expectStatus(listed, 200);
    expect(listed.json.body.items.map((a: { id: number }) => a.id)).toEqual([left.id, owners.id]);
    expect(await alertRow(payers.id)).toBeUndefined();
    const [removal] = await t.db.select().from(auditLog).where(eq(auditLog.action, "account-users.remove"))
      .orderBy(desc(auditLog.id)).limit(1);
    expect(removal.before).toMatchObject({
      user_id: payer.id,
      rate_alerts: [{ id: payers.id, sell_currency: "USD", buy_currency: "CHF", target_rate: "0.9" }],
    });
    // Someone who left before alerts went with them: their alert watches for nobody and does not fire.
    await t.db.delete(accountMembers).where(eq(accountMembers.userId, earlier.id));
    // 1 USD = 0.801732 CHF now (1 EUR = 0.926 CHF = 1.155 USD); 1 EUR = 1.05 CHF makes it 0.909091,
    // past 0.9 (a move of more than 10 %, so confirmed).
    const res = await desk.client.put("console/rates", {
      base: "EUR",
      rates: { CHF: "1.05" },
      confirm_changes: ["CHF"],
    });
    expectStatus(res, 200);
    await runner.drain();
    expect((await alertRow(owners.id)).firedRate).toBe("0.909091");
    expect((await alertRow(left.id)).firedAt).toBeNull();
    expect(await firedNotices(payer.id)).toEqual([]);
    expect(await firedNotices(earlier.id)).toEqual([]);
    expect((await firedNotices(owner.id)).map((n) => n.title)).toEqual(["Rate alert: 1 USD = 0.909091 CHF"]);
  });

  test("is queued with the rates it checks, once per rate table, and not for a change that was refused", async () => {
    // Signed in afresh: the clock moved a day since the first administrator signed in.
    const desk = await anotherAdmin(t);
    const before = (await checks()).length;
    // A move of more than 10 % not confirmed: refused, nothing written, nothing to check.
    const refused = await desk.client.put("console/rates", { base: "EUR", rates: { GBP: "0.5" } });
    expectStatus(refused, 409);
    expect(await checks()).toHaveLength(before);
    const res = await desk.client.put("console/rates", { base: "EUR", rates: { USD: "1.16" } });
    expectStatus(res, 200);
    const [table] = await t.db.select().from(rateTables).orderBy(desc(rateTables.id)).limit(1);
    const queued = (await checks()).filter((j) => j.uniqueKey === `ratealerts.check@${table.id}`);
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({ payload: { rateTableId: table.id } });
    await runner.drain();
    expect((await checks()).find((j) => j.id === queued[0].id)?.status).toBe("succeeded");
  });
});

describe("what an account may set", () => {
  test("at most 20 alerts: the 21st is refused and not saved", async () => {
    const customer = await openCustomer(t);
    for (let i = 0; i < 20; i++) {
      created(
        await customer.client.post("account/ratealerts", {
          sell_currency: "USD",
          buy_currency: "JPY",
          target_rate: String(200 + i),
          direction: "above",
        }),
      );
    }
    const refused = await customer.client.post("account/ratealerts", {
      sell_currency: "USD",
      buy_currency: "JPY",
      target_rate: "300",
      direction: "above",
    });
    expectStatus(refused, 422);
    expect(refused.json.error).toBe("An account keeps at most 20 rate alerts: delete one to set another.");
    const list = await customer.client.get("account/ratealerts");
    expect(list.json.body.items).toHaveLength(20);
    expect(list.json.body.limit).toBe(20);
  });

  test("the same alert set twice by one person is refused while the first still watches; another user may set it", async () => {
    const account = await paymentAccount(t, admin, {});
    const alert = { sell_currency: "GBP", buy_currency: "EUR", target_rate: "1.50", direction: "above" };
    const first = created(await account.owner.client.post("account/ratealerts", alert));
    const again = await account.owner.client.post("account/ratealerts", { ...alert, target_rate: "1.5" });
    expectStatus(again, 422);
    expect(again.json.fields).toEqual({
      target_rate: "You already have this alert (1 GBP = 1.5 EUR, at or above): it is watching.",
    });
    // Paused, it is still theirs: they resume it rather than set a second.
    expectStatus(await account.owner.client.put(`account/ratealerts/${first.id}`, { paused: true }), 200);
    const paused = await account.owner.client.post("account/ratealerts", alert);
    expectStatus(paused, 422);
    expect(paused.json.fields.target_rate).toBe(
      "You already have this alert (1 GBP = 1.5 EUR, at or above): it is paused, resume it instead.",
    );
    // Another target, the other direction, or another user of the account (each is told of their own) is fine.
    created(await account.owner.client.post("account/ratealerts", { ...alert, target_rate: "1.6" }));
    created(
      await account.owner.client.post("account/ratealerts", { ...alert, target_rate: "1.1", direction: "below" }),
    );
    const payer = await addMember(t, account, "payer");
    created(await payer.client.post("account/ratealerts", alert));
    expect((await account.owner.client.get("account/ratealerts")).json.body.items).toHaveLength(4);
  });

  test("another customer's alert is a 404 to change or delete, and stays as it was", async () => {
    const owner = await openCustomer(t);
    const stranger = await openCustomer(t);
    const alert = created(
      await owner.client.post("account/ratealerts", {
        sell_currency: "USD",
        buy_currency: "EUR",
        target_rate: "2",
        direction: "above",
      }),
    );
    expectStatus(await stranger.client.put(`account/ratealerts/${alert.id}`, { paused: true }), 404);
    expectStatus(await stranger.client.delete(`account/ratealerts/${alert.id}`), 404);
    expect((await stranger.client.get("account/ratealerts")).json.body.items).toEqual([]);
    expect(await alertRow(alert.id)).toMatchObject({ paused: false });
    const deleted = await owner.client.delete(`account/ratealerts/${alert.id}`);
    expectStatus(deleted, 200);
    expect(await alertRow(alert.id)).toBeUndefined();
  });

  const good = { sell_currency: "GBP", buy_currency: "EUR", target_rate: "1.5", direction: "above" };
  test.each([
    ["a target that is not a number", { target_rate: "one and a half" }, "target_rate"],
    ["a target of zero", { target_rate: "0" }, "target_rate"],
    ["no target", { target_rate: undefined }, "target_rate"],
    ["a currency we do not support", { sell_currency: "XYZ" }, "sell_currency"],
    ["no currency to buy", { buy_currency: undefined }, "buy_currency"],
    ["the same currency twice", { buy_currency: "GBP" }, "buy_currency"],
    ["a direction that is neither", { direction: "sideways" }, "direction"],
    ["a target the rate has already reached", { target_rate: "1.1", direction: "above" }, "target_rate"],
  ])("%s → 422 naming %s, nothing saved", async (_what, change, field) => {
    const customer = await openCustomer(t);
    const res = await customer.client.post("account/ratealerts", { ...good, ...change });
    expectStatus(res, 422);
    expect(Object.keys(res.json.fields)).toContain(field);
    expect((await customer.client.get("account/ratealerts")).json.body.items).toEqual([]);
  });

  test("paused must be true or false", async () => {
    const customer = await openCustomer(t);
    const alert = created(await customer.client.post("account/ratealerts", good));
    const res = await customer.client.put(`account/ratealerts/${alert.id}`, { paused: "yes" });
    expectStatus(res, 422);
    expect(Object.keys(res.json.fields)).toEqual(["paused"]);
  });

  test("a viewer sees the account's alerts and cannot set, pause or delete them", async () => {
    const account = await paymentAccount(t, admin, {});
    const alert = created(await account.owner.client.post("account/ratealerts", good));
    const viewer = await addMember(t, account, "viewer");
    const list = await viewer.client.get("account/ratealerts");
    expectStatus(list, 200);
    expect(list.json.body.items.map((i: { id: number }) => i.id)).toEqual([alert.id]);
    expectStatus(await viewer.client.post("account/ratealerts", good), 403);
    expectStatus(await viewer.client.put(`account/ratealerts/${alert.id}`, { paused: true }), 403);
    expectStatus(await viewer.client.delete(`account/ratealerts/${alert.id}`), 403);
  });
});
